#!/usr/bin/env node
// @ts-check
// `npm start` and `npm run cairn` run this first: it compiles the server (tsc) and bundles the admin pages (esbuild)
// only when a source is newer than what was built last, so an unchanged tree starts at once instead of rebuilding for
// most of a minute. Plain JavaScript, so the check itself needs no compiler. `npm run build` still builds everything.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// Folders never read as inputs: installed packages, and build outputs inside input folders (web/dist).
const SKIPPED = new Set(['node_modules', 'dist']);

/**
 * The newest modification time (ms) of the files at `paths` (folders walked), or 0 when none exist.
 * @param {string[]} paths
 * @returns {number}
 */
export function newestMtime(paths) {
  let newest = 0;
  const visit = (/** @type {string} */ p) => {
    let stat;
    try {
      stat = fs.statSync(p);
    } catch {
      return; // a missing input is no change
    }
    if (!stat.isDirectory()) {
      newest = Math.max(newest, stat.mtimeMs);
      return;
    }
    for (const entry of fs.readdirSync(p)) if (!SKIPPED.has(entry)) visit(path.join(p, entry));
  };
  for (const p of paths) visit(p);
  return newest;
}

/**
 * True when an output is missing or older than the newest input.
 * @param {string[]} inputs
 * @param {string[]} outputs
 * @returns {boolean}
 */
export function isStale(inputs, outputs) {
  let oldest = Infinity;
  for (const o of outputs) {
    try {
      oldest = Math.min(oldest, fs.statSync(o).mtimeMs);
    } catch {
      return true;
    }
  }
  return newestMtime(inputs) > oldest;
}

/** @typedef {{ what: string; inputs: string[]; outputs: string[]; command: string[] }} Step */

/** @type {Record<string, Step>} */
const STEPS = {
  server: {
    what: 'compiling the server (tsc)',
    inputs: ['src', 'importers', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'],
    outputs: ['dist/.tsbuildinfo', 'dist/src/cli/main.js'],
    command: ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'],
  },
  web: {
    what: 'bundling the admin pages (esbuild)',
    inputs: ['web', 'scripts/buildWeb.ts', 'package-lock.json'],
    outputs: ['explorer', 'knowledge', 'graphiql'].map((app) => `web/dist/${app}/main.js`),
    command: ['node_modules/tsx/dist/cli.mjs', 'scripts/buildWeb.ts'],
  },
};

/**
 * Runs each named step whose outputs are older than its inputs; returns the exit code.
 * @param {string[]} names
 * @param {string} base
 * @returns {number}
 */
export function buildIfStale(names, base = root) {
  for (const name of names) {
    const step = STEPS[name];
    if (!step) {
      process.stderr.write(`buildIfStale: unknown step "${name}" (steps: ${Object.keys(STEPS).join(', ')})\n`);
      return 2;
    }
    const at = (/** @type {string} */ p) => path.join(base, p);
    if (!isStale(step.inputs.map(at), step.outputs.map(at))) continue;
    process.stderr.write(`${step.what}: sources changed since the last build…\n`);
    const res = spawnSync(
      process.execPath,
      step.command.map((c, i) => (i === 0 ? at(c) : c)),
      { cwd: base, stdio: 'inherit' },
    );
    if (res.status !== 0) return res.status ?? 1;
    // tsc leaves its build info alone when no output changed (a file saved unchanged): mark the outputs as current.
    const now = new Date();
    for (const o of step.outputs) fs.utimesSync(at(o), now, now);
  }
  return 0;
}

// `node scripts/buildIfStale.mjs [--root <folder>] server web`: --root checks another tree (tests).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--root');
  const base = at === -1 ? root : path.resolve(args[at + 1] ?? '.');
  process.exit(buildIfStale(at === -1 ? args : args.filter((_, i) => i !== at && i !== at + 1), base));
}
