import { ApiKeyService } from '../auth/ApiKeyService.js';
import type { ApiKeyRecord } from '../auth/apiKeyRepository.js';
import { parseRole } from '../auth/roles.js';
import type { Config } from '../config.js';
import { migrate } from '../db/migrate.js';
import { openDb } from '../db/openDb.js';
import { UsageError } from './cliErrors.js';

/** Options of `cairn keys`. */
export interface KeysCommandOptions {
  json: boolean;
  role: string | undefined;
  name: string | undefined;
}

const KEYS_USAGE = 'usage: cairn keys create --role admin|editor|agent|reader --name <name> | keys list [--json] | keys revoke <id>';

const iso = (d: Date | null): string => (d ? d.toISOString() : '-');

/** A key as JSON (the CLI's `--json` and `create` output). */
function toJson(k: ApiKeyRecord) {
  return { id: k.id, name: k.name, role: k.role, createdAt: k.createdAt.toISOString(), lastUsedAt: k.lastUsedAt?.toISOString() ?? null, revokedAt: k.revokedAt?.toISOString() ?? null };
}

/** Aligned columns: id, name, role, created, last used, revoked. */
function table(keys: ApiKeyRecord[]): string {
  const rows = [['ID', 'NAME', 'ROLE', 'CREATED', 'LAST USED', 'REVOKED'], ...keys.map((k) => [k.id, k.name, k.role, iso(k.createdAt), iso(k.lastUsedAt), iso(k.revokedAt)])];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd()).join('\n');
}

/**
 * `cairn keys create|list|revoke`: manages API keys straight in the database (no embedder needed). A server on
 * Postgres sees a change within seconds; on the embedded store the data folder is locked while the server runs, so
 * this refuses to start there (use the createApiKey/revokeApiKey mutations, or stop the server first).
 */
export async function keysCommand(config: Config, args: string[], opts: KeysCommandOptions): Promise<number> {
  const [action, ...rest] = args;
  if (action !== 'create' && action !== 'list' && action !== 'revoke') throw new UsageError(action ? `unknown keys action "${action}"; ${KEYS_USAGE}` : KEYS_USAGE);
  if (action === 'create' && !opts.name?.trim()) throw new UsageError(`keys create needs --name <name>; ${KEYS_USAGE}`);
  if (action === 'revoke' && rest.length !== 1) throw new UsageError('keys revoke takes exactly one key id (see `cairn keys list`)');
  const role = action === 'create' ? parseRole(opts.role, '--role') : undefined;
  const db = await openDb(config);
  try {
    await migrate(db);
    const keys = new ApiKeyService(db);
    if (action === 'create') {
      const created = await keys.create(opts.name ?? '', role ?? 'reader');
      if (opts.json) {
        process.stdout.write(`${JSON.stringify({ ...toJson(created.apiKey), key: created.key })}\n`);
      } else {
        // The key alone on stdout, so `KEY=$(cairn keys create …)` works; the advice goes to stderr.
        process.stdout.write(`${created.key}\n`);
        process.stderr.write(`Created ${created.apiKey.role} key ${created.apiKey.id} ("${created.apiKey.name}"). It is shown only now: store it.\n` + 'Send it as "Authorization: Bearer <key>". Authentication is on while any key exists.\n');
      }
    } else if (action === 'list') {
      const all = await keys.list();
      process.stdout.write(opts.json ? `${JSON.stringify(all.map(toJson))}\n` : `${all.length === 0 ? 'No API keys: authentication is off (loopback only).' : table(all)}\n`);
    } else {
      const revoked = await keys.revoke(rest[0] ?? '');
      process.stdout.write(opts.json ? `${JSON.stringify(toJson(revoked))}\n` : `Revoked key ${revoked.id} ("${revoked.name}") at ${iso(revoked.revokedAt)}.\n`);
    }
    return 0;
  } finally {
    await db.close();
  }
}
