import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { loadConfig, readEnvironment } from '../../../src/config.js';
import type { AppError } from '../../../src/errors.js';

describe('loadConfig', () => {
  it('reads the enrichment settings under their other names, their own names winning', () => {
    const old = loadConfig({
      CAIRN_KG_MAX_ENTITIES_IN_CONTEXT: '0',
      CAIRN_GAP_SCORE_THRESHOLD: '0.4',
      CAIRN_GAP_MIN_COVERAGE: '0.5',
    });
    expect(old.enrich).toMatchObject({ maxEntities: 0, gapScoreThreshold: 0.4, gapMinCoverage: 0.5 });
    const both = loadConfig({ CAIRN_KG_MAX_ENTITIES_IN_CONTEXT: '0', CAIRN_ENRICH_MAX_ENTITIES: '7' });
    expect(both.enrich.maxEntities).toBe(7);
    expect(() => loadConfig({ CAIRN_GAP_MIN_COVERAGE: '2' })).toThrow(/CAIRN_ENRICH_GAP_MIN_COVERAGE/);
  });

  it('applies the documented defaults', () => {
    const c = loadConfig({});
    expect(c.host).toBe('127.0.0.1');
    expect(c.port).toBe(4000);
    expect(c.dataDir).toBe(path.resolve('./data'));
    expect(c.databaseUrl).toBeUndefined();
    expect(c.chunking).toEqual({ size: 500, overlap: 50 });
    expect(c.rag).toEqual({ topK: 3, maxTopK: 50, minScoreFloor: 0 });
    expect(c.embedding.provider).toBe('auto');
    expect(c.embedding.offline).toBe(false);
  });

  it('reads and coerces variables', () => {
    const c = loadConfig({
      CAIRN_PORT: '8080',
      CAIRN_OFFLINE: '1',
      CAIRN_CHUNK_SIZE: '800',
      CAIRN_CHUNK_OVERLAP: '100',
      CAIRN_DATABASE_URL: 'postgres://x@y/z',
      OPENAI_API_KEY: 'sk-1',
    });
    expect(c.port).toBe(8080);
    expect(c.embedding.offline).toBe(true);
    expect(c.embedding.apiKey).toBe('sk-1');
    expect(c.chunking).toEqual({ size: 800, overlap: 100 });
    expect(c.databaseUrl).toBe('postgres://x@y/z');
  });

  it('names every bad variable', () => {
    try {
      loadConfig({
        CAIRN_PORT: 'eighty',
        CAIRN_CHUNK_OVERLAP: '600',
        CAIRN_EMBEDDING_PROVIDER: 'magic',
        CAIRN_OFFLINE: 'maybe',
      });
      throw new Error('expected failure');
    } catch (err) {
      const e = err as AppError;
      expect(e.code).toBe('CONFIG_INVALID');
      for (const v of ['CAIRN_PORT', 'CAIRN_EMBEDDING_PROVIDER', 'CAIRN_OFFLINE']) expect(e.message).toContain(v);
    }
    expect(() => loadConfig({ CAIRN_CHUNK_SIZE: '100', CAIRN_CHUNK_OVERLAP: '100' })).toThrow(/CAIRN_CHUNK_OVERLAP/);
    expect(() => loadConfig({ CAIRN_MAX_DOCUMENT_CHARS: '1000', CAIRN_MAX_RESPONSE_TEXT_CHARS: '999' })).toThrow(
      /CAIRN_MAX_RESPONSE_TEXT_CHARS: must be at least CAIRN_MAX_DOCUMENT_CHARS/,
    );
    expect(() => loadConfig({ CAIRN_RAG_TOP_K: '60' })).toThrow(/CAIRN_RAG_TOP_K/);
  });

  it('reads private-host allow-list entries as host, host:port or [IPv6]:port, and refuses bad ports', () => {
    expect(
      loadConfig({ CAIRN_IMPORT_ALLOW_PRIVATE_HOSTS: ' Docs.Internal:8443, 127.0.0.1 ,[::1]:8080,::1' }).import
        .allowPrivateHosts,
    ).toEqual(['docs.internal:8443', '127.0.0.1', '[::1]:8080', '::1']);
    for (const bad of ['docs.internal:http', '127.0.0.1:0', '[::1]:70000', 'host:']) {
      expect(() => loadConfig({ CAIRN_IMPORT_ALLOW_PRIVATE_HOSTS: bad })).toThrow(
        /CAIRN_IMPORT_ALLOW_PRIVATE_HOSTS: ".*": the port must be a number from 1 to 65535/,
      );
    }
  });
});

describe('readEnvironment (.env beneath the environment)', () => {
  const withFile = (text: string, run: (file: string) => void) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-dotenv-'));
    try {
      const file = path.join(dir, '.env');
      fs.writeFileSync(file, text);
      run(file);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  };

  it("fills in the file's variables, lets the real environment win, and feeds loadConfig", () => {
    withFile(
      '# comment\nCAIRN_PORT=5005\nCAIRN_CHUNK_SIZE=800\nCAIRN_API_KEY="cairn_abc"\nOPENAI_API_KEY=sk-file\n',
      (file) => {
        const env = readEnvironment(file, { CAIRN_PORT: '6006', PATH: '/bin' });
        expect(env).toEqual(
          expect.objectContaining({
            CAIRN_PORT: '6006',
            CAIRN_CHUNK_SIZE: '800',
            CAIRN_API_KEY: 'cairn_abc',
            PATH: '/bin',
          }),
        );
        const config = loadConfig(env);
        expect([config.port, config.chunking.size, config.apiKey, config.embedding.apiKey]).toEqual([
          6006,
          800,
          'cairn_abc',
          'sk-file',
        ]);
      },
    );
  });

  it('is no error without a file, and names an unreadable one', () => {
    const env = { CAIRN_PORT: '7007' };
    expect(readEnvironment(path.join(os.tmpdir(), 'no-such-folder-cairn', '.env'), env)).toBe(env);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-dotenv-'));
    try {
      // A folder where the file should be: readable by nobody as a file.
      fs.mkdirSync(path.join(dir, '.env'));
      expect(() => readEnvironment(path.join(dir, '.env'), env)).toThrow(/Cannot read .*\.env \(EISDIR\)/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
