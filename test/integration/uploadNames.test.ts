import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { edgeTarget } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';

const PREFLIGHT = { 'apollo-require-preflight': 'true' };

describe.each([edgeTarget()])('uploaded file names and front matter ($name)', (target) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(target, { CAIRN_RATE_LIMIT_PER_SECOND: '0' });
  });
  afterAll(async () => {
    await t?.close();
  });

  /** Uploads `text` as `name` (sent as UTF-8, as browsers and curl send it) and imports it. */
  async function importNamed(name: string, text: string): Promise<{ fileName: string; id: string }> {
    const form = new FormData();
    form.append('file', new Blob([text], { type: 'text/plain' }), name);
    const up = await fetch(`${t.server.url}/v1/uploads`, { method: 'POST', body: form, headers: PREFLIGHT });
    expect(up.status).toBe(201);
    const upload = (await up.json()) as { id: string; fileName: string };
    const res = await t.gql<{ importUpload: { documents: { id: string }[] } }>(
      'mutation($id: ID!) { importUpload(input: { uploadId: $id }) { documents { id } } }',
      { id: upload.id },
    );
    expect(res.errors).toBeUndefined();
    return { fileName: upload.fileName, id: res.data!.importUpload.documents[0]!.id };
  }

  it("takes a markdown file's front matter apart: its tags join the caller's, and its text is not stored", async () => {
    const form = new FormData();
    form.append(
      'file',
      new Blob(['---\ntitle: Deploy guide\ntags: [Ops, deploy]\nlayout: docs\n---\n# Deploying\n\nRun npm start.\n'], {
        type: 'text/markdown',
      }),
      'deploy.md',
    );
    const upload = (await (
      await fetch(`${t.server.url}/v1/uploads`, { method: 'POST', body: form, headers: PREFLIGHT })
    ).json()) as { id: string };
    const res = await t.gql<{
      importUpload: {
        documents: { title: string; tags: string[]; content: string; metadata: { frontMatter: { layout: string } } }[];
      };
    }>(
      'mutation($id: ID!) { importUpload(input: { uploadId: $id, tags: ["handbook"] }) { documents { title tags content metadata } } }',
      { id: upload.id },
    );
    expect(res.errors).toBeUndefined();
    const doc = res.data!.importUpload.documents[0]!;
    expect(doc).toMatchObject({
      title: 'Deploy guide',
      tags: ['handbook', 'ops', 'deploy'],
      content: '# Deploying\n\nRun npm start.\n',
    });
    expect(doc.metadata.frontMatter.layout).toBe('docs');
  });

  it('keeps each name as sent and gives each file its own document', async () => {
    const japan = await importNamed('日本.txt', 'Tokyo office opening hours are nine to six.');
    const china = await importNamed('中国.txt', 'Shanghai office opening hours are ten to seven.');
    // Before: both names came back as Latin-1 mojibake and both files became `file:------.txt`, the second
    // overwriting the first.
    expect(japan).toEqual({ fileName: '日本.txt', id: 'file:%E6%97%A5%E6%9C%AC.txt' });
    expect(china).toEqual({ fileName: '中国.txt', id: 'file:%E4%B8%AD%E5%9B%BD.txt' });
    const docs = await t.gql<{ a: { content: string; metadata: { fileName: string } }; b: { content: string } }>(
      `query($a: ID!, $b: ID!) { a: document(id: $a) { content metadata } b: document(id: $b) { content } }`,
      { a: japan.id, b: china.id },
    );
    expect(docs.data!.a.content).toContain('Tokyo');
    expect(docs.data!.a.metadata.fileName).toBe('日本.txt');
    expect(docs.data!.b.content).toContain('Shanghai');
  });
});
