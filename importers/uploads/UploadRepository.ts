import { createHash, randomUUID } from 'node:crypto';
import { spaceSql, toDate, writeSpace, type Db } from '../../src/importerPort.js';
import { AppError, ErrorCode } from '../../src/errors.js';

/** An uploaded file's description, without its bytes. */
export interface UploadRecord {
  id: string;
  fileName: string;
  contentType: string | null;
  byteSize: number;
  sha256: string;
  createdAt: Date;
  expiresAt: Date;
}

/** An uploaded file with its bytes. */
export interface UploadContent extends UploadRecord {
  bytes: Buffer;
}

interface UploadRow {
  id: string;
  file_name: string;
  content_type: string | null;
  byte_size: number;
  sha256: string;
  created_at: Date | string;
  expires_at: Date | string;
  content?: Uint8Array;
}

function toRecord(row: UploadRow): UploadRecord {
  return {
    id: row.id,
    fileName: row.file_name,
    contentType: row.content_type,
    byteSize: row.byte_size,
    sha256: row.sha256,
    createdAt: toDate(row.created_at),
    expiresAt: toDate(row.expires_at),
  };
}

/** Keeps uploaded files in Postgres, so every server instance can import them and a restart loses none. */
export class UploadRepository {
  constructor(
    private readonly db: Db,
    private readonly ttlMs: number,
  ) {}

  /** Stores a file in the request's space and returns its record (the id is what `importUpload` takes there). */
  async save(fileName: string, contentType: string | null, bytes: Buffer): Promise<UploadRecord> {
    const id = `upl_${randomUUID().replaceAll('-', '')}`;
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const { rows } = await this.db.query<UploadRow>(
      `INSERT INTO uploads (id, file_name, content_type, byte_size, sha256, content, expires_at, space_id)
       VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7::bigint / 1000.0), $8)
       RETURNING id, file_name, content_type, byte_size, sha256, created_at, expires_at`,
      [id, fileName, contentType, bytes.length, sha256, bytes, this.ttlMs, writeSpace()],
    );
    return toRecord(rows[0] as UploadRow);
  }

  /** Loads a live upload's bytes; NOT_FOUND names the id when it is unknown, expired or of another space. */
  async load(id: string): Promise<UploadContent> {
    const params: unknown[] = [id];
    const { rows } = await this.db.query<UploadRow>(
      `SELECT id, file_name, content_type, byte_size, sha256, created_at, expires_at, content
         FROM uploads u WHERE id = $1 AND expires_at > now() AND ${spaceSql('u', params)}`,
      params,
    );
    const row = rows[0];
    if (!row?.content) {
      throw new AppError(
        ErrorCode.NOT_FOUND,
        `upload "${id}" does not exist or has expired; POST the file to /v1/uploads again`,
        { kind: 'Upload', id },
      );
    }
    return { ...toRecord(row), bytes: Buffer.from(row.content) };
  }

  /** A live upload of the request's space without its bytes, or undefined. */
  async find(id: string): Promise<UploadRecord | undefined> {
    const params: unknown[] = [id];
    const { rows } = await this.db.query<UploadRow>(
      `SELECT id, file_name, content_type, byte_size, sha256, created_at, expires_at
         FROM uploads u WHERE id = $1 AND expires_at > now() AND ${spaceSql('u', params)}`,
      params,
    );
    return rows[0] ? toRecord(rows[0]) : undefined;
  }

  /** Deletes expired uploads; returns how many. */
  async deleteExpired(): Promise<number> {
    const { rowCount } = await this.db.query('DELETE FROM uploads WHERE expires_at <= now()');
    return rowCount;
  }
}
