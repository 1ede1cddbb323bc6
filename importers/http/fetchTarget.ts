import { promises as dns } from 'node:dns';
import { AppError, ErrorCode } from '../../src/errors.js';
import { classifyAddress, hostLiteral, normalizeHost } from './addressPolicy.js';
import { redactUrl } from './redactUrl.js';
import type { ResolvedAddress } from './SafeFetcher.js';

/** Resolves a host name to all its addresses. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** A host whose addresses were resolved once and vetted; connections may only go to these. */
export interface VettedTarget {
  /** Host name as given to the HTTP client (no IPv6 brackets). */
  hostname: string;
  addresses: ResolvedAddress[];
  /** True when the host is allow-listed and its addresses were not checked. */
  allowListed: boolean;
}

/** Resolves through the system resolver (getaddrinfo), keeping the resolver's order. */
export const systemResolver: Resolver = async (hostname) => {
  const found = await dns.lookup(hostname, { all: true, verbatim: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/** Parses a URL and rejects what may never be fetched: other schemes and embedded credentials. */
export function checkUrl(raw: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    const shown = redactUrl(raw);
    throw new AppError(ErrorCode.IMPORT_FETCH_FAILED, `invalid URL: ${shown}`, { url: shown, reason: 'invalid URL' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw blocked(url, `the ${url.protocol.replace(/:$/, '')} scheme is not allowed; only http and https are`);
  }
  if (url.username !== '' || url.password !== '')
    throw blocked(url, 'URLs with a user name or password are not allowed; remove them from the URL');
  return url;
}

/** Allow-listed hosts: each with the ports it may be fetched on, or `all` for a bare host. */
export type AllowList = Map<string, Set<number> | 'all'>;

/** Splits an allow-list entry into host and port: `docs.internal:8443`, `[::1]:8080`; a bare host or IPv6 has none. */
export function parseAllowEntry(entry: string): { host: string; port: number | undefined } {
  const text = entry.trim();
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  if (bracketed)
    return { host: bracketed[1] ?? '', port: bracketed[2] === undefined ? undefined : Number(bracketed[2]) };
  const hostPort = /^([^:]+):(\d+)$/.exec(text);
  if (hostPort) return { host: hostPort[1] ?? '', port: Number(hostPort[2]) };
  return { host: text, port: undefined };
}

/** Normalises the allow-list the same way URL host names are normalised before comparing. */
export function normalizeAllowList(entries: readonly string[]): AllowList {
  const list: AllowList = new Map();
  for (const entry of entries) {
    const { host: raw, port } = parseAllowEntry(entry);
    const host = normalizeHost(raw);
    if (host === '') continue;
    const ports = list.get(host);
    if (port === undefined || ports === 'all') list.set(host, 'all');
    else list.set(host, new Set([...(ports ?? []), port]));
  }
  return list;
}

/** The port a URL connects to: its own, else its scheme's. */
function effectivePort(url: URL): number {
  if (url.port) return Number(url.port);
  return url.protocol === 'https:' ? 443 : url.protocol === 'ssh:' ? 22 : 80;
}

/** Whether the URL's host, on the URL's port, is allow-listed. */
function isAllowListed(url: URL, allowList: AllowList): boolean {
  const ports = allowList.get(normalizeHost(url.hostname));
  return ports === 'all' || (ports !== undefined && ports.has(effectivePort(url)));
}

/** Resolves the URL's host once and checks every address, unless the host (on this port) is allow-listed. */
export async function vetTarget(url: URL, allowList: AllowList, resolve: Resolver): Promise<VettedTarget> {
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const allowListed = isAllowListed(url, allowList);
  const literal = hostLiteral(url.hostname);
  let addresses: ResolvedAddress[];
  if (literal) {
    addresses = [literal];
  } else {
    addresses = await resolveName(url, hostname, resolve);
  }
  if (!allowListed) {
    for (const { address } of addresses) {
      const v = classifyAddress(address);
      if (!v.allowed) throw blocked(url, v.reason, { address: v.address, category: v.category }, allowHint(hostname));
    }
  }
  return { hostname, addresses, allowListed };
}

async function resolveName(url: URL, hostname: string, resolve: Resolver): Promise<ResolvedAddress[]> {
  let found: ResolvedAddress[];
  try {
    found = await resolve(hostname);
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new AppError(
      ErrorCode.IMPORT_FETCH_FAILED,
      `could not resolve ${hostname}: ${reason}`,
      { url: url.href, host: hostname, reason },
      { cause: err },
    );
  }
  if (found.length === 0) {
    throw new AppError(ErrorCode.IMPORT_FETCH_FAILED, `could not resolve ${hostname}: no addresses`, {
      url: url.href,
      host: hostname,
      reason: 'no addresses',
    });
  }
  return found;
}

/** How an operator lets imports reach a host on purpose (a docs server on the intranet, a local test site). */
function allowHint(host: string): string {
  return `; if you trust it, add ${host} to CAIRN_IMPORT_ALLOW_PRIVATE_HOSTS (comma-separated host names and addresses) and restart Cairn`;
}

function blocked(url: URL, reason: string, extra: Record<string, unknown> = {}, hint = ''): AppError {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // A redirect may point at a URL with credentials; they are not repeated.
  const shown = redactUrl(url);
  return new AppError(ErrorCode.IMPORT_FETCH_BLOCKED, `fetch of ${shown} blocked: ${reason}${hint}`, {
    url: shown,
    host,
    ...extra,
    reason,
  });
}
