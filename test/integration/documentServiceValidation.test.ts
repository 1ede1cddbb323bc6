// DocumentService validates what it is given, so every entry (GraphQL, MCP, the CLI, importers, the audit's revert)
// gets the same rules without remembering to call validateDocumentInput: called directly, it refuses bad input with
// BAD_USER_INPUT naming the field, and writes nothing.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { MAX_DOCUMENTS_PER_WRITE } from '../../src/documents/DocumentService.js';
import { edgeTarget } from '../helpers/databases.js';
import { failureOf as appErrorOf } from '../helpers/failureOf.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';

/** The AppError `work` fails with, as code, field and message. */
async function failureOf(work: () => Promise<unknown>): Promise<{ code: string; field: unknown; message: string }> {
  const error = await appErrorOf(work());
  return { code: error.code, field: error.details.field, message: error.message };
}

// Validation does not depend on the database: one is enough.
const store = edgeTarget();

describe(`DocumentService validates its input (${store.name})`, () => {
  let t: TestServer;

  beforeAll(async () => {
    t = await startTestServer(store);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('create refuses an empty title and an unknown type, naming the field', async () => {
    const noTitle = await failureOf(() => t.services.documents.create({ title: ' ', content: 'text' }));
    expect(noTitle).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.title' });
    const badType = await failureOf(() =>
      t.services.documents.create({ title: 'a', content: 'text', documentType: 'POEM' }),
    );
    expect(badType).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.documentType' });
    expect(badType.message).toMatch(/must be one of/);
  });

  it('create normalises what it accepts: repeated tags, type and a blank source', async () => {
    const { document } = await t.services.documents.create({
      id: 'validated:1',
      title: 'Normalised',
      content: 'text',
      documentType: 'MANUAL',
      source: '  ',
      tags: ['team', 'team'],
    });
    expect(document).toMatchObject({ documentType: 'manual', source: null });
    expect(document.tags).toHaveLength(1);
  });

  it('upsertMany names the bad input of a batch and writes none of it', async () => {
    const failure = await failureOf(() =>
      t.services.documents.upsertMany([
        { id: 'batch:good', title: 'good', content: 'text' },
        { id: 'batch:bad', title: 'bad', content: 'text', metadata: [1, 2] },
      ]),
    );
    expect(failure).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input[1].metadata' });
    expect(await t.services.documents.findByIds(['batch:good', 'batch:bad'])).toEqual([]);
  });

  it(`upsertMany refuses more than ${MAX_DOCUMENTS_PER_WRITE} documents`, async () => {
    const many = Array.from({ length: MAX_DOCUMENTS_PER_WRITE + 1 }, (_, i) => ({
      id: `many:${i}`,
      title: `doc ${i}`,
      content: 'text',
    }));
    const failure = await failureOf(() => t.services.documents.upsertMany(many));
    expect(failure).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input' });
    expect(failure.message).toMatch(`at most ${MAX_DOCUMENTS_PER_WRITE} documents per call (got 1001)`);
    expect(await t.services.documents.findByIds(['many:0'])).toEqual([]);
  });

  it('update refuses a bad id and a past expiry before reading anything', async () => {
    const badId = await failureOf(() => t.services.documents.update(' spaced id', { title: 'x' }));
    expect(badId).toMatchObject({ code: 'BAD_USER_INPUT', field: 'id' });
    await t.services.documents.create({ id: 'validated:2', title: 'kept', content: 'text' });
    const past = await failureOf(() =>
      t.services.documents.update('validated:2', { expiresAt: new Date('2000-01-01T00:00:00Z') }),
    );
    expect(past).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.expiresAt' });
    const [kept] = await t.services.documents.findByIds(['validated:2']);
    expect(kept?.expiresAt).toBeNull();
  });
});
