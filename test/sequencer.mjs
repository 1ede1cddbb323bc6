import fs from 'node:fs';
import path from 'node:path';
import Sequencer from '@jest/test-sequencer';

/**
 * Jest's order (failed first, then slowest first by its cache of durations), with a fallback for a clean clone, which
 * has no such cache: Jest would then order by file size, and a short file of a slow suite (the DigitalOcean import)
 * would start last and leave one worker running it alone. Suites without a cached duration take the seconds that
 * suiteSeconds.json records for them (from a CI run; refresh it when suites change much), others a second per 10 kB.
 */
const recorded = JSON.parse(fs.readFileSync(new URL('./suiteSeconds.json', import.meta.url), 'utf8'));
const rootDir = path.dirname(path.dirname(new URL(import.meta.url).pathname));
const BaseSequencer = Sequencer.default ?? Sequencer;

export default class SlowestFirstSequencer extends BaseSequencer {
  time(test) {
    const cached = super.time(test);
    if (cached !== undefined) return cached;
    const seconds = recorded[path.relative(rootDir, test.path).split(path.sep).join('/')];
    return 1000 * (seconds ?? fileSizeOf(test) / 10_000);
  }
}

function fileSizeOf(test) {
  return test.context.hasteFS.getSize(test.path) ?? 0;
}
