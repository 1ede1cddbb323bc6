import ipaddr from 'ipaddr.js';

/** True for `localhost` and loopback IP literals (127.0.0.0/8, ::1, IPv4-mapped loopback). */
export function isLoopbackHost(host: string | undefined): boolean {
  if (!host) return false;
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost') return true;
  if (!ipaddr.isValid(h)) return false;
  return ipaddr.process(h).range() === 'loopback';
}

// A Host header: a bracketed IPv6 literal or a name without ':', then an optional port of 1-5 digits; nothing else.
const HOST_HEADER = /^(\[[^\]]*\]|[^:[\]]*)(?::\d{1,5})?$/;

/** The host part of a well-formed Host header (`127.0.0.1:4000`, `[::1]:4000`, `localhost`); undefined otherwise. */
export function hostOfHeader(header: string | undefined): string | undefined {
  const match = header === undefined ? null : HOST_HEADER.exec(header);
  return match?.[1] || undefined;
}

// Exactly the three docs/security.md names: no local client needs other spellings of loopback (127.0.0.2, 2130706433, 0x7f.1).
const LOCAL_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

/** True when a Host header is exactly `localhost` (any case), `127.0.0.1` or `[::1]`, with an optional `:port`. */
export function isLocalHostHeader(header: string | undefined): boolean {
  const host = hostOfHeader(header);
  return host !== undefined && LOCAL_HOSTS.includes(host.toLowerCase());
}

// Headers that reverse proxies and CDNs add to a request they relay; any `X-Forwarded-*` counts too.
const PROXY_HEADERS: readonly string[] = [
  'forwarded',
  'via',
  'x-real-ip',
  'x-client-ip',
  'true-client-ip',
  'cf-connecting-ip',
  'fastly-client-ip',
  'x-cluster-client-ip',
  'x-original-forwarded-for',
];

/** True when a request carries any header a proxy or CDN adds (present at all, even empty): it was relayed. */
export function relayedByProxy(headers: Readonly<Record<string, unknown>>): boolean {
  return Object.keys(headers).some((name) => {
    const h = name.toLowerCase();
    return h.startsWith('x-forwarded') || PROXY_HEADERS.includes(h);
  });
}
