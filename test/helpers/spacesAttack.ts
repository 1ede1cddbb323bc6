import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect } from '@jest/globals';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { gqlAs, type GqlHttpResponse } from './auth.js';
import { startFixtureSite, type FixtureSite } from './fixtureSite.js';
import { countedCallHeaders, countStatements } from './statementCounter.js';
import { startRunServer, type ServerRun } from './serverRuns.js';
import type { TestServer } from './testServer.js';

// The scene of the spaces' attacker suites (spacesAttacker*.test.ts): an attacker holding an editor key of space
// `alpha` probes space `beta`, whose entities and document it must never see.

/** The response with every listed id replaced by one placeholder, so answers about two ids compare. */
export const masked = (res: GqlHttpResponse, ...ids: string[]) => {
  let text = JSON.stringify({ status: res.status, body: res.body });
  for (const id of ids) text = text.split(id).join('<id>');
  return JSON.parse(text) as unknown;
};

/** Beta's secrets: none of these may ever appear in an answer to the attacker. */
export const SECRETS = /doc:beta|ent:orchid|ent:tulip|ent:violet|Orchid|Tulip|quorum|Lilac|Violet/i;

/** POSTs a one-file upload with `key`; returns its id. */
export async function upload(url: string, key: string, fileName: string, text: string): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([text], { type: 'text/markdown' }), fileName);
  const res = await fetch(`${url}/v1/uploads`, {
    method: 'POST',
    body: form,
    headers: { 'apollo-require-preflight': 'true', authorization: `Bearer ${key}` },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

/** A subscription's events until `until` says stop, or its error (as JSON), with `key` over graphql-ws. */
export function subscribeAs<T>(
  url: string,
  key: string,
  query: string,
  until: (value: T) => boolean,
): Promise<T[] | string> {
  const client = createClient({
    url: `${url.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    connectionParams: { authorization: `Bearer ${key}` },
  });
  const seen: T[] = [];
  return new Promise<T[] | string>((resolve) => {
    const stop = client.subscribe<T>(
      { query },
      {
        next: (result) => {
          if (result.errors) return resolve(JSON.stringify(result.errors));
          seen.push(result.data as T);
          if (until(result.data as T)) {
            stop();
            resolve(seen);
          }
        },
        error: (err) => resolve(JSON.stringify(err)),
        complete: () => resolve(seen),
      },
    );
  }).finally(() => client.dispose());
}

/** The attacked server and the attacker's ways to ask it, filled in by the suite's beforeAll. */
export interface AttackScene {
  t: TestServer;
  site: FixtureSite;
  folderRoot: string;
  keys: { admin: string; attacker: string; attackerAdmin: string; beta: string; betaAdmin: string };
  /** A GraphQL request with `key`. */
  as(
    key: string,
    query: string,
    variables?: Record<string, unknown>,
    headers?: Record<string, string>,
  ): Promise<GqlHttpResponse<Record<string, never>>>;
  /** A GraphQL request with the attacker's key, counted toward the running `countStatements` call. */
  attack(query: string, variables?: Record<string, unknown>): Promise<GqlHttpResponse<Record<string, never>>>;
  /**
   * The attacker's answer about beta's `id` equals its answer about a missing id (both masked), and costs the same
   * statements: no path does more work for an id that exists elsewhere, so its time cannot tell the two apart.
   */
  sameAsMissing(query: (id: string) => string, id: string): Promise<GqlHttpResponse<Record<string, never>>>;
}

/** Starts the attacked server for the suite's run (in its beforeAll) with beta's and alpha's data and every key. */
export function attackScene(run: ServerRun): AttackScene {
  const scene = {
    keys: { admin: '', attacker: '', attackerAdmin: '', beta: '', betaAdmin: '' },
    as: (key: string, query: string, variables?: Record<string, unknown>, headers?: Record<string, string>) =>
      gqlAs<Record<string, never>>(scene.t.server.url, key, query, variables, headers),
    attack: (query: string, variables?: Record<string, unknown>) =>
      scene.as(scene.keys.attacker, query, variables, countedCallHeaders()),
    sameAsMissing: async (query: (id: string) => string, id: string) => {
      const probe = await countStatements(() => scene.attack(query(id)));
      const missing = await countStatements(() => scene.attack(query('ghost:1')));
      // The answer repeats the id the attacker sent, and nothing else of beta.
      expect(JSON.stringify(masked(probe.value, id))).not.toMatch(SECRETS);
      expect(masked(probe.value, id)).toEqual(masked(missing.value, 'ghost:1'));
      expect({ statements: probe.statements, neo4j: probe.neo4j }).toEqual({
        statements: missing.statements,
        neo4j: missing.neo4j,
      });
      return probe.value;
    },
  } as AttackScene;
  beforeAll(async () => {
    scene.site = await startFixtureSite({
      '/lilac.html': {
        body: '<html><head><title>Lilac runbook</title></head><body><p>Lilac rotates at noon.</p></body></html>',
        type: 'text/html',
      },
    });
    scene.folderRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-attacker-'));
    fs.mkdirSync(path.join(scene.folderRoot, 'handbook'));
    fs.writeFileSync(path.join(scene.folderRoot, 'handbook', 'lilac.md'), '# Lilac\n\nLilac keys rotate weekly.');
    scene.t = await startRunServer(run, {
      CAIRN_IMPORT_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
      CAIRN_SOURCES_FOLDER_ROOT: scene.folderRoot,
      CAIRN_SOURCES_CACHE_DIR: path.join(scene.folderRoot, '.cache'),
    });
    scene.keys.admin = (await scene.t.services.apiKeys.create('ops', 'admin')).key;
    for (const id of ['alpha', 'beta']) await scene.t.services.spaces.create({ id });
    scene.keys.attacker = (await scene.t.services.apiKeys.create('attacker', 'editor', { spaces: ['alpha'] })).key;
    scene.keys.beta = (await scene.t.services.apiKeys.create('beta-team', 'editor', { spaces: ['beta'] })).key;
    scene.keys.attackerAdmin = (
      await scene.t.services.apiKeys.create('attacker-admin', 'admin', { spaces: ['alpha'] })
    ).key;
    scene.keys.betaAdmin = (await scene.t.services.apiKeys.create('beta-admin', 'admin', { spaces: ['beta'] })).key;
    const write = async (key: string, query: string) =>
      expect((await scene.as(key, query)).body.errors).toBeUndefined();
    await write(
      scene.keys.beta,
      'mutation { upsertGraph(input: { entities: [{ id: "ent:orchid", type: "Service", name: "Orchid Gateway" }, { id: "ent:tulip", type: "Service", name: "Tulip Store" }], relationships: [{ fromId: "ent:orchid", toId: "ent:tulip", type: "DEPENDS_ON" }] }) { entities { id } } }',
    );
    await write(
      scene.keys.beta,
      'mutation { createDocument(input: { id: "doc:beta", title: "Orchid quorum", content: "The Orchid Gateway needs a quorum of three Tulip Store replicas." }) { document { id } } }',
    );
    await write(
      scene.keys.attacker,
      'mutation { upsertGraph(input: { entities: [{ id: "ent:alpha", type: "Service", name: "Alpha Gateway" }] }) { entities { id } } }',
    );
    await write(
      scene.keys.attacker,
      'mutation { createDocument(input: { id: "doc:alpha", title: "Alpha notes", content: "The Alpha Gateway serves the Orchid Gateway of nobody." }) { document { id } } }',
    );
  });
  afterAll(async () => {
    await scene.t?.close();
    await scene.site?.close();
    if (scene.folderRoot) fs.rmSync(scene.folderRoot, { recursive: true, force: true });
  });
  return scene;
}
