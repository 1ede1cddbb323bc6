import { ApiKeyService } from '../auth/ApiKeyService.js';
import { parseRole } from '../auth/roles.js';
import type { Config } from '../config.js';
import { migrate } from '../db/migrate.js';
import { openDb } from '../db/openDb.js';
import { badInput } from '../errors.js';
import { UsageError } from './cliErrors.js';
import { keyJsonOf, printKeyCreated, printKeyList, printKeyRevoked, type KeysAction } from './keysOutput.js';

/** Options of `cairn keys`. */
export interface KeysCommandOptions {
  json: boolean;
  role: string | undefined;
  name: string | undefined;
  /** Create a first key that is not an admin key all the same. */
  force: boolean;
  /** `--space`, repeatable: the spaces a new key is bound to. */
  spaces: string[];
}

const KEYS_USAGE =
  'usage: cairn keys create --role admin|editor|agent|reader --name <name> [--space S]… [--force] | keys list [--json] | keys revoke <id>';

/** Parses `keys create|list|revoke …` into what to do. */
export function parseKeysAction(args: string[], opts: KeysCommandOptions): KeysAction {
  const [action, ...rest] = args;
  if (action === 'list') return { kind: 'list' };
  if (action === 'revoke') {
    if (rest.length !== 1) throw new UsageError('keys revoke takes exactly one key id (see `cairn keys list`)');
    return { kind: 'revoke', id: rest[0] ?? '' };
  }
  if (action !== 'create') throw new UsageError(action ? `unknown keys action "${action}"; ${KEYS_USAGE}` : KEYS_USAGE);
  if (!opts.name?.trim()) throw new UsageError(`keys create needs --name <name>; ${KEYS_USAGE}`);
  const spaces = opts.spaces.length > 0 ? { spaces: opts.spaces } : {};
  return { kind: 'create', name: opts.name, role: parseRole(opts.role, '--role'), force: opts.force, ...spaces };
}

/**
 * The refusal of a first key that is not an admin key: it turns authentication on, and without an admin key nobody
 * could create or revoke keys through the API any more (GraphQL's createApiKey refuses it the same way).
 */
function firstKeyNotAdmin(role: string): Error {
  return badInput(
    '--role',
    `no API key exists yet, and the first key must be an admin key: creating it turns authentication on, and only an admin key can manage keys afterwards. ` +
      `Create the admin key first (keys create --role admin --name <name>), then this ${role} key; or pass --force to create it anyway.`,
  );
}

/**
 * `cairn keys create|list|revoke`, straight in the database (no embedder needed). A server on Postgres sees a change
 * within seconds; a server holding the embedded data folder is asked through its API instead (see remoteKeys).
 */
export async function keysCommand(config: Config, action: KeysAction, json: boolean): Promise<number> {
  const db = await openDb(config);
  try {
    await migrate(db);
    const keys = new ApiKeyService(db);
    if (action.kind === 'create') {
      if (action.role !== 'admin' && !action.force && !(await keys.anyActive())) throw firstKeyNotAdmin(action.role);
      const created = await keys.create(action.name, action.role, { spaces: action.spaces ?? null });
      printKeyCreated(keyJsonOf(created.apiKey), created.key, json);
    } else if (action.kind === 'list') {
      printKeyList((await keys.list()).map(keyJsonOf), json);
    } else {
      printKeyRevoked(keyJsonOf(await keys.revoke(action.id)), json);
    }
    return 0;
  } finally {
    await db.close();
  }
}
