import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HashingEmbeddingProvider } from '../../src/embeddings/hashing/HashingEmbeddingProvider.js';
import { edgeTarget } from '../helpers/databases.js';
import { heldRoute, startFixtureSite, type FixtureSite } from '../helpers/fixtureSite.js';
import { eventually } from '../helpers/eventually.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';

// A URL re-import refreshes the page's document (docs/importing.md "importUrl"): what callers set stays unless given again, and a
// page reached through a redirect is one document whichever of its URLs is imported. Real HTTP on 127.0.0.1, real stores.

interface Doc {
  id: string;
  title: string;
  documentType: string;
  source: string | null;
  tags: string[];
  metadata: Record<string, unknown>;
  content: string;
}
const FIELDS = 'id title documentType source tags metadata content';
const IMPORT_URL = `mutation($input: ImportUrlInput!) {
  importUrl(input: $input) { documents { ${FIELDS} } job { id status embeddedChunkCount errors { item code message } } }
}`;
const DOCUMENT = `query($id: ID!) { document(id: $id) { ${FIELDS} } }`;
const JOB = `query($id: ID!) { importJob(id: $id) { status documents { id } } }`;

const html = (title: string, text: string, description = '') => ({
  body: `<html><head><title>${title}</title>${description ? `<meta name="description" content="${description}">` : ''}</head><body><main><h1>${title}</h1><p>${text}</p></main></body></html>`,
  type: 'text/html',
});

/** The hashing embedder, able to hold its next call until the test lets it go (a write embeds before its transaction). */
class PausingEmbedder extends HashingEmbeddingProvider {
  private pause: { entered: () => void; release: Promise<void> } | undefined;

  /** Holds the next embed call; resolves once it has started, with the function that lets it finish. */
  holdNext(): Promise<() => void> {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    return new Promise((entered) => (this.pause = { entered: () => entered(release), release: released }));
  }

  override async embed(texts: string[]): Promise<Float32Array[]> {
    const pause = this.pause;
    this.pause = undefined;
    if (pause) {
      pause.entered();
      await pause.release;
    }
    return super.embed(texts);
  }
}

// Refreshing does not depend on the store: one database (edgeTarget); imports.test.ts runs both.
describe.each([edgeTarget()])("URL re-imports refresh the page's document ($name)", (target) => {
  let t: TestServer;
  let site: FixtureSite;
  const embedder = new PausingEmbedder({ dimensions: 256 });
  beforeAll(async () => {
    site = await startFixtureSite();
    t = await startTestServer(target, { CAIRN_IMPORT_ALLOW_PRIVATE_HOSTS: '127.0.0.1' }, embedder);
  });
  afterAll(async () => {
    await t?.close();
    await site?.close();
  });

  async function importUrl(input: Record<string, unknown>): Promise<{ doc: Doc; embedded: number }> {
    const res = await t.gql<{ importUrl: { documents: Doc[]; job: { status: string; embeddedChunkCount: number } } }>(
      IMPORT_URL,
      { input },
    );
    expect(res.errors).toBeUndefined();
    expect(res.data!.importUrl.job.status).toBe('SUCCEEDED');
    expect(res.data!.importUrl.documents).toHaveLength(1);
    return { doc: res.data!.importUrl.documents[0]!, embedded: res.data!.importUrl.job.embeddedChunkCount };
  }
  async function importAsync(input: Record<string, unknown>): Promise<string[]> {
    const res = await t.gql<{ importUrl: { job: { id: string } } }>(IMPORT_URL, { input: { ...input, async: true } });
    expect(res.errors).toBeUndefined();
    const job = await eventually(
      async () => {
        const { data } = await t.gql<{ importJob: { status: string; documents: { id: string }[] } }>(JOB, {
          id: res.data!.importUrl.job.id,
        });
        return data!.importJob.status !== 'QUEUED' && data!.importJob.status !== 'RUNNING' && data!.importJob;
      },
      { what: 'the async import finishing' },
    );
    expect(job.status).toBe('SUCCEEDED');
    return job.documents.map((d) => d.id);
  }
  async function documentById(id: string): Promise<Doc | null> {
    const res = await t.gql<{ document: Doc | null }>(DOCUMENT, { id });
    expect(res.errors).toBeUndefined();
    return res.data!.document;
  }
  async function setTags(id: string, tags: string[]): Promise<void> {
    const res = await t.gql(
      `mutation($id: ID!, $tags: [String!]) { updateDocument(id: $id, input: { tags: $tags }) { document { id } } }`,
      { id, tags },
    );
    expect(res.errors).toBeUndefined();
  }

  it('keeps the tags when tags are left out or null, sync and async; a list, even [], replaces them', async () => {
    const url = `${site.url}/notes/rotation`;
    site.routes.set('/notes/rotation', html('Key rotation', 'Rotate the signing keys every quarter.'));
    expect((await importUrl({ url, tags: ['security', 'ops'] })).doc.tags).toEqual(['security', 'ops']);
    await setTags(url, ['security', 'ops', 'reviewed']); // a curator's tag, added after the import

    site.routes.set('/notes/rotation', html('Key rotation', 'Rotate the signing keys every month now.'));
    const refreshed = (await importUrl({ url })).doc;
    expect(refreshed).toMatchObject({ id: url, tags: ['security', 'ops', 'reviewed'] });
    expect(refreshed.content).toContain('every month now');
    expect((await importUrl({ url, tags: null })).doc.tags).toEqual(['security', 'ops', 'reviewed']);

    site.routes.set('/notes/rotation', html('Key rotation', 'Rotate the signing keys every week.'));
    expect(await importAsync({ url })).toEqual([url]);
    expect(await documentById(url)).toMatchObject({
      tags: ['security', 'ops', 'reviewed'],
      content: expect.stringContaining('every week'),
    });

    expect((await importUrl({ url, tags: ['runbook'] })).doc.tags).toEqual(['runbook']);
    expect(await importAsync({ url, tags: ['runbook', 'async'] })).toEqual([url]);
    expect((await documentById(url))!.tags).toEqual(['runbook', 'async']);
    expect((await importUrl({ url, tags: [] })).doc.tags).toEqual([]);
  });

  it("keeps a title, type, source and metadata given once, refreshing the page's own title and metadata", async () => {
    const url = `${site.url}/guide/setup`;
    site.routes.set('/guide/setup', html('Setup v1', 'Install the agent on every host.', 'first description'));
    const first = (
      await importUrl({
        url,
        title: 'Team setup',
        documentType: 'MANUAL',
        source: 'wiki',
        metadata: { team: 'payments' },
      })
    ).doc;
    expect(first).toMatchObject({
      title: 'Team setup',
      documentType: 'MANUAL',
      source: 'wiki',
      metadata: { team: 'payments', description: 'first description' },
    });

    site.routes.set(
      '/guide/setup',
      html('Setup v2', 'Install the agent on every host, then enrol it.', 'second description'),
    );
    const bare = (await importUrl({ url })).doc;
    expect(bare).toMatchObject({
      title: 'Team setup',
      documentType: 'MANUAL',
      source: 'wiki',
      metadata: { team: 'payments', description: 'second description', url, finalUrl: url },
    });
    expect(bare.content).toContain('then enrol it');
    // Nothing changed since: nothing is embedded again (the kept title is known before the chunks are hashed).
    expect((await importUrl({ url })).embedded).toBe(0);

    const given = (await importUrl({ url, title: 'Agent setup', metadata: { owner: 'ana' } })).doc;
    expect(given).toMatchObject({
      title: 'Agent setup',
      documentType: 'MANUAL',
      source: 'wiki',
      metadata: { owner: 'ana', description: 'second description' },
    });
    expect(given.metadata).not.toHaveProperty('team');
    expect((await importUrl({ url, metadata: {} })).doc.metadata).not.toHaveProperty('owner');

    // A title the caller never gave follows the page.
    const other = `${site.url}/guide/other`;
    site.routes.set('/guide/other', html('Other v1', 'Some other page.'));
    expect((await importUrl({ url: other, metadata: { team: 'core' } })).doc).toMatchObject({
      title: 'Other v1',
      documentType: 'TUTORIAL',
      source: other,
    });
    site.routes.set('/guide/other', html('Other v2', 'Some other page, revised.'));
    expect((await importUrl({ url: other })).doc).toMatchObject({
      title: 'Other v2',
      documentType: 'TUTORIAL',
      metadata: { team: 'core' },
    });
  });

  it('does not lose tags set while the page was fetched or embedded: the merge reads the document inside its write', async () => {
    const url = `${site.url}/notes/slow`;
    site.routes.set('/notes/slow', html('Slow notes', 'Patience is a virtue.'));
    await importUrl({ url, tags: ['draft'] });
    const slow = heldRoute(html('Slow notes', 'Patience is a virtue, twice.'));
    site.routes.set('/notes/slow', slow.route);
    const fetching = importUrl({ url });
    await slow.requested; // the import is fetching the page: tag it now, then let the page arrive
    await setTags(url, ['draft', 'approved']);
    slow.release();
    expect((await fetching).doc.tags).toEqual(['draft', 'approved']);

    site.routes.set('/notes/slow', html('Slow notes', 'Patience is a virtue, thrice.'));
    const held = embedder.holdNext();
    const embedding = importUrl({ url });
    const release = await held; // the import has read the document once and is embedding its new chunk
    await setTags(url, ['draft', 'approved', 'published']);
    release();
    expect((await embedding).doc.tags).toEqual(['draft', 'approved', 'published']);
  });

  it('updates the document of a page reached through a redirect, whichever URL is imported, instead of making a second one', async () => {
    site.routes.set('/moved/a', { redirect: '/moved/b', status: 301 });
    site.routes.set('/moved/b', html('Moved page', 'The page that moved.'));
    const a = `${site.url}/moved/a`;
    const b = `${site.url}/moved/b`;
    const first = (await importUrl({ url: a, tags: ['kept'] })).doc;
    expect(first).toMatchObject({ id: a, metadata: { url: a, finalUrl: b } });

    site.routes.set('/moved/b', html('Moved page', 'The page that moved, updated.'));
    const direct = (await importUrl({ url: b })).doc;
    expect(direct).toMatchObject({ id: a, tags: ['kept'], metadata: { url: b, finalUrl: b } });
    expect(direct.content).toContain('updated');
    expect(await documentById(b)).toBeNull();
    expect((await importUrl({ url: a })).doc.id).toBe(a);
    expect(await importAsync({ url: b })).toEqual([a]);

    // The other way round: a page imported directly, then through a URL that redirects to it.
    site.routes.set('/moved/c', html('Landing page', 'Where the short link goes.'));
    site.routes.set('/go/c', { redirect: '/moved/c' });
    const c = `${site.url}/moved/c`;
    expect((await importUrl({ url: c, tags: ['landing'] })).doc.id).toBe(c);
    expect((await importUrl({ url: `${site.url}/go/c` })).doc).toMatchObject({
      id: c,
      tags: ['landing'],
      metadata: { finalUrl: c },
    });
    expect(await documentById(`${site.url}/go/c`)).toBeNull();

    const count = await t.gql<{ documents: { totalCount: number } }>(
      `{ documents(filter: { text: "moved" }) { totalCount } }`,
    );
    expect(count.data!.documents.totalCount).toBe(1);
  });

  it("refreshes an uploaded file's document the same way: tags and metadata left out stay, given ones replace", async () => {
    const upload = async (text: string, input: Record<string, unknown>): Promise<Doc> => {
      const form = new FormData();
      form.append('file', new Blob([text], { type: 'text/markdown' }), 'runbook.md');
      const up = await fetch(`${t.server.url}/v1/uploads`, {
        method: 'POST',
        body: form,
        headers: { 'apollo-require-preflight': 'true' },
      });
      expect(up.status).toBe(201);
      const { id } = (await up.json()) as { id: string };
      const res = await t.gql<{ importUpload: { documents: Doc[] } }>(
        `mutation($input: ImportUploadInput!) { importUpload(input: $input) { documents { ${FIELDS} } } }`,
        {
          input: { uploadId: id, ...input },
        },
      );
      expect(res.errors).toBeUndefined();
      return res.data!.importUpload.documents[0]!;
    };
    const first = await upload('# Runbook\n\nRestart the cache.', {
      tags: ['ops'],
      metadata: { owner: 'sre' },
      title: 'Cache runbook',
    });
    expect(first).toMatchObject({
      id: 'file:runbook.md',
      tags: ['ops'],
      title: 'Cache runbook',
      metadata: { owner: 'sre', fileName: 'runbook.md' },
    });
    const again = await upload('# Runbook\n\nRestart the cache, then warm it.', {});
    expect(again).toMatchObject({
      id: 'file:runbook.md',
      tags: ['ops'],
      title: 'Cache runbook',
      metadata: { owner: 'sre', fileName: 'runbook.md' },
    });
    expect(again.content).toContain('warm it');
    const replaced = await upload('# Runbook\n\nRestart the cache, then warm it.', { tags: ['oncall'], metadata: {} });
    expect(replaced.tags).toEqual(['oncall']);
    expect(replaced.metadata).not.toHaveProperty('owner');
    expect(replaced.title).toBe('Cache runbook');
  });
});
