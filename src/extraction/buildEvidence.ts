import { relationshipId } from '../graph/validateGraphInput.js';
import { ENTITY_TYPE_PATTERN, RELATIONSHIP_TYPE_PATTERN } from '../graph/types.js';
import type { EntityFact, EvidenceRow, RelationshipFact } from './EvidenceRepository.js';
import type { ExtractionRepository } from './ExtractionRepository.js';
import { joinNewNamesOfOneThing, relationshipFact } from './resolvedFacts.js';
import { resolveLinkTarget } from './structural/index.js';
import { BatchNames } from './batchNames.js';
import { resolveCandidate, type Resolution } from './resolveEntities.js';
import type { ExtractorRun } from './runExtractors.js';
import type { CandidateKind, ChunkForExtraction, DocumentForExtraction, EntityCandidate } from './types.js';

/** Co-occurrence pairs come from at most this many entities of a chunk, the most specific first. */
export const COOCCURRENCE_ENTITIES_PER_CHUNK = 8;
/** The extractor column of co-occurrence evidence. */
export const COOCCURRENCE = 'cooccurrence';
/** Longest candidate name taken. */
const MAX_NAME = 200;

const KIND_RANK: Record<CandidateKind, number> = { page: 0, name: 0, identifier: 1, tag: 2, term: 3 };

/** What evidence building needs besides the repository: link resolution by `source`, and the fuzzy threshold. */
export interface EvidenceDeps {
  repository: ExtractionRepository;
  idsBySource(sources: readonly string[]): Promise<Map<string, string>>;
  fuzzyThreshold: number;
  /** The names of the batch this document belongs to (read once for all); absent: read for this document. */
  names?: BatchNames;
}

/** A document's evidence, and its page entity (the thing it is about), if any. */
export interface DocumentEvidence {
  rows: EvidenceRow[];
  pageEntityId: string | undefined;
  warnings: string[];
  /** The document's source (links elsewhere that pointed nowhere may point to it now). */
  source: string | null;
}

/** A candidate of one chunk and the entity it resolved to. */
export interface Found {
  candidate: EntityCandidate;
  chunk: ChunkForExtraction;
  extractor: string;
  resolution: Resolution;
}

/** Resolves what the extractors found in a document into evidence rows: entities, relationships, co-occurrence, links. */
export async function buildEvidence(
  document: DocumentForExtraction,
  chunks: readonly ChunkForExtraction[],
  runs: readonly ExtractorRun[],
  deps: EvidenceDeps,
): Promise<DocumentEvidence> {
  const warnings: string[] = [];
  const candidates = runs.flatMap((run) =>
    run.results.flatMap((result, i) =>
      (result?.entities ?? [])
        .filter((c) => validCandidate(c, warnings))
        .map((candidate) => ({ candidate, chunk: chunks[i] as ChunkForExtraction, extractor: run.extractor.name })),
    ),
  );
  const names =
    deps.names ??
    (await BatchNames.load(
      candidates.map((c) => c.candidate),
      deps.repository,
      deps.fuzzyThreshold,
    ));
  const context = names.contextFor(candidates.map((c) => c.candidate));
  const memo = new Map<string, Resolution | undefined>();
  const found: Found[] = [];
  for (const c of candidates) {
    const memoKey = JSON.stringify([c.candidate.name, c.candidate.type, c.candidate.aliases ?? [], c.candidate.kind]);
    if (!memo.has(memoKey)) memo.set(memoKey, resolveCandidate(c.candidate, context));
    const resolution = memo.get(memoKey);
    if (resolution) found.push({ ...c, resolution });
  }
  joinNewNamesOfOneThing(found);
  names.remember(found);
  const rows: EvidenceRow[] = found.map((f) => entityRow(document.id, f));
  rows.push(...relationshipRows(document.id, chunks, runs, found));
  rows.push(...cooccurrenceRows(document.id, found, sentenceAwareChunks(chunks, runs)));
  const pageEntityId = found.find((f) => f.candidate.kind === 'page')?.resolution.entityId;
  rows.push(...(await linkRows(document, chunks, runs, pageEntityId, deps)));
  return { rows, pageEntityId, warnings, source: document.source };
}

function validCandidate(c: EntityCandidate, warnings: string[]): boolean {
  const name = c.name.trim();
  if (name === '' || name.length > MAX_NAME) return false;
  if (ENTITY_TYPE_PATTERN.test(c.type)) return true;
  warnings.push(`entity "${name}" has an invalid type "${c.type}"; skipped`);
  return false;
}

function entityRow(documentId: string, f: Found): EvidenceRow {
  const c = f.candidate;
  const fact: EntityFact = {
    id: f.resolution.entityId,
    type: f.resolution.existing?.type ?? c.type,
    name: c.name.trim(),
    aliases: f.resolution.tier === 'fuzzy' ? [] : (c.aliases ?? []).map((a) => a.trim()).filter((a) => a !== ''),
    description: c.description?.trim() || null,
    kind: c.kind,
    tier: f.resolution.tier,
  };
  return {
    factKey: `e:${fact.id}`,
    fact,
    documentId,
    chunkId: f.chunk.id,
    extractor: f.extractor,
    quote: c.quote,
    confidence: clamp(c.confidence),
  };
}

function relationshipRows(
  documentId: string,
  chunks: readonly ChunkForExtraction[],
  runs: readonly ExtractorRun[],
  found: readonly Found[],
): EvidenceRow[] {
  const rows: EvidenceRow[] = [];
  for (const run of runs) {
    run.results.forEach((result, i) => {
      const chunk = chunks[i] as ChunkForExtraction;
      const idOf = (name: string) =>
        found.find((f) => f.chunk === chunk && f.extractor === run.extractor.name && f.candidate.name === name)
          ?.resolution.entityId;
      for (const r of result?.relationships ?? []) {
        const from = idOf(r.from);
        const to = idOf(r.to);
        if (!from || !to || from === to || !RELATIONSHIP_TYPE_PATTERN.test(r.type)) continue;
        const fact = relationshipFact(run.extractor.name, r, from, to);
        rows.push({
          factKey: `r:${relationshipId(fact.fromId, fact.type, fact.toId)}`,
          fact,
          documentId,
          chunkId: chunk.id,
          extractor: run.extractor.name,
          quote: r.quote,
          confidence: clamp(r.confidence),
        });
      }
    });
  }
  return rows;
}

/** Extractors that report which names share a sentence (their RELATED_TO). */
const SENTENCE_COOCCURRENCE_EXTRACTORS = new Set(['offline']);

/** The chunks an extractor read sentence by sentence: there, two names in one chunk but no sentence are no evidence. */
export function sentenceAwareChunks(chunks: readonly ChunkForExtraction[], runs: readonly ExtractorRun[]): Set<string> {
  const aware = new Set<string>();
  for (const run of runs.filter((r) => SENTENCE_COOCCURRENCE_EXTRACTORS.has(r.extractor.name)))
    run.results.forEach((result, i) => {
      if (result) aware.add((chunks[i] as ChunkForExtraction).id);
    });
  return aware;
}

/** RELATED_TO evidence for each pair among the most specific entities of each chunk not read sentence by sentence. */
export function cooccurrenceRows(
  documentId: string,
  found: readonly Found[],
  skip: ReadonlySet<string>,
): EvidenceRow[] {
  const byChunk = new Map<ChunkForExtraction, Map<string, Found>>();
  for (const f of found.filter((x) => !skip.has(x.chunk.id))) {
    const entities = byChunk.get(f.chunk) ?? new Map<string, Found>();
    byChunk.set(f.chunk, entities);
    const seen = entities.get(f.resolution.entityId);
    if (!seen || specificity(f) < specificity(seen)) entities.set(f.resolution.entityId, f);
  }
  const rows: EvidenceRow[] = [];
  for (const [chunk, entities] of byChunk) {
    const top = [...entities.values()]
      .sort((a, b) => specificity(a) - specificity(b) || cmp(a.resolution.entityId, b.resolution.entityId))
      .slice(0, COOCCURRENCE_ENTITIES_PER_CHUNK);
    for (let a = 0; a < top.length; a++) {
      for (let b = a + 1; b < top.length; b++) {
        const [x, y] = [top[a] as Found, top[b] as Found].sort((p, q) =>
          cmp(p.resolution.entityId, q.resolution.entityId),
        );
        const fact: RelationshipFact = {
          fromId: (x as Found).resolution.entityId,
          type: 'RELATED_TO',
          toId: (y as Found).resolution.entityId,
          description: null,
          cooccurrence: true,
        };
        rows.push({
          factKey: `r:${relationshipId(fact.fromId, fact.type, fact.toId)}`,
          fact,
          documentId,
          chunkId: chunk.id,
          extractor: COOCCURRENCE,
          quote: `${(x as Found).candidate.quote} … ${(y as Found).candidate.quote}`.slice(0, 200),
          confidence: Math.min(clamp((x as Found).candidate.confidence), clamp((y as Found).candidate.confidence)),
        });
      }
    }
  }
  return rows;
}

/** Links to stored documents: an `l:<document>` row each, and LINKS_TO between the two page entities when both exist. */
async function linkRows(
  document: DocumentForExtraction,
  chunks: readonly ChunkForExtraction[],
  runs: readonly ExtractorRun[],
  pageEntityId: string | undefined,
  deps: EvidenceDeps,
): Promise<EvidenceRow[]> {
  const links = runs.flatMap((run) =>
    run.results.flatMap((result, i) =>
      (result?.links ?? []).map((link) => ({
        link,
        chunk: chunks[i] as ChunkForExtraction,
        extractor: run.extractor.name,
        targets: resolveLinkTarget(link.href, document.source),
      })),
    ),
  );
  const bySource = await deps.idsBySource([...new Set(links.flatMap((l) => l.targets))]);
  const resolved = links
    .map((l) => ({ ...l, toDocumentId: l.targets.map((t) => bySource.get(t)).find((id) => id !== undefined) }))
    .filter(
      (l): l is typeof l & { toDocumentId: string } => l.toDocumentId !== undefined && l.toDocumentId !== document.id,
    );
  const pages = await deps.repository.evidence.pageEntities(resolved.map((l) => l.toDocumentId));
  const rows: EvidenceRow[] = unresolvedLinkRows(document, links, bySource);
  for (const l of resolved) {
    const base = { documentId: document.id, chunkId: l.chunk.id, extractor: l.extractor, confidence: 1 };
    const quote = `[${l.link.text}](${l.link.href})`.slice(0, 200);
    rows.push({ ...base, factKey: `l:${l.toDocumentId}`, fact: { toDocumentId: l.toDocumentId }, quote });
    const toId = pages.get(l.toDocumentId);
    if (pageEntityId === undefined || toId === undefined || toId === pageEntityId) continue;
    const fact: RelationshipFact = { fromId: pageEntityId, type: 'LINKS_TO', toId, description: null };
    rows.push({ ...base, factKey: `r:${relationshipId(pageEntityId, 'LINKS_TO', toId)}`, fact, quote });
  }
  return rows;
}

/**
 * A `u:<source>` row for each place an unresolved link may point to, so that the document written there later (an
 * import writes pages in any order) finds this one and has it extracted again. Links that leave the document's own
 * site are left out: no import of the site can bring their target.
 */
function unresolvedLinkRows(
  document: DocumentForExtraction,
  links: readonly {
    link: { href: string; text: string };
    chunk: ChunkForExtraction;
    extractor: string;
    targets: string[];
  }[],
  bySource: ReadonlyMap<string, string>,
): EvidenceRow[] {
  const rows: EvidenceRow[] = [];
  for (const l of links) {
    if (l.targets.some((t) => bySource.has(t)) || !sameSite(document.source, l.link.href)) continue;
    const quote = `[${l.link.text}](${l.link.href})`.slice(0, 200);
    for (const target of l.targets)
      rows.push({
        factKey: `u:${target}`,
        fact: { href: l.link.href },
        documentId: document.id,
        chunkId: l.chunk.id,
        extractor: l.extractor,
        quote,
        confidence: 1,
      });
  }
  return rows;
}

/** Whether a link stays within the document's site: relative, or an absolute URL of the same origin. */
function sameSite(source: string | null, href: string): boolean {
  if (!/^[a-z][a-z0-9+.-]*:/i.test(href) && !href.startsWith('//')) return true;
  try {
    return source !== null && new URL(href, source).origin === new URL(source).origin;
  } catch {
    return false;
  }
}

function specificity(f: Found): number {
  return KIND_RANK[f.candidate.kind] * 10 + (1 - clamp(f.candidate.confidence));
}

function clamp(n: number): number {
  return Number.isFinite(n) ? Math.min(1, Math.max(0, n)) : 0;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
