import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { dbTargets } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';

const PREFLIGHT = { 'apollo-require-preflight': 'true' };
const LEVELS = 100_000;

interface Imported {
  documents: { id: string; title: string; tags: string[]; content: string; metadata: Record<string, unknown> }[];
  warnings: string[];
}

describe('uploads nested 100,000 levels deep are imported through the server (pglite)', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(
      dbTargets().find((d) => d.name === 'pglite')!,
      { CAIRN_RATE_LIMIT_PER_SECOND: '0' },
    );
  });
  afterAll(async () => {
    await t?.close();
  });

  /** Uploads `text` as `name` and imports it; returns the GraphQL answer. */
  async function upload(name: string, text: string, type: string) {
    const form = new FormData();
    form.append('file', new Blob([text], { type }), name);
    const up = await fetch(`${t.server.url}/v1/uploads`, { method: 'POST', body: form, headers: PREFLIGHT });
    expect(up.status).toBe(201);
    const { id } = (await up.json()) as { id: string };
    return t.gql<{ importUpload: Imported }>(
      'mutation($id: ID!) { importUpload(input: { uploadId: $id }) { documents { id title tags content metadata } warnings } }',
      { id },
    );
  }

  it('stores deep YAML and JSON as text, with a warning saying where instead of a stack overflow', async () => {
    const yaml = await upload(
      'deep.yaml',
      `tree: ${'['.repeat(LEVELS)}leaf${']'.repeat(LEVELS)}\n`,
      'application/yaml',
    );
    expect(yaml.errors).toBeUndefined();
    const warnings = yaml.data!.importUpload.warnings.join('\n');
    expect(warnings).not.toMatch(/call stack/i);
    expect(warnings).toMatch(/nests deeper than 200 levels \(at tree\[0\]/);
    expect(yaml.data!.importUpload.documents[0]!.content).toContain('leaf');

    const json = await upload('deep.json', `${'{"a":'.repeat(LEVELS)}"leaf"${'}'.repeat(LEVELS)}`, 'application/json');
    expect(json.errors).toBeUndefined();
    expect(json.data!.importUpload.warnings.join('\n')).not.toMatch(/call stack/i);
    expect(json.data!.importUpload.documents[0]!.content).toContain('leaf');
  });

  it('keeps what deep front matter allows and stores the page', async () => {
    const md = `---\ntitle: Deep notes\ntags: [ops]\nlevels: ${'['.repeat(100)}${']'.repeat(100)}\n---\n# Deep notes\n\nBody text.\n`;
    const res = await upload('deep.md', md, 'text/markdown');
    expect(res.errors).toBeUndefined();
    const doc = res.data!.importUpload.documents[0]!;
    expect(doc).toMatchObject({ title: 'Deep notes', tags: ['ops'], content: '# Deep notes\n\nBody text.\n' });
    expect(res.data!.importUpload.warnings.join('\n')).toMatch(
      /front matter nesting deeper than 62 levels was cut at levels\[0\]/,
    );
    expect(JSON.stringify(doc.metadata)).toContain('[nested too deeply: cut]');
  });
});
