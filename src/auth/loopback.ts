import ipaddr from 'ipaddr.js';

/** True for `localhost` and loopback IP literals (127.0.0.0/8, ::1, IPv4-mapped loopback). */
export function isLoopbackHost(host: string | undefined): boolean {
  if (!host) return false;
  const h = host.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost') return true;
  if (!ipaddr.isValid(h)) return false;
  return ipaddr.process(h).range() === 'loopback';
}

/** The host part of a Host header (`127.0.0.1:4000`, `[::1]:4000`, `localhost`). */
export function hostOfHeader(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const v = header.trim();
  if (v.startsWith('[')) return v.slice(0, v.indexOf(']') + 1);
  const colon = v.indexOf(':');
  return colon === -1 ? v : v.slice(0, colon);
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
