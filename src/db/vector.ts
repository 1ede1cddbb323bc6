import pgvector from 'pgvector';

/** Runs one statement on the adapter's connection, unobserved (a lookup of the adapter's own). */
type RunQuery = (sql: string) => Promise<readonly { vector: string; array: string }[]>;

/** Rounds as toVectorSql does (7 decimals); -0 becomes 0, which is what the text literal "0" parses to. */
const round7 = (v: number): number => Math.round(v * 1e7) / 1e7 + 0;

/** Serialises an embedding as a pgvector literal; 7 decimals keep unit vectors exact to ~1e-7 and halve the payload. */
export function toVectorSql(vector: Float32Array | readonly number[]): string {
  return pgvector.toSql(Array.from(vector, round7)) as string;
}

/** Parses a pgvector text literal into a Float32Array. */
export function fromVectorSql(text: string): Float32Array {
  return Float32Array.from(pgvector.fromSql(text) as number[]);
}

/**
 * Embeddings sent as one `vector[]` parameter (`$n::vector[]`) in pgvector's binary form: the database reads the
 * floats as they are instead of parsing a decimal literal per number (the bulk of a chunk insert's parameter cost).
 * The values are rounded as toVectorSql rounds them, so the stored vectors are the same bytes as through the literal.
 * Only the `Db` adapters encode it (see `encodeVectorParams`).
 */
export class VectorArrayParam {
  constructor(readonly vectors: readonly Float32Array[]) {}
}

/** One embedding sent as a `vector` parameter (`$n::vector`) in pgvector's binary form; see VectorArrayParam. */
export class VectorParam {
  constructor(readonly vector: Float32Array) {}
}

/** The `vector` type's oid and its array type's, which the binary array form names. */
export interface VectorTypeOids {
  vector: number;
  vectorArray: number;
}

/** True when some parameter needs `encodeVectorParams`. */
export function hasVectorParams(params: readonly unknown[]): boolean {
  return params.some((p) => p instanceof VectorArrayParam || p instanceof VectorParam);
}

/** The parameters with each vector parameter replaced by its binary form (vector_send's, or array_send's of them). */
export function encodeVectorParams(params: readonly unknown[], oids: VectorTypeOids): unknown[] {
  return params.map((p) => {
    if (p instanceof VectorArrayParam) return encodeVectorArray(p.vectors, oids.vector);
    if (p instanceof VectorParam) return encodeVectorArray([p.vector], oids.vector).subarray(ELEMENT_AT + 4);
    return p;
  });
}

/** Where an array's first element (its length, then vector_send's bytes) starts in array_send's layout. */
const ELEMENT_AT = 20;

function encodeVectorArray(vectors: readonly Float32Array[], vectorOid: number): Buffer {
  const out = Buffer.alloc(ELEMENT_AT + vectors.reduce((n, v) => n + 8 + 4 * v.length, 0));
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  // Header: one dimension, no nulls, the element type, then the dimension's length and lower bound.
  view.setInt32(0, 1);
  view.setUint32(8, vectorOid);
  view.setInt32(12, vectors.length);
  view.setInt32(16, 1);
  let at = ELEMENT_AT;
  for (const v of vectors) {
    // Each element: its byte length, then vector_send's form: dimensions (int16), an unused int16, float4s.
    view.setInt32(at, 4 + 4 * v.length);
    view.setInt16(at + 4, v.length);
    at += 8;
    for (let i = 0; i < v.length; i++, at += 4) view.setFloat32(at, round7(v[i] as number));
  }
  return out;
}

/** Looks the vector type's oids up once per database (the extension's oids are fixed once it is created). */
export function vectorTypeOidsLoader(): (run: RunQuery) => Promise<VectorTypeOids> {
  let known: Promise<VectorTypeOids> | undefined;
  return (run) => {
    known ??= run(`SELECT oid::text AS vector, typarray::text AS array FROM pg_type WHERE oid = 'vector'::regtype`)
      .then((rows) => {
        const row = rows[0];
        if (!row) throw new Error('the vector type is missing: run the migrations');
        return { vector: Number(row.vector), vectorArray: Number(row.array) };
      })
      .catch((err: unknown) => {
        known = undefined; // not created yet: look again next time
        throw err;
      });
    return known;
  };
}
