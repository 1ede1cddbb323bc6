import pgvector from 'pgvector';

/** Serialises an embedding as a pgvector literal; 7 decimals keep unit vectors exact to ~1e-7 and halve the payload. */
export function toVectorSql(vector: Float32Array | readonly number[]): string {
  const rounded = Array.from(vector, (v) => Math.round(v * 1e7) / 1e7);
  return pgvector.toSql(rounded) as string;
}

/** Parses a pgvector text literal into a Float32Array. */
export function fromVectorSql(text: string): Float32Array {
  return Float32Array.from(pgvector.fromSql(text) as number[]);
}
