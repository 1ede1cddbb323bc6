import type { ApiKeyRecord } from '../auth/ApiKeyRepository.js';
import type { Role } from '../auth/roles.js';

/** What `cairn keys` does, parsed from its command line. */
export type KeysAction =
  | { kind: 'create'; name: string; role: Role; force: boolean; spaces?: string[] }
  | { kind: 'list' }
  | { kind: 'revoke'; id: string };

/** A key as the CLI prints it with `--json` (dates as ISO strings). */
export interface KeyJson {
  id: string;
  name: string;
  role: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  /** The key's spaces; null: every space. */
  spaces: string[] | null;
}

/** A stored key in the CLI's JSON shape. */
export function keyJsonOf(k: ApiKeyRecord): KeyJson {
  return {
    id: k.id,
    name: k.name,
    role: k.role,
    createdAt: k.createdAt.toISOString(),
    lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
    revokedAt: k.revokedAt?.toISOString() ?? null,
    spaces: k.spaces,
  };
}

/** Aligned columns: id, name, role, created, last used, revoked, spaces. */
function table(keys: KeyJson[]): string {
  const rows = [
    ['ID', 'NAME', 'ROLE', 'CREATED', 'LAST USED', 'REVOKED', 'SPACES'],
    ...keys.map((k) => [
      k.id,
      k.name,
      k.role,
      k.createdAt,
      k.lastUsedAt ?? '-',
      k.revokedAt ?? '-',
      k.spaces === null ? '(all)' : k.spaces.join(','),
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** Prints a key just created: the key alone on stdout, so `KEY=$(cairn keys create …)` works; the advice on stderr. */
export function printKeyCreated(apiKey: KeyJson, key: string, json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify({ ...apiKey, key })}\n`);
    return;
  }
  process.stdout.write(`${key}\n`);
  process.stderr.write(
    `Created ${apiKey.role} key ${apiKey.id} ("${apiKey.name}"). It is shown only now: store it.\n` +
      'Send it as "Authorization: Bearer <key>". Authentication is on while any key exists.\n',
  );
}

/** Prints every key, as a table or JSON. */
export function printKeyList(keys: KeyJson[], json: boolean): void {
  process.stdout.write(
    json
      ? `${JSON.stringify(keys)}\n`
      : `${keys.length === 0 ? 'No API keys: authentication is off (loopback only).' : table(keys)}\n`,
  );
}

/** Prints a key just revoked. */
export function printKeyRevoked(k: KeyJson, json: boolean): void {
  process.stdout.write(
    json ? `${JSON.stringify(k)}\n` : `Revoked key ${k.id} ("${k.name}") at ${k.revokedAt ?? '-'}.\n`,
  );
}
