import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** The class an IP address falls in; only `global unicast` may be fetched. */
export type AddressCategory =
  | 'global unicast'
  | 'loopback'
  | 'private'
  | 'unique local'
  | 'link-local'
  | 'cloud metadata'
  | 'carrier-grade NAT'
  | 'multicast'
  | 'unspecified'
  | 'broadcast'
  | 'reserved'
  | 'invalid';

/** Whether an address may be fetched, and why not. */
export interface AddressVerdict {
  allowed: boolean;
  /** Canonical form of the address (dotted IPv4, RFC 5952 IPv6); the input when it does not parse. */
  address: string;
  category: AddressCategory;
  /** The ipaddr.js range name (or ours) the decision came from, e.g. `linkLocal`, `rfc6052`. */
  range: string;
  /** Human-readable explanation naming the class, e.g. "127.0.0.1 is a loopback address". */
  reason: string;
  /** The IPv4 address an IPv6 form embeds (mapped, compatible, NAT64, 6to4, Teredo), when one was checked. */
  embedded?: string;
}

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

// Instance metadata endpoints hand out cloud credentials, so they get their own, louder name.
const METADATA_V4 = ['169.254.169.254'];
const METADATA_V6 = ['fd00:ec2::254'];

const V4_CATEGORY: Record<string, AddressCategory> = {
  loopback: 'loopback',
  private: 'private',
  linkLocal: 'link-local',
  carrierGradeNat: 'carrier-grade NAT',
  multicast: 'multicast',
  unspecified: 'unspecified',
  broadcast: 'broadcast',
};

const V6_CATEGORY: Record<string, AddressCategory> = {
  loopback: 'loopback',
  uniqueLocal: 'unique local',
  linkLocal: 'link-local',
  deprecatedSiteLocal: 'private',
  multicast: 'multicast',
  unspecified: 'unspecified',
};

const ARTICLE: Record<AddressCategory, string> = {
  'global unicast': 'a global unicast address',
  loopback: 'a loopback address',
  private: 'a private address',
  'unique local': 'a private (unique local) address',
  'link-local': 'a link-local address',
  'cloud metadata': 'the cloud metadata address',
  'carrier-grade NAT': 'a carrier-grade NAT (100.64.0.0/10) address',
  multicast: 'a multicast address',
  unspecified: 'an unspecified address',
  broadcast: 'the broadcast address',
  reserved: 'a reserved address',
  invalid: 'not an IP address',
};

const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parse('2000::');
const LOCAL_NAT64 = ipaddr.IPv6.parse('64:ff9b:1::');

function verdict(address: string, category: AddressCategory, range: string, detail?: string): AddressVerdict {
  const what = ARTICLE[category];
  const extra = category === 'reserved' && range !== 'reserved' ? ` (${range})` : '';
  return {
    allowed: category === 'global unicast',
    address,
    category,
    range,
    reason: detail ?? `${address} is ${what}${extra}`,
  };
}

function classifyV4(ip: IPv4): AddressVerdict {
  const address = ip.toString();
  if (METADATA_V4.includes(address)) return verdict(address, 'cloud metadata', 'metadata');
  const range = ip.range();
  if (range === 'unicast') return verdict(address, 'global unicast', range);
  return verdict(address, V4_CATEGORY[range] ?? 'reserved', range);
}

function v4FromParts(high: number, low: number): IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/** Checks the IPv4 an IPv6 form carries; the outer form is blocked exactly when the inner one is. */
function viaEmbedded(address: string, range: string, form: string, inner: IPv4[], blockAnyway = false): AddressVerdict {
  for (const v4 of inner) {
    const v = classifyV4(v4);
    if (!v.allowed) {
      const reason = `${address} is ${form} of ${v.address}, ${ARTICLE[v.category]}`;
      return { ...verdict(address, v.category, range, reason), embedded: v.address };
    }
  }
  const embedded = inner[0]?.toString();
  if (blockAnyway)
    return { ...verdict(address, 'reserved', range, `${address} is ${form}, which is not globally routed`), embedded };
  return { ...verdict(address, 'global unicast', range), embedded };
}

function classifyV6(ip: IPv6): AddressVerdict {
  const address = ip.toRFC5952String();
  if (METADATA_V6.includes(address)) return verdict(address, 'cloud metadata', 'metadata');
  const p = ip.parts as [number, number, number, number, number, number, number, number];
  const range = ip.range();
  switch (range) {
    case 'ipv4Mapped':
      return viaEmbedded(address, range, 'the IPv4-mapped form', [ip.toIPv4Address()]);
    case 'rfc6145':
      return viaEmbedded(address, range, 'the IPv4-translated form', [v4FromParts(p[6], p[7])]);
    case 'rfc6052':
      // The local-use prefix 64:ff9b:1::/48 is site-specific translation, never a global destination.
      return viaEmbedded(address, range, 'a NAT64 form', [v4FromParts(p[6], p[7])], ip.match(LOCAL_NAT64, 48));
    case '6to4':
      return viaEmbedded(address, range, 'a 6to4 form', [v4FromParts(p[1], p[2])]);
    case 'teredo':
      // Teredo carries the server address in clear and the client address XOR-obfuscated.
      return viaEmbedded(address, range, 'a Teredo form', [
        v4FromParts(p[2], p[3]),
        v4FromParts(p[6] ^ 0xffff, p[7] ^ 0xffff),
      ]);
    case 'unicast':
      break;
    default:
      return verdict(address, V6_CATEGORY[range] ?? 'reserved', range);
  }
  if (p.slice(0, 6).every((x) => x === 0)) {
    // IPv4-compatible (::a.b.c.d) is deprecated and never global, but name the inner class when it is worse.
    return viaEmbedded(
      address,
      'ipv4Compatible',
      'the deprecated IPv4-compatible form',
      [v4FromParts(p[6], p[7])],
      true,
    );
  }
  // ipaddr.js calls everything it has no name for "unicast"; only 2000::/3 is actually allocated as global.
  if (!ip.match(GLOBAL_UNICAST_V6, 3)) return verdict(address, 'reserved', 'outside 2000::/3');
  return verdict(address, 'global unicast', range);
}

/** Classifies one IP address (as DNS returns it); anything that is not global unicast is blocked. */
export function classifyAddress(ip: string): AddressVerdict {
  const text = ip.trim();
  // Only strict literals: odd IPv4 spellings must already have been normalised by URL or the resolver.
  if (isIP(text) === 4) return classifyV4(ipaddr.IPv4.parse(text));
  if (isIP(text) === 6) {
    const parsed = ipaddr.IPv6.parse(text);
    parsed.zoneId = undefined;
    return classifyV6(parsed);
  }
  return verdict(ip, 'invalid', 'invalid');
}

/** A URL host name as the allow-list compares it: lower case, no IPv6 brackets, no trailing dot, canonical IP form. */
export function normalizeHost(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  if (h.endsWith('.')) h = h.slice(0, -1);
  const kind = isIP(h);
  if (kind === 4) return ipaddr.IPv4.parse(h).toString();
  if (kind === 6) return ipaddr.IPv6.parse(h).toRFC5952String();
  return h;
}

/** The IP literal a URL host name (`new URL().hostname`, IPv6 in brackets) stands for, or undefined for a DNS name. */
export function hostLiteral(hostname: string): { address: string; family: 4 | 6 } | undefined {
  const h = normalizeHost(hostname);
  const kind = isIP(h);
  return kind === 4 || kind === 6 ? { address: h, family: kind } : undefined;
}

/** Classifies a URL host name when it is an IP literal; undefined when it is a name that needs DNS. */
export function classifyHost(hostname: string): AddressVerdict | undefined {
  const literal = hostLiteral(hostname);
  return literal ? classifyAddress(literal.address) : undefined;
}
