import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { GraphStatsRecord } from '../../src/graph/GraphService.js';
import type { EntityRecord, RelationshipRecord } from '../../src/graph/types.js';
import type { Services } from '../../src/services.js';
import { MAX_PAGE_SIZE } from '../../src/shared/pageSize.js';
import { projectRoot } from '../../src/paths.js';
import type { Table } from '../report.js';

const SAMPLE_FILE = path.join(projectRoot, 'bench', 'data', 'vite-graph-sample.json');
const JUDGED_FILE = path.join(projectRoot, 'bench', 'data', 'vite-graph-judgements.json');

/** A sampled fact, as a person judges it: is this a real thing of the Vite docs (a true relation between two)? */
export interface SampledFact {
  key: string;
  text: string;
}

/** The 30 most connected entities. */
export function topDegreeTable(stats: GraphStatsRecord): Table {
  return {
    title: 'Vite docs: the 30 most connected extracted entities',
    headers: ['entity', 'type', 'degree'],
    rows: stats.topDegree.map((t) => [t.entity.name, t.entity.type, t.degree]),
  };
}

/**
 * A fixed sample of 100 extracted entities and 50 extracted relationships (ordered by a hash of their ids, so the same
 * graph gives the same sample), written to bench/data/vite-graph-sample.json for judging by hand.
 */
export async function graphSample(
  services: Services,
): Promise<{ entities: SampledFact[]; relationships: SampledFact[] }> {
  const entities: EntityRecord[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await services.graph.findEntities({ origin: ['EXTRACTED'] }, { first: MAX_PAGE_SIZE, after });
    entities.push(...page.edges.map((e) => e.node));
    const last = page.edges.at(-1);
    if (!page.hasNextPage || !last) break;
    after = last.cursor;
  }
  const byHash = <T extends { id: string }>(list: T[]) => [...list].sort((a, b) => (hash(a.id) < hash(b.id) ? -1 : 1));
  const names = new Map(entities.map((e) => [e.id, e.name]));
  const pickedEntities = byHash(entities).slice(0, 100);
  const relationships: RelationshipRecord[] = [];
  for (const e of byHash(entities).slice(0, 400))
    relationships.push(...(await services.graph.relationshipsOf(e.id, 'OUT')).filter((r) => r.origin === 'EXTRACTED'));
  const pickedRelationships = byHash([...new Map(relationships.map((r) => [r.id, r])).values()]).slice(0, 50);
  const sample = {
    entities: pickedEntities.map((e) => ({ key: e.id, text: `${e.name} (${e.type})` })),
    relationships: pickedRelationships.map((r) => ({
      key: r.id,
      text: `${names.get(r.fromId) ?? r.fromId} -[${r.type}]-> ${names.get(r.toId) ?? r.toId}`,
    })),
  };
  fs.writeFileSync(SAMPLE_FILE, `${JSON.stringify(sample, null, 2)}\n`);
  return sample;
}

/** Precision of the sample by the judgements committed in bench/data/vite-graph-judgements.json (key → true/false). */
export function judgedPrecision(sample: { entities: SampledFact[]; relationships: SampledFact[] }): Table {
  const judged = fs.existsSync(JUDGED_FILE)
    ? (JSON.parse(fs.readFileSync(JUDGED_FILE, 'utf8')) as Record<string, boolean>)
    : {};
  const precision = (facts: SampledFact[]) => {
    const known = facts.filter((f) => f.key in judged);
    return { judged: known.length, precision: known.filter((f) => judged[f.key]).length / Math.max(1, known.length) };
  };
  const e = precision(sample.entities);
  const r = precision(sample.relationships);
  return {
    title: 'Vite docs graph: precision of a sample of extracted facts, judged by hand',
    headers: ['facts', 'sampled', 'judged', 'precision', 'target'],
    rows: [
      ['entities', sample.entities.length, e.judged, e.precision, '≥ 0.8'],
      ['relationships', sample.relationships.length, r.judged, r.precision, '≥ 0.7'],
    ],
    notes: [
      'The sample is bench/data/vite-graph-sample.json; the judgements (is it a real, specific thing of the Vite docs; does the relationship hold in the quoted text) are bench/data/vite-graph-judgements.json.',
    ],
  };
}

function hash(id: string): string {
  return createHash('sha256').update(id).digest('hex');
}
