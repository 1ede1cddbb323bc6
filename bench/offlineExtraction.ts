/**
 * CPU cost of the offline extractor per 500-character chunk on three real corpora (run: npx tsx bench/offlineExtraction.ts).
 * Prints a markdown table for bench/RESULTS.md; it writes nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { chunkText } from '../src/chunking/chunkText.js';
import { extractOffline, OfflineExtractor } from '../src/extraction/offline/offlineExtractor.js';
import { machineLine } from './report.js';

const data = path.resolve('..', 'shared', 'data');

function markdownFiles(folder: string): string[] {
  return fs
    .readdirSync(folder, { withFileTypes: true })
    .flatMap((entry) => {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) return markdownFiles(full);
      return entry.name.endsWith('.md') ? [full] : [];
    })
    .sort();
}

function corpora(): { label: string; documents: string[] }[] {
  const scifact = fs
    .readFileSync(path.join(data, 'scifact', 'corpus.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .slice(0, 1000)
    .map((line) => (JSON.parse(line) as { text: string }).text);
  const musique = (
    JSON.parse(fs.readFileSync(path.join(data, 'musique', 'musique_train_corpus.json'), 'utf8')) as { text: string }[]
  ).map((paragraph) => paragraph.text);
  const vite = markdownFiles(path.join(data, 'docs', 'vite', 'docs')).map((file) => fs.readFileSync(file, 'utf8'));
  return [
    { label: `Vite docs (${vite.length} markdown pages)`, documents: vite },
    { label: `SciFact (first ${scifact.length} abstracts)`, documents: scifact },
    { label: `MuSiQue (${musique.length} paragraphs)`, documents: musique },
  ];
}

function measure(documents: readonly string[]): string[] {
  const chunks = documents.flatMap((text) => chunkText(text, { size: 500, overlap: 50 }).map((chunk) => chunk.content));
  const chars = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
  // One untimed pass first: the JIT compiles the tagger, as it has in a long-running server.
  for (const chunk of chunks) extractOffline(chunk);
  const cpuBefore = process.cpuUsage();
  let entities = 0;
  let relationships = 0;
  for (const chunk of chunks) {
    const result = extractOffline(chunk);
    entities += result.entities.length;
    relationships += result.relationships.length;
  }
  const cpu = process.cpuUsage(cpuBefore);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  return [
    String(chunks.length),
    (cpuMs / chunks.length).toFixed(3),
    String(Math.round(chars / (cpuMs / 1000) / 1000)),
    (entities / chunks.length).toFixed(1),
    (relationships / chunks.length).toFixed(1),
  ];
}

const loadStart = performance.now();
extractOffline('Warm up: load the model and the word list.');
const loadMs = performance.now() - loadStart;
console.log(
  `Offline extraction, ${new OfflineExtractor().fingerprint}; ${machineLine()}; first call ${loadMs.toFixed(0)} ms`,
);
console.log(
  '| corpus | chunks (500 chars) | CPU ms per chunk | k chars/s | candidates per chunk | RELATED_TO per chunk |',
);
console.log('|---|---|---|---|---|---|');
for (const corpus of corpora()) console.log(`| ${corpus.label} | ${measure(corpus.documents).join(' | ')} |`);
