import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { dbTargets } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';

const SEARCH = `query($input: SearchInput!) { search(input: $input) { document { id } } }`;

/** API reference pages as the OpenAPI importer titles them, among pages that share their ordinary words. */
const DOCS = [
  {
    id: 'op:post-message',
    title: 'POST /chat.postMessage — Sends a message to a channel (chat.postMessage)',
    content: 'Posts a message to a public channel, private channel or direct message.',
  },
  {
    id: 'op:replies',
    title: 'GET /conversations.replies — Retrieve a thread of messages (conversations.replies)',
    content: 'Returns a thread of messages posted to a conversation.',
  },
  {
    id: 'op:pods',
    title: 'GET /api/v1/namespaces/{namespace}/pods — list or watch objects of kind Pod (listCoreV1NamespacedPod)',
    content: 'Lists pods in a namespace.',
  },
  {
    id: 'op:completions',
    title: 'POST /v1/chat/completions — Creates a model response (createChatCompletion)',
    content: 'Creates a model response for the given chat conversation.',
  },
  {
    id: 'op:snake',
    title: 'GET /users/{user_id} — Get a user',
    content: 'Returns the user with the given user_id field; the response includes created_at.',
  },
  {
    id: 'op:kebab',
    title: 'GET /x-rate-limit — Rate limit status',
    content: 'The x-rate-limit header tells how many requests remain.',
  },
  {
    id: 'note:chat',
    title: 'Chat etiquette',
    content:
      'Post a message in the right channel; chat politely; messages in threads keep conversations tidy. Pods of people list their work.',
  },
  {
    id: 'note:models',
    title: 'Model notes',
    content: 'Chat models create responses; completions of a chat are billed per token.',
  },
];

describe.each(dbTargets())('keyword search finds code identifiers ($name)', (target) => {
  let t: TestServer;
  const top = async (query: string, mode = 'KEYWORD') => {
    const res = await t.gql<{ search: { document: { id: string } }[] }>(SEARCH, { input: { query, mode, topK: 3 } });
    expect(res.errors).toBeUndefined();
    return res.data!.search.map((h) => h.document.id)[0];
  };
  beforeAll(async () => {
    t = await startTestServer(target);
    const res = await t.gql(
      `mutation($input: [CreateDocumentInput!]!) { upsertDocuments(input: $input) { changed } }`,
      { input: DOCS },
    );
    expect(res.errors).toBeUndefined();
  });
  afterAll(async () => {
    await t?.close();
  });

  it.each([
    ['chat.postMessage', 'op:post-message'],
    ['how do I call postMessage', 'op:post-message'],
    ['conversations.replies', 'op:replies'],
    ['listCoreV1NamespacedPod', 'op:pods'],
    ['list core v1 namespaced pod', 'op:pods'],
    ['/api/v1/namespaces/{namespace}/pods', 'op:pods'],
    ['/v1/chat/completions', 'op:completions'],
    ['createChatCompletion', 'op:completions'],
    ['user_id', 'op:snake'],
    ['x-rate-limit', 'op:kebab'],
  ])('%s finds its operation first, in KEYWORD and HYBRID', async (query, expected) => {
    expect(await top(query)).toBe(expected);
    expect(await top(query, 'HYBRID')).toBe(expected);
  });
});
