import type { DocumentInput } from '../src/documents/types.js';
import { prng } from './graphData.js';

/** A generated entity: what `upsertGraph` takes. */
export interface GeneratedEntity {
  id: string;
  type: string;
  name: string;
  aliases: string[];
}

const FIRST = (
  'Ada Alan Grace Linus Barbara Edsger Margaret Ken Dennis Frances Radia Tim Vint Hedy Katherine Claude John Anita ' +
  'Donald Leslie Niklaus Bjarne Guido Yukihiro Sophie Jean Mary Annie Emmy Srinivasa Chien-Shiung Rosalind Dorothy ' +
  'Lise Mileva Wangari Tu Jocelyn Chandrasekhar'
).split(' ');
const LAST = (
  'Lovelace Turing Hopper Torvalds Liskov Dijkstra Hamilton Thompson Ritchie Allen Perlman Berners-Lee Cerf Lamarr ' +
  'Johnson Shannon McCarthy Borg Knuth Lamport Wirth Stroustrup Rossum Matsumoto Wilson Sammet Jackson Easley Noether ' +
  'Ramanujan Wu Franklin Hodgkin Meitner Marić Maathai Youyou Bell Burnell Raman Okafor Nakamura Lindqvist Moreau ' +
  'Kowalski Haddad Fernández Müller Novak Petrov Rossi Tanaka Olsen Dubois Costa Schmidt Ivanova Kaur'
).split(' ');
const ADJECTIVES = (
  'Silver Northern Quiet Rapid Crimson Hidden Golden Open Ancient Blue Iron Bright Distant Hollow Royal Green ' +
  'Western Lunar Solar Amber Frozen Coastal Misty Eastern Central Upper Lower Grand Little Old New Red Black White ' +
  'Stone Cedar Maple Willow Harbor Summit Prairie Canyon Delta Arctic Tidal Velvet Copper Jade Scarlet Ivory'
).split(' ');
const NOUNS = (
  'Harbor Ledger Falcon River Orchard Beacon Meadow Forge Lantern Compass Anchor Garden Tower Bridge Valley Signal ' +
  'Cascade Quarry Prism Atlas Vector Kernel Matrix Cipher Pulse Horizon Summit Canyon Glacier Reef Ember Thistle ' +
  'Sparrow Heron Otter Badger Lynx Raven Willow Birch Aspen Harvest Voyage Circuit Relay Archive Mosaic Tapestry'
).split(' ');
const KINDS = (
  'Service Gateway Protocol Engine Library Foundation Institute River Mountain Museum Council Festival Index ' +
  'Pipeline Observatory Academy Railway Theatre Orchestra Company Laboratory Press Trust Society Cathedral Stadium'
).split(' ');
const SYLLABLES = 'nor vik sund ber gen ha ma ri lo tan kel dor ven sa mi ra bu lin ost ka zan tor el via mont'.split(
  ' ',
);
const PLACE_ENDINGS = ['', 'burg', 'ville', 'stad', 'port', 'ford', 'holm', 'dale', 'ia', 'ton'];
const PRODUCTS = 'Quartz Nimbus Zephyr Onyx Helix Pylon Tundra Sable Vortex Cobalt Nova Lumen Basalt Ferro'.split(' ');
const PRODUCT_KINDS = ['DB', 'OS', 'Cloud', 'Studio', 'Mesh', 'Queue', 'Cache', 'SDK', 'CLI', 'Router'];
const DISAMBIGUATORS = ['(film)', '(album)', '(novel)', '(ship)', '(software)', '(band)', '(river)', '(play)'];

const FILLER = (
  'the a of to in and for with on by from as is are was were this that which it its be can will should after ' +
  'before during while between across about deployment report meeting budget schedule release update review team ' +
  'project system design question answer result change request issue note summary plan history version support'
).split(' ');

const pick = <T>(rand: () => number, list: readonly T[]): T => list[Math.floor(rand() * list.length)] as T;
const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** One candidate name of a random kind (people, organisations, places, products, titled works). */
function candidate(rand: () => number): { type: string; name: string; aliases: string[] } {
  const r = rand();
  if (r < 0.3) {
    const middle = rand() < 0.3 ? ` ${String.fromCharCode(65 + Math.floor(rand() * 26))}.` : '';
    return { type: 'Person', name: `${pick(rand, FIRST)}${middle} ${pick(rand, LAST)}`, aliases: [] };
  }
  if (r < 0.6) {
    const words = [pick(rand, ADJECTIVES), pick(rand, NOUNS), pick(rand, KINDS)];
    const acronym = words.map((w) => w.charAt(0)).join('');
    // An acronym that spells a common word ("WAS") would name every sentence; such aliases are left out.
    const alias = rand() < 0.4 && !FILLER.includes(acronym.toLowerCase()) ? [acronym] : [];
    return { type: 'Organization', name: words.join(' '), aliases: alias };
  }
  if (r < 0.8) {
    const root = Array.from({ length: 2 + Math.floor(rand() * 2) }, () => pick(rand, SYLLABLES)).join('');
    const name = capitalize(root + pick(rand, PLACE_ENDINGS));
    return { type: 'Place', name: rand() < 0.3 ? `${name} ${pick(rand, KINDS)}` : name, aliases: [] };
  }
  if (r < 0.92) {
    const version = rand() < 0.5 ? ` ${1 + Math.floor(rand() * 9)}.${Math.floor(rand() * 10)}` : '';
    return { type: 'Product', name: `${pick(rand, PRODUCTS)} ${pick(rand, PRODUCT_KINDS)}${version}`, aliases: [] };
  }
  const title = `The ${pick(rand, ADJECTIVES)} ${pick(rand, NOUNS)}`;
  return { type: 'Work', name: `${title} ${pick(rand, DISAMBIGUATORS)}`, aliases: [] };
}

/** `count` distinct, varied, mostly multi-word entity names (deterministic for a seed). */
export function generatedEntities(count: number, seed = 29): GeneratedEntity[] {
  const rand = prng(seed);
  const seen = new Set<string>();
  const out: GeneratedEntity[] = [];
  while (out.length < count) {
    const c = candidate(rand);
    // Past the pools' combinations, a numbered edition keeps names distinct and realistic ("… 2").
    const name = seen.has(c.name.toLowerCase()) ? `${c.name} ${2 + Math.floor(rand() * 50)}` : c.name;
    if (seen.has(name.toLowerCase())) continue;
    seen.add(name.toLowerCase());
    out.push({ id: `ent:${out.length}`, type: c.type, name, aliases: c.aliases });
  }
  return out;
}

/** A document of about `chars` characters naming `mentions` of the entities among plain sentences. */
export function typicalDocument(
  id: string,
  entities: readonly GeneratedEntity[],
  seed: number,
  chars = 2000,
  mentions = 6,
): DocumentInput {
  const rand = prng(seed);
  const sentences: string[] = [];
  let length = 0;
  let named = 0;
  while (length < chars) {
    const words = Array.from({ length: 8 + Math.floor(rand() * 10) }, () => pick(rand, FILLER));
    if (named < mentions) {
      words.splice(Math.floor(rand() * words.length), 0, pick(rand, entities).name);
      named++;
    }
    const sentence = `${capitalize(words.join(' '))}.`;
    sentences.push(sentence);
    length += sentence.length + 1;
  }
  return {
    id,
    title: `Notes ${id}`,
    content: sentences.join(' '),
    documentType: 'manual',
    source: null,
    tags: [],
    metadata: {},
    expiresAt: null,
  };
}
