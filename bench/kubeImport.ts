/**
 * The Kubernetes spec import as a user runs it: `cairn import openapi <spec>` into a fresh embedded (PGlite) data
 * folder with the hashing embedder, timed in CPU seconds (the process and its children) and wall time. With
 * `--baseline=<commit>` the same import runs on that commit too (built in its own worktree under .cairn/), in
 * alternating rounds, and the report gives this tree's CPU over the baseline's. With `--extract` this tree then runs
 * `cairn extract --all` on the imported store: the extraction the server would run in the background.
 *
 * npm run bench:kube-import -- [--spec=FILE] [--baseline=COMMIT] [--rounds=N] [--extract]
 *
 * Without --spec the spec is Kubernetes 1.11's swagger (963 operations, Apache-2.0), taken from the npm package
 * kubernetes-client@9.0.0 into .cairn/bench-cache/ on first use.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { projectPath } from '../src/paths.js';

const SPEC_PACKAGE = 'kubernetes-client@9.0.0';
const SPEC_FILE = 'swagger-1.11.json';
const CACHE = projectPath('.cairn', 'bench-cache', 'kube-import');

interface Run {
  tree: string;
  round: number;
  cpu: number;
  wall: number;
  migrateCpu: number;
  documents: number;
  chunks: number;
  extractCpu: number | null;
  load: string;
}

/** The spec file: the given one, or Kubernetes 1.11's from the npm package (fetched once with npm pack). */
function specPath(given: string | undefined): string {
  if (given) return path.resolve(given);
  const file = path.join(CACHE, SPEC_FILE);
  if (fs.existsSync(file)) return file;
  fs.mkdirSync(CACHE, { recursive: true });
  const tgz = execFileSync('npm', ['pack', SPEC_PACKAGE, '--silent', '--pack-destination', CACHE], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .pop() as string;
  execFileSync('tar', ['-xzf', path.join(CACHE, tgz), '-C', CACHE, `package/lib/specs/${SPEC_FILE}.gz`]);
  fs.writeFileSync(file, gunzipSync(fs.readFileSync(path.join(CACHE, 'package', 'lib', 'specs', `${SPEC_FILE}.gz`))));
  return file;
}

/** A worktree of `commit` with its dependencies installed, built like this tree. */
function baselineTree(commit: string): string {
  const dir = path.join(CACHE, `tree-${commit}`);
  if (!fs.existsSync(path.join(dir, 'node_modules'))) {
    if (!fs.existsSync(dir)) execFileSync('git', ['worktree', 'add', '--detach', dir, commit], { stdio: 'inherit' });
    execFileSync('npm', ['ci', '--silent', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit' });
  }
  return dir;
}

function build(dir: string): void {
  execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: dir, stdio: 'inherit' });
}

/** Runs the CLI in `tree` under bash, whose `times` gives the CPU seconds of the command and all its children. */
function timedCli(tree: string, args: string[], env: NodeJS.ProcessEnv): { cpu: number; wall: number; out: string } {
  const outFile = path.join(os.tmpdir(), `cairn-kube-${process.pid}.out`);
  const start = process.hrtime.bigint();
  const res = spawnSync(
    'bash',
    [
      '-c',
      '"$@" >"$CAIRN_BENCH_OUT" 2>&1; rc=$?; times; exit $rc',
      'bash',
      process.execPath,
      'dist/src/cli/main.js',
      ...args,
    ],
    { cwd: tree, env: { ...env, CAIRN_BENCH_OUT: outFile }, encoding: 'utf8' },
  );
  const wall = Number(process.hrtime.bigint() - start) / 1e9;
  const out = fs.existsSync(outFile) ? fs.readFileSync(outFile, 'utf8') : '';
  fs.rmSync(outFile, { force: true });
  if (res.status !== 0)
    throw new Error(`cairn ${args.join(' ')} in ${tree} exited ${res.status}:\n${out.slice(-2000)}`);
  // `times` prints the shell's own times, then its children's: "0m61.230s 0m2.120s".
  const children = res.stdout.trim().split('\n').pop() ?? '';
  const seconds = [...children.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]));
  if (seconds.length !== 2) throw new Error(`unexpected output of times: ${res.stdout}`);
  return { cpu: (seconds[0] as number) + (seconds[1] as number), wall, out };
}

/** One import into a fresh data folder: migrate first (timed apart: a first start's cost), then the import. */
function importOnce(tree: string, label: string, round: number, spec: string, extract: boolean): Run {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-kube-data-'));
  const env = {
    ...process.env,
    CAIRN_DATA_DIR: dataDir,
    CAIRN_EMBEDDING_PROVIDER: 'hashing',
    CAIRN_LOG_LEVEL: 'warn',
  };
  try {
    const load = os.loadavg()[0]?.toFixed(1) ?? '';
    const migrate = timedCli(tree, ['migrate'], env);
    const imported = timedCli(tree, ['import', 'openapi', spec, '--json'], env);
    const summary = JSON.parse(imported.out.trim().split('\n').pop() ?? '{}') as {
      changedDocuments?: number;
      chunkCount?: number;
    };
    const extracted = extract ? timedCli(tree, ['extract', '--all', '--json'], env) : null;
    return {
      tree: label,
      round,
      cpu: imported.cpu,
      wall: imported.wall,
      migrateCpu: migrate.cpu,
      documents: summary.changedDocuments ?? 0,
      chunks: summary.chunkCount ?? 0,
      extractCpu: extracted?.cpu ?? null,
      load: `${load}–${os.loadavg()[0]?.toFixed(1) ?? ''}`,
    };
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};

function report(runs: Run[], baseline: string | undefined): void {
  const f = (n: number) => n.toFixed(1);
  console.log(
    '| tree | round | import CPU s | import wall s | docs/s (wall) | chunks | migrate CPU s | extract CPU s | load |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const r of runs) {
    const docsPerSecond = (r.documents / r.wall).toFixed(2);
    const extract = r.extractCpu === null ? '' : f(r.extractCpu);
    console.log(
      `| ${r.tree} | ${r.round} | ${f(r.cpu)} | ${f(r.wall)} | ${docsPerSecond} | ${r.chunks} | ${f(r.migrateCpu)} | ${extract} | ${r.load} |`,
    );
  }
  const cpuOf = (tree: string) => median(runs.filter((r) => r.tree === tree).map((r) => r.cpu));
  console.log(`\nthis tree: median import CPU ${f(cpuOf('this tree'))} s`);
  if (baseline) {
    const ratio = cpuOf('this tree') / cpuOf(baseline);
    console.log(`baseline ${baseline}: median import CPU ${f(cpuOf(baseline))} s; ratio ${ratio.toFixed(3)}`);
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      spec: { type: 'string' },
      baseline: { type: 'string' },
      rounds: { type: 'string', default: '2' },
      extract: { type: 'boolean', default: false },
    },
  });
  const rounds = Number(values.rounds);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error('--rounds takes a positive integer');
  const spec = specPath(values.spec);
  const trees: [string, string][] = [['this tree', projectPath()]];
  if (values.baseline) trees.push([values.baseline, baselineTree(values.baseline)]);
  for (const [, dir] of trees) build(dir);
  console.log(`spec ${spec}; ${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}), Node ${process.version}`);
  const runs: Run[] = [];
  for (let round = 1; round <= rounds; round++) {
    // Alternate which tree goes first, so neither always meets the same minute's load.
    const order = round % 2 ? trees : [...trees].reverse();
    for (const [label, dir] of order) {
      const run = importOnce(dir, label, round, spec, values.extract && label === 'this tree');
      runs.push(run);
      console.error(`${label} round ${round}: ${run.cpu.toFixed(1)} s CPU, ${run.wall.toFixed(1)} s wall`);
    }
  }
  report(runs, values.baseline);
}

await main();
