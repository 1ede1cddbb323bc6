import type { SpaceRecord } from '../auth/SpaceService.js';
import { SpaceService } from '../auth/SpaceService.js';
import type { Queryable } from '../db/Db.js';
import { SpaceReads } from '../spaces/SpaceReads.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { migrate } from '../db/migrate.js';
import { openDb } from '../db/openDb.js';
import { UsageError } from './cliErrors.js';
import type { ServerClient } from './ServerClient.js';

/** What `cairn spaces` does. */
export type SpacesAction =
  | { kind: 'list' }
  | { kind: 'create'; id: string; name: string | undefined }
  | { kind: 'rename'; id: string; name: string }
  | { kind: 'delete'; id: string }
  | { kind: 'allow-read' | 'revoke-read'; space: string; reads: string };

/** A space's deletion as the CLI prints it with `--json`. */
interface DeletionJson {
  spaceId: string;
  status: string;
  progress: { done: number; total: number };
  error: string | null;
}

/** A space as the CLI prints it with `--json`. */
interface SpaceJson {
  id: string;
  name: string;
  createdAt: string;
  /** The spaces it reads besides itself. */
  reads: string[];
}

const SPACES_USAGE =
  'usage: cairn spaces [list] [--json] | spaces create <id> [--name <name>] | spaces rename <id> --name <name> | spaces delete <id> | spaces allow-read <space> <reads> | spaces revoke-read <space> <reads>';

/** Parses `spaces [list] | spaces create <id> | spaces rename <id> --name <name> | spaces allow-read <space> <reads>`. */
export function parseSpacesAction(args: string[], name: string | undefined): SpacesAction {
  const [action, ...rest] = args;
  if (action === undefined || action === 'list') return { kind: 'list' };
  if (action === 'allow-read' || action === 'revoke-read') {
    const [space, reads] = rest;
    if (rest.length !== 2 || space === undefined || reads === undefined)
      throw new UsageError(`spaces ${action} takes the reading space and the space it reads; ${SPACES_USAGE}`);
    return { kind: action, space, reads };
  }
  if (action !== 'create' && action !== 'rename' && action !== 'delete')
    throw new UsageError(`unknown spaces action "${action}"; ${SPACES_USAGE}`);
  if (rest.length !== 1) throw new UsageError(`spaces ${action} takes exactly one space id; ${SPACES_USAGE}`);
  const id = rest[0] ?? '';
  if (action === 'create') return { kind: 'create', id, name };
  if (action === 'delete') return { kind: 'delete', id };
  if (name === undefined) throw new UsageError(`spaces rename needs the new name (--name); ${SPACES_USAGE}`);
  return { kind: 'rename', id, name };
}

function print(spaces: SpaceJson[], json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(spaces)}\n`);
    return;
  }
  const width = Math.max(2, ...spaces.map((s) => s.id.length));
  const nameWidth = Math.max(4, ...spaces.map((s) => s.name.length));
  const line = (id: string, name: string, reads: string) => `${id.padEnd(width)}  ${name.padEnd(nameWidth)}  ${reads}`;
  const lines = [line('ID', 'NAME', 'READS'), ...spaces.map((s) => line(s.id, s.name, s.reads.join(', ')))];
  process.stdout.write(`${lines.map((l) => l.trimEnd()).join('\n')}\n`);
}

const toJson = (s: SpaceRecord, reads: string[] = []): SpaceJson => ({
  id: s.id,
  name: s.name,
  createdAt: s.createdAt.toISOString(),
  reads,
});

/** The reading space after `allow-read` or `revoke-read`, straight in the database. */
async function changeReads(db: Queryable, action: Extract<SpacesAction, { space: string }>): Promise<SpaceJson[]> {
  const spaces = new SpaceService(db);
  const reads = new SpaceReads(db, spaces);
  const input = { space: action.space, reads: action.reads };
  await (action.kind === 'allow-read' ? reads.allow(input) : reads.revoke(input));
  const space = (await spaces.list()).find((s) => s.id === action.space);
  return space ? [toJson(space, await reads.readsOf(space.id))] : [];
}

/** Every space with what it reads, straight in the database. */
async function listHere(db: Queryable): Promise<SpaceJson[]> {
  const spaces = new SpaceService(db);
  const reads = await new SpaceReads(db, spaces).all();
  return (await spaces.list()).map((s) => toJson(s, reads.get(s.id)));
}

/** Prints how a deletion ended; 1 when it failed. */
function printDeletion(deletion: DeletionJson, json: boolean): number {
  if (json) process.stdout.write(`${JSON.stringify(deletion)}\n`);
  else if (deletion.status === 'SUCCEEDED')
    process.stdout.write(`deleted space ${deletion.spaceId} (${deletion.progress.done} removed)\n`);
  else process.stdout.write(`deleting space ${deletion.spaceId}: ${deletion.status} ${deletion.error ?? ''}\n`);
  return deletion.status === 'FAILED' ? 1 : 0;
}

/** Progress on stderr, as the other long commands report it. */
const progressLine = (d: DeletionJson) =>
  process.stderr.write(`deleting space ${d.spaceId}: ${d.progress.done}/${d.progress.total}\n`);

/** `cairn spaces delete <id>` straight on the stores: runs the deletion here to its end. */
async function deleteHere(config: Config, logger: Logger, id: string, json: boolean): Promise<number> {
  const { createServices } = await import('../services.js');
  const services = await createServices(config, logger, { importQueue: false });
  try {
    progressLine(await services.spaceDeletions.request(id));
    const done = await services.spaceDeletions.waitFor(id);
    if (!done) throw new Error(`the deletion of space ${id} vanished`);
    return printDeletion(done, json);
  } finally {
    await services.close();
  }
}

/** `cairn spaces …` straight in the database. */
export async function spacesCommand(
  config: Config,
  action: SpacesAction,
  json: boolean,
  logger: Logger,
): Promise<number> {
  if (action.kind === 'delete') return deleteHere(config, logger, action.id, json);
  const db = await openDb(config);
  try {
    await migrate(db);
    const spaces = new SpaceService(db);
    if (action.kind === 'create') print([toJson(await spaces.create({ id: action.id, name: action.name }))], json);
    else if (action.kind === 'rename')
      print(
        [toJson(await spaces.rename(action.id, action.name), await new SpaceReads(db, spaces).readsOf(action.id))],
        json,
      );
    else if (action.kind === 'list') print(await listHere(db), json);
    else print(await changeReads(db, action), json);
    return 0;
  } finally {
    await db.close();
  }
}

/** `cairn spaces …` through the server that holds the embedded data folder (an admin key once auth is on). */
export async function remoteSpaces(client: ServerClient, action: SpacesAction, json: boolean): Promise<number> {
  if (action.kind === 'create') {
    const { createSpace } = await client.graphql<{ createSpace: SpaceJson }>(
      `mutation($input: CreateSpaceInput!) { createSpace(input: $input) { ${SPACE_FIELDS} } }`,
      { input: { id: action.id, name: action.name } },
    );
    print([createSpace], json);
  } else if (action.kind === 'rename') {
    const { renameSpace } = await client.graphql<{ renameSpace: SpaceJson }>(
      `mutation($id: ID!, $name: String!) { renameSpace(id: $id, name: $name) { ${SPACE_FIELDS} } }`,
      { id: action.id, name: action.name },
    );
    print([renameSpace], json);
  } else if (action.kind === 'delete') {
    return remoteDelete(client, action.id, json);
  } else if (action.kind === 'list') {
    const { spaces } = await client.graphql<{ spaces: SpaceJson[] }>(`{ spaces { ${SPACE_FIELDS} } }`);
    print(spaces, json);
  } else {
    const field = action.kind === 'allow-read' ? 'allowSpaceRead' : 'revokeSpaceRead';
    const answer = await client.graphql<Record<string, SpaceJson>>(
      `mutation($input: SpaceReadInput!) { ${field}(input: $input) { ${SPACE_FIELDS} } }`,
      { input: { space: action.space, reads: action.reads } },
    );
    print(answer[field] ? [answer[field]] : [], json);
  }
  return 0;
}

const SPACE_FIELDS = 'id name createdAt reads';

const DELETION_FIELDS = 'spaceId status progress { done total } error';

/** Asks the server to delete a space, then follows the deletion (its progress on stderr) until it ends. */
async function remoteDelete(client: ServerClient, id: string, json: boolean): Promise<number> {
  let { deleteSpace: deletion } = await client.graphql<{ deleteSpace: DeletionJson }>(
    `mutation($id: ID!) { deleteSpace(id: $id) { ${DELETION_FIELDS} } }`,
    { id },
  );
  while (deletion.status === 'RUNNING') {
    progressLine(deletion);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const { spaceDeletion } = await client.graphql<{ spaceDeletion: DeletionJson }>(
      `query($id: ID!) { spaceDeletion(id: $id) { ${DELETION_FIELDS} } }`,
      { id },
    );
    deletion = spaceDeletion;
  }
  return printDeletion(deletion, json);
}
