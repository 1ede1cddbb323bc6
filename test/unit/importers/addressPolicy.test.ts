import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  classifyAddress,
  classifyHost,
  hostLiteral,
  normalizeHost,
  type AddressCategory,
} from '../../../importers/http/addressPolicy.js';

/** The host name WHATWG URL parsing makes of a host, as the fetcher sees it. */
const urlHost = (host: string): string => new URL(`http://${host}/`).hostname;

const blockedRows: [input: string, category: AddressCategory, reasonPart: string][] = [
  ['127.0.0.1', 'loopback', 'loopback'],
  ['127.255.3.4', 'loopback', 'loopback'],
  ['10.1.2.3', 'private', 'private'],
  ['172.16.0.1', 'private', 'private'],
  ['172.31.255.254', 'private', 'private'],
  ['192.168.1.1', 'private', 'private'],
  ['169.254.10.20', 'link-local', 'link-local'],
  ['169.254.169.254', 'cloud metadata', 'cloud metadata'],
  ['100.64.0.1', 'carrier-grade NAT', 'carrier-grade NAT'],
  ['100.127.255.254', 'carrier-grade NAT', 'carrier-grade NAT'],
  ['224.0.0.1', 'multicast', 'multicast'],
  ['239.255.255.250', 'multicast', 'multicast'],
  ['0.0.0.0', 'unspecified', 'unspecified'],
  ['0.1.2.3', 'unspecified', 'unspecified'],
  ['255.255.255.255', 'broadcast', 'broadcast'],
  ['192.0.2.10', 'reserved', 'reserved'], // documentation (TEST-NET-1)
  ['198.51.100.7', 'reserved', 'reserved'], // documentation (TEST-NET-2)
  ['198.18.0.1', 'reserved', 'reserved'], // benchmarking
  ['240.0.0.1', 'reserved', 'reserved'],
  ['::1', 'loopback', 'loopback'],
  ['::', 'unspecified', 'unspecified'],
  ['fe80::1', 'link-local', 'link-local'],
  ['fe80::1%eth0', 'link-local', 'link-local'],
  ['fc00::1', 'unique local', 'private'],
  ['fd00::1', 'unique local', 'private'],
  ['fd12:3456::abcd', 'unique local', 'private'],
  ['fd00:ec2::254', 'cloud metadata', 'cloud metadata'],
  ['ff02::1', 'multicast', 'multicast'],
  ['2001:db8::1', 'reserved', 'reserved'], // documentation
  ['2001:2::1', 'reserved', 'benchmarking'],
  ['4000::1', 'reserved', 'outside 2000::/3'],
  ['::ffff:127.0.0.1', 'loopback', 'IPv4-mapped'],
  ['::ffff:7f00:1', 'loopback', 'IPv4-mapped'],
  ['::ffff:10.0.0.1', 'private', 'IPv4-mapped'],
  ['::ffff:169.254.169.254', 'cloud metadata', 'cloud metadata'],
  ['::ffff:0:7f00:1', 'loopback', 'IPv4-translated'],
  ['::7f00:1', 'loopback', 'IPv4-compatible'],
  ['::808:808', 'reserved', 'IPv4-compatible'], // deprecated form, blocked even around a public IPv4
  ['64:ff9b::7f00:1', 'loopback', 'NAT64'],
  ['64:ff9b::a9fe:a9fe', 'cloud metadata', 'cloud metadata'],
  ['64:ff9b::10.0.0.1', 'private', 'NAT64'],
  ['64:ff9b:1::808:808', 'reserved', 'NAT64'], // local-use NAT64 prefix is never global
  ['2002:7f00:1::', 'loopback', '6to4'],
  ['2002:a9fe:a9fe::1', 'cloud metadata', '6to4'],
  ['2001:0:7f00:1::', 'loopback', 'Teredo'], // Teredo server 127.0.0.1
  ['2001:0:808:808::80ff:fefe', 'loopback', 'Teredo'], // obfuscated client 127.0.1.1
];

const allowedRows: string[] = [
  '93.184.215.14',
  '1.1.1.1',
  '8.8.8.8',
  '2606:4700::1111',
  '2a00:1450:4001:80b::200e',
  '64:ff9b::808:808',
  '::ffff:8.8.8.8',
  '2002:808:808::1',
  '2001:0:808:808::f7f7:f7f7',
];

describe('classifyAddress', () => {
  it.each(blockedRows)('blocks %s as %s', (input, category, reasonPart) => {
    const v = classifyAddress(input);
    expect(v.allowed).toBe(false);
    expect(v.category).toBe(category);
    expect(v.reason).toContain(reasonPart);
  });

  it.each(allowedRows)('allows the global unicast address %s', (input) => {
    const v = classifyAddress(input);
    expect(v).toMatchObject({ allowed: true, category: 'global unicast' });
  });

  it('names the embedded IPv4 of IPv6 forms', () => {
    expect(classifyAddress('::ffff:7f00:1').embedded).toBe('127.0.0.1');
    expect(classifyAddress('64:ff9b::a9fe:a9fe').embedded).toBe('169.254.169.254');
    expect(classifyAddress('2002:7f00:1::').embedded).toBe('127.0.0.1');
    expect(classifyAddress('64:ff9b::808:808').embedded).toBe('8.8.8.8');
  });

  it.each(['example.com', '', '127.1', '0x7f.0.0.1', '1.2.3.4.5', '::g'])(
    'blocks %j, which is not a strict IP literal',
    (input) => {
      expect(classifyAddress(input)).toMatchObject({ allowed: false, category: 'invalid' });
    },
  );
});

describe('classifyHost (URL host names)', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.1', 'loopback'],
    ['0x7f.1', 'loopback'],
    ['2130706433', 'loopback'],
    ['0177.0.0.1', 'loopback'],
    ['127.0.0.1.', 'loopback'],
    ['0xa9.0xfe.0xa9.0xfe', 'cloud metadata'],
    ['[::1]', 'loopback'],
    ['[0:0:0:0:0:0:0:1]', 'loopback'],
    ['[::ffff:127.0.0.1]', 'loopback'],
    ['[::ffff:169.254.169.254]', 'cloud metadata'],
    ['[64:ff9b::127.0.0.1]', 'loopback'],
    ['[fd00:ec2::254]', 'cloud metadata'],
  ] as const)('blocks http://%s/ as %s', (host, category) => {
    const v = classifyHost(urlHost(host));
    expect(v).toMatchObject({ allowed: false, category });
  });

  it('leaves names to DNS and allows public literals', () => {
    expect(classifyHost(urlHost('Example.COM'))).toBeUndefined();
    expect(classifyHost(urlHost('localhost'))).toBeUndefined();
    expect(classifyHost(urlHost('93.184.215.14'))).toMatchObject({ allowed: true });
    expect(classifyHost(urlHost('[2606:4700::1111]'))).toMatchObject({ allowed: true });
  });

  it('normalises hosts for the allow-list', () => {
    expect(normalizeHost('Docs.Internal.Test.')).toBe('docs.internal.test');
    expect(normalizeHost('[::1]')).toBe('::1');
    expect(normalizeHost('0:0:0:0:0:0:0:1')).toBe('::1');
    expect(hostLiteral('[::ffff:7f00:1]')).toEqual({ address: '::ffff:7f00:1', family: 6 });
    expect(hostLiteral('example.com')).toBeUndefined();
  });
});

// --- properties ---

const BLOCKED_V4: [base: number, prefix: number][] = [
  [0x00000000, 8], // 0.0.0.0/8
  [0x0a000000, 8], // 10/8
  [0x64400000, 10], // 100.64/10
  [0x7f000000, 8], // 127/8
  [0xa9fe0000, 16], // 169.254/16
  [0xac100000, 12], // 172.16/12
  [0xc0a80000, 16], // 192.168/16
  [0xc0000200, 24], // 192.0.2/24
  [0xc6120000, 15], // 198.18/15
  [0xe0000000, 4], // 224/4
  [0xf0000000, 4], // 240/4 (includes broadcast)
];

// First octets with no special-purpose block anywhere inside them (so every address in them is public).
const PUBLIC_FIRST_OCTETS = [
  ...range(1, 9),
  ...range(11, 99),
  ...range(101, 126),
  ...range(128, 168),
  ...range(170, 171),
  ...range(173, 191),
  ...range(193, 197),
  ...range(199, 202),
  ...range(204, 223),
];

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

const dotted = (n: number): string => [n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff].join('.');
const hex32 = (n: number): string => `${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;

const blockedV4 = fc
  .tuple(fc.constantFrom(...BLOCKED_V4), fc.integer({ min: 0, max: 2 ** 32 - 1 }))
  .map(([[base, prefix], offset]) => (base + (offset % 2 ** (32 - prefix))) >>> 0);
const publicV4 = fc
  .tuple(fc.constantFrom(...PUBLIC_FIRST_OCTETS), fc.nat({ max: 0xffffff }))
  .map(([first, rest]) => ((first << 24) | rest) >>> 0);

/** Every IPv6 form the policy unwraps to an IPv4. */
const forms = (n: number): string[] => [
  dotted(n),
  `::ffff:${dotted(n)}`,
  `::ffff:${hex32(n)}`,
  `64:ff9b::${hex32(n)}`,
  `64:ff9b::${dotted(n)}`,
  `2002:${hex32(n)}::1`,
];

describe('address policy properties', () => {
  it('keeps a blocked IPv4 blocked in its mapped, NAT64 and 6to4 forms', () => {
    fc.assert(
      fc.property(blockedV4, (n) => {
        for (const form of forms(n)) expect(classifyAddress(form).allowed).toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  it('allows public IPv4 addresses and their mapped, NAT64 and 6to4 forms', () => {
    fc.assert(
      fc.property(publicV4, (n) => {
        for (const form of forms(n))
          expect(classifyAddress(form)).toMatchObject({ allowed: true, category: 'global unicast' });
      }),
      { numRuns: 500 },
    );
  });

  it('allows random global unicast IPv6 outside special-purpose blocks', () => {
    // 2400::/7 and 2800::/6 hold no special-purpose block (those sit in 2001::/16, 2002::/16, 2620:4f:8000::/48, 3fff::/20).
    const first = fc.oneof(fc.integer({ min: 0x2400, max: 0x25ff }), fc.integer({ min: 0x2800, max: 0x2bff }));
    const ipv6 = fc
      .tuple(first, fc.array(fc.nat({ max: 0xffff }), { minLength: 7, maxLength: 7 }))
      .map(([a, rest]) => [a, ...rest].map((x) => x.toString(16)).join(':'));
    fc.assert(
      fc.property(ipv6, (ip) => {
        expect(classifyAddress(ip).allowed).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('blocks random addresses in blocked IPv6 blocks', () => {
    const blocks: [prefix: number[], bits: number][] = [
      [[0xfc00], 7],
      [[0xfe80], 10],
      [[0xff00], 8],
      [[0x2001, 0x0db8], 32],
    ];
    const ipv6 = fc
      .tuple(fc.constantFrom(...blocks), fc.array(fc.nat({ max: 0xffff }), { minLength: 8, maxLength: 8 }))
      .map(([[prefix, bits], random]) => {
        const parts = random.map((r, i) => {
          const fixedBits = Math.max(0, Math.min(16, bits - i * 16));
          const mask = fixedBits === 0 ? 0 : (0xffff << (16 - fixedBits)) & 0xffff;
          return ((prefix[i] ?? 0) & mask) | (r & ~mask & 0xffff);
        });
        return parts.map((x) => x.toString(16)).join(':');
      });
    fc.assert(
      fc.property(ipv6, (ip) => {
        expect(classifyAddress(ip).allowed).toBe(false);
      }),
      { numRuns: 500 },
    );
  });
});
