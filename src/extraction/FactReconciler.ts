import type { GraphService } from '../graph/GraphService.js';
import type { NamedEntity } from '../graph/mentions/EntityNameLookup.js';
import type { EntityRecord, EntityWrite, Origin, RelationshipRecord, RelationshipWrite } from '../graph/types.js';
import type { EntityFact, FactSupport, RelationshipFact } from './EvidenceRepository.js';
import type { ExtractionRepository } from './ExtractionRepository.js';
import { mostSpecificType } from './entityTypes.js';
import { isSpecificName, nameKey } from './nameKey.js';
import { isGenericHeading } from './structural/index.js';
import { cooccurrenceSupported } from './supportRule.js';

/** When support is enough (CAIRN_EXTRACTION_TERM_MIN_DOCUMENTS, CAIRN_EXTRACTION_COOCCURRENCE_MIN_CHUNKS). */
export interface SupportRules {
  termMinDocuments: number;
  cooccurrenceMinChunks: number;
}

/** Most aliases an extracted entity keeps. */
const MAX_ALIASES = 20;

const TIER_RANK: Record<EntityFact['tier'], number> = { new: 0, name: 0, alias: 1, acronym: 1, fuzzy: 2 };

/**
 * Decides from its support whether each fact belongs in the graph, and makes the graph say so: writes supported
 * facts as EXTRACTED, deletes EXTRACTED facts without support, and never touches a MANUAL or IMPORTED fact.
 * - entities need the support entitySupported says;
 * - relationships need both endpoints in the graph and the support relationshipSupported says, and no rejection
 *   (rejectRelationship); a co-occurrence's weight is the count of its chunks.
 */
export class FactReconciler {
  constructor(
    private readonly repository: ExtractionRepository,
    private readonly graph: GraphService,
    private readonly rules: SupportRules,
  ) {}

  /** Reconciles `factKeys` (`e:` and `r:`); returns those in the graph afterwards. */
  async reconcile(
    factKeys: readonly string[],
    homes: readonly { documentId: string; entityId: string }[] = [],
  ): Promise<Set<string>> {
    const keys = [...new Set(factKeys)].filter((k) => k.startsWith('e:') || k.startsWith('r:'));
    const support = await this.repository.evidence.supportOf(keys);
    const entityIds = keys.filter((k) => k.startsWith('e:')).map((k) => k.slice(2));
    const named = await this.repository.names.byIds(entityIds);
    const live = new Set<string>();
    const writes: EntityWrite[] = [];
    const removeEntities: string[] = [];
    for (const id of entityIds) {
      const existing = named.get(id);
      const s = support.get(`e:${id}`);
      if (existing && existing.origin !== 'EXTRACTED') live.add(id);
      else if (s && entitySupported(s, this.rules)) {
        writes.push(entityWrite(id, s.facts as EntityFact[], existing));
        live.add(id);
      } else if (existing) removeEntities.push(id);
    }
    const {
      writes: relWrites,
      remove: removeRels,
      liveKeys,
    } = await this.relationships(
      keys.filter((k) => k.startsWith('r:')),
      support,
      live,
      new Set(removeEntities),
    );
    const changed = await this.changedOnly(writes);
    // Recorded first: a crash after the write must not leave an extracted relationship that looks like a person's.
    await this.repository.evidence.markMaterialized(relWrites.map((r) => `r:${r.id}`));
    await this.graph.applyExtractedFacts(
      changed,
      relWrites,
      homes.filter((h) => live.has(h.entityId)),
    );
    await this.graph.removeExtractedFacts(removeEntities, removeRels);
    await this.repository.evidence.unmarkMaterialized(keys.filter((k) => k.startsWith('r:') && !liveKeys.has(k)));
    return new Set([...[...live].map((id) => `e:${id}`), ...liveKeys]);
  }

  private async relationships(
    relKeys: readonly string[],
    support: ReadonlyMap<string, FactSupport>,
    liveEntities: ReadonlySet<string>,
    removedEntities: ReadonlySet<string>,
  ): Promise<{ writes: RelationshipWrite[]; remove: string[]; liveKeys: Set<string> }> {
    const ids = relKeys.map((k) => k.slice(2));
    const facts = new Map(relKeys.map((k) => [k, (support.get(k)?.facts ?? []) as RelationshipFact[]]));
    const endpoints = [...facts.values()].flatMap((list) => list.flatMap((f) => [f.fromId, f.toId]));
    const outside = await this.repository.names.byIds(endpoints.filter((id) => !liveEntities.has(id)));
    const exists = (id: string) => liveEntities.has(id) || (outside.has(id) && !removedEntities.has(id));
    const [stored, materialized, rejected] = await Promise.all([
      this.graph.getRelationships(ids),
      this.repository.evidence.materialized(relKeys),
      this.repository.rejections.rejectedRelationships(ids),
    ]);
    const byId = new Map(stored.map((r) => [r.id, r]));
    const out = { writes: [] as RelationshipWrite[], remove: [] as string[], liveKeys: new Set<string>() };
    for (const key of relKeys) {
      const id = key.slice(2);
      const record = byId.get(id);
      const mine = materialized.has(key) && originOf(record) !== 'MANUAL' && originOf(record) !== 'IMPORTED';
      if (record && !mine) continue; // a person's or an importer's relationship: never touched
      const s = support.get(key);
      const fact = (facts.get(key) ?? [])[0];
      const wanted = s && fact && !rejected.has(id) && exists(fact.fromId) && exists(fact.toId);
      if (wanted && relationshipSupported(s, this.rules)) {
        const write = relationshipWrite(id, s);
        if (!record || JSON.stringify(record.properties) !== JSON.stringify(write.properties)) out.writes.push(write);
        out.liveKeys.add(key);
      } else if (record) out.remove.push(id);
    }
    return out;
  }

  /** Only the writes that change the stored entity (an unchanged one costs no write and no mention backfill). */
  private async changedOnly(writes: readonly EntityWrite[]): Promise<EntityWrite[]> {
    const stored = new Map((await this.graph.getEntities(writes.map((w) => w.id))).map((e) => [e.id, e]));
    return writes.filter((w) => !sameEntity(w, stored.get(w.id)));
  }
}

/**
 * Whether an entity's support is enough: none for a generic heading; one chunk for a page, a defined name, an identifier or a tag. Weak kinds need
 * termMinDocuments documents: a key term (a noun phrase may be specific to one page only by accident), and a proper
 * name that is one plain word found by the offline NLP alone ("Dashboard", "Incognito": a capitalised menu label or
 * emphasis reads like a name; one that recurs across documents, like "Nuxt", is one).
 */
export function entitySupported(s: FactSupport, rules: SupportRules): boolean {
  const facts = s.facts as EntityFact[];
  // "Features", "Getting Started": a page title or a name that is a generic heading names no thing.
  if (facts.every((f) => f.kind !== 'identifier' && f.kind !== 'tag' && isGenericHeading(f.name))) return false;
  const offlineOnly = s.extractors.every((x) => x === 'offline');
  const weak = (f: EntityFact) => f.kind === 'term' || (f.kind === 'name' && offlineOnly && !isSpecificName(f.name));
  if (facts.some((f) => !weak(f))) return s.chunks >= 1;
  return s.documents >= rules.termMinDocuments;
}

/**
 * Whether a relationship's support is enough: one chunk for a stated relationship (a link, a definition, the
 * LLM's); a co-occurrence only (RELATED_TO) as cooccurrenceSupported says (one sentence that states it, else
 * cooccurrenceMinChunks distinct passages).
 */
export function relationshipSupported(s: FactSupport, rules: SupportRules): boolean {
  const facts = s.facts as RelationshipFact[];
  if (facts.some((f) => !f.cooccurrence)) return s.chunks >= 1;
  return cooccurrenceSupported(s, rules.cooccurrenceMinChunks);
}

function originOf(record: RelationshipRecord | EntityRecord | undefined): Origin | undefined {
  return (record as { origin?: Origin } | undefined)?.origin;
}

function sameEntity(w: EntityWrite, e: EntityRecord | undefined): boolean {
  return (
    e !== undefined &&
    e.name === w.name &&
    e.type === w.type &&
    e.description === w.description &&
    JSON.stringify([...e.aliases].sort()) === JSON.stringify([...w.aliases].sort())
  );
}

/** How a name is written, most telling first: mixed case ("Vite"), lower case, then capitals (emphasis: "VITE"). */
function casingRank(name: string): number {
  const upper = /\p{Lu}/u.test(name);
  const lower = /\p{Ll}/u.test(name);
  return upper && lower ? 0 : lower ? 1 : 2;
}

/** The entity its support describes: a page's name first, then the plainest match; aliases from every non-fuzzy form. */
export function entityWrite(id: string, facts: readonly EntityFact[], existing: NamedEntity | undefined): EntityWrite {
  const sorted = [...facts].sort(
    (a, b) =>
      Number(b.kind === 'page') - Number(a.kind === 'page') ||
      TIER_RANK[a.tier] - TIER_RANK[b.tier] ||
      casingRank(a.name) - casingRank(b.name) ||
      (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
  const best = sorted[0] as EntityFact;
  // The title of the page about it names it, even when it was first found under another form ("VITE" → "Vite").
  const name = (best.kind === 'page' ? best.name : undefined) ?? existing?.name ?? best.name;
  const seen = new Set([nameKey(name)]);
  const aliases: string[] = [];
  for (const f of sorted.filter((x) => x.tier !== 'fuzzy')) {
    for (const alias of [f.name, ...f.aliases]) {
      const key = nameKey(alias);
      if (key === '' || seen.has(key) || aliases.length >= MAX_ALIASES) continue;
      seen.add(key);
      aliases.push(alias);
    }
  }
  const kinds = new Set(facts.map((f) => f.kind));
  const linkByName =
    kinds.has('name') || kinds.has('identifier') || ((kinds.has('page') || kinds.has('term')) && isSpecificName(name));
  return {
    id,
    // An extracted entity's type may sharpen as support grows (Identifier, then Function), never blur.
    type: mostSpecificType([...(existing?.type ? [existing.type] : []), ...sorted.map((f) => f.type)]) ?? best.type,
    name,
    aliases: aliases.sort(),
    description: sorted.find((f) => f.description !== null)?.description ?? null,
    properties: {},
    linkByName,
    origin: 'EXTRACTED',
  };
}

function relationshipWrite(id: string, s: FactSupport): RelationshipWrite {
  const facts = s.facts as RelationshipFact[];
  const fact = facts[0] as RelationshipFact;
  const description = facts.find((f) => f.description !== null)?.description;
  // Every relationship weighs the chunks that support it: the graph lane's PageRank follows heavier edges more.
  return {
    id,
    type: fact.type,
    fromId: fact.fromId,
    toId: fact.toId,
    properties: { weight: s.chunks, ...(description ? { description } : {}) },
    origin: 'EXTRACTED',
  };
}
