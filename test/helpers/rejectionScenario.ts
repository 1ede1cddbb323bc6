import { expect } from '@jest/globals';
import { relationshipId } from '../../src/graph/validateGraphInput.js';
import type { Services } from '../../src/services.js';
import { doc, entitiesIn, expectSupportKeptRight, relationshipsIn } from './extractionScenario.js';

const NOTES = doc(
  'doc:queue-notes',
  'Queue Notes',
  'queue-notes.md',
  'Notes: [[Kafka|Technology]] feeds the [[Ledger Services|Technology]]. <<Kafka|FEEDS|Ledger Services>>',
);
const NOTES_WITHOUT_FEED = doc(
  'doc:queue-notes',
  'Queue Notes',
  'queue-notes.md',
  'Notes: [[Kafka|Technology]] and the [[Ledger Services|Technology]] run apart.',
);
const kafka = 'x:technology:kafka';
// "Ledger Services" resolves under its normalised name, singular: a rejection must block that key.
const ledger = 'x:technology:ledger-service';
const feeds = relationshipId(kafka, 'FEEDS', ledger);

/** Extracts the notes again (their chunks come from the extractor's cache) and reconciles their facts. */
async function extractAgain(s: Services): Promise<void> {
  await s.extraction.enqueue([NOTES.id as string]);
  await s.extraction.drain();
}

async function undoLatest(s: Services, operation: string): Promise<void> {
  const page = await s.audit.list({ operation }, 1, undefined);
  const entry = page.rows[0]?.entry;
  expect(entry?.undoneBy).toBeNull();
  await s.audit.undo(entry!.id);
}

async function evidenceRows(s: Services, factKey: string): Promise<number> {
  const { rows } = await s.db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM extraction_evidence WHERE fact_key = $1',
    [factKey],
  );
  return rows[0]!.n;
}

/**
 * Rejects an extracted relationship and an extracted entity, extracts again (neither comes back), undoes each
 * rejection (the fact, its evidence and extraction's hold on it come back) and extracts again. `s` extracts only when
 * drained, with TextMarkupExtractor.
 */
export async function runRejectionScenario(s: Services): Promise<void> {
  await s.documents.upsertMany([NOTES]);
  await s.extraction.drain();
  expect(await relationshipsIn(s, [feeds])).toEqual([feeds]);

  await s.curation.rejectRelationship(feeds);
  expect(await relationshipsIn(s, [feeds])).toEqual([]);
  await extractAgain(s);
  expect(await relationshipsIn(s, [feeds])).toEqual([]); // its evidence is back, the rejection keeps it out
  expect(await evidenceRows(s, `r:${feeds}`)).toBe(1);

  await undoLatest(s, 'rejectRelationship');
  const [back] = await s.graph.getRelationships([feeds]);
  expect(back).toMatchObject({ origin: 'EXTRACTED', type: 'FEEDS' });
  await extractAgain(s);
  expect(await relationshipsIn(s, [feeds])).toEqual([feeds]);
  // Extraction owns it again: once no document states it, extraction removes it.
  await s.documents.upsertMany([NOTES_WITHOUT_FEED]);
  await s.extraction.drain();
  expect(await relationshipsIn(s, [feeds])).toEqual([]);
  await s.documents.upsertMany([NOTES]);
  await s.extraction.drain();
  expect(await relationshipsIn(s, [feeds])).toEqual([feeds]);

  const rejected = await s.curation.rejectEntity(ledger);
  expect(rejected.rejectedName).toBe('ledger service');
  expect(await entitiesIn(s, [kafka, ledger])).toEqual([kafka]);
  await extractAgain(s);
  expect(await entitiesIn(s, [kafka, ledger])).toEqual([kafka]);
  expect(await relationshipsIn(s, [feeds])).toEqual([]);

  await undoLatest(s, 'rejectEntity');
  expect(await entitiesIn(s, [kafka, ledger])).toEqual([kafka, ledger]);
  expect(await relationshipsIn(s, [feeds])).toEqual([feeds]);
  expect(await evidenceRows(s, `e:${ledger}`)).toBeGreaterThan(0);
  await extractAgain(s);
  expect(await entitiesIn(s, [kafka, ledger])).toEqual([kafka, ledger]);
  expect(await relationshipsIn(s, [feeds])).toEqual([feeds]);
  await expectSupportKeptRight(s);
  // Extraction's own writes and removals are not audited: besides the undos' writes, only the two rejections are.
  const logged = await s.audit.list({ targetId: ledger }, 50, undefined);
  expect(logged.rows.filter((r) => r.entry.undoes === null).map((r) => r.entry.operation)).toEqual([
    'rejectEntity',
    'rejectRelationship',
  ]);
}
