// Runs `npm test`'s Jest projects (jest.config.js): `parallel` on every core beside `neo4j` and then `browser` on one
// worker (only `neo4j` touches the Neo4j server; one headless chromium at a time), then `timed` alone, since it
// measures time. The parallel run streams its output; the others' output is printed as one block when each ends.
// Every run goes to the end, so one `npm test` reports every failing suite; exits non-zero when any run failed,
// naming it. Extra arguments go to every run.
import { spawn } from 'node:child_process';

const extra = process.argv.slice(2);
const jest = ['--experimental-vm-modules', '--no-warnings', 'node_modules/jest/bin/jest.js'];
// PGlite's WebAssembly on V8's baseline compiler only (its workers inherit the flag), as test/helpers/cli.ts runs the
// CLI: each suite loads PGlite anew and lives too short to win back what optimizing its hot functions costs. The
// timed project keeps the default, since it measures PGlite's speed.
const liftoffOnly = ['--liftoff-only'];

/** Runs one Jest project, resolving with its exit code and, unless it streams, its combined output. */
function run(project, workers, stream, node = liftoffOnly) {
  const args = [...node, ...jest, '--selectProjects', project, `--maxWorkers=${workers}`, ...extra];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, {
      stdio: ['ignore', stream ? 'inherit' : 'pipe', stream ? 'inherit' : 'pipe'],
    });
    let output = '';
    child.stdout?.on('data', (d) => (output += d));
    child.stderr?.on('data', (d) => (output += d));
    child.on('close', (code) => resolve({ project, code: code ?? 1, output }));
  });
}

// The global setup once, before the runs that would otherwise each rebuild the CLI while the other's tests run it.
await (await import('../test/globalSetup.mjs')).default({ rootDir: process.cwd() });
process.env.CAIRN_TEST_PREPARED = '1';

const failed = [];
function report({ project, code, output }) {
  if (output) process.stdout.write(`== jest ${project}\n${output}`);
  process.stdout.write(`== jest ${project}: ${code === 0 ? 'ok' : `FAILED (exit ${code})`}\n`);
  if (code !== 0) failed.push(project);
}

// The browser suites follow the neo4j ones on that one worker: both finish well before the parallel project.
const serial = async () => [await run('neo4j', 1, false), await run('browser', 1, false)];
const [parallel, [neo4j, browser]] = await Promise.all([run('parallel', 2, true), serial()]);
report(parallel);
report(neo4j);
report(browser);
report(await run('timed', 1, true, []));
if (failed.length > 0) {
  process.stdout.write(`== jest failed: ${failed.join(', ')}\n`);
  process.exit(1);
}
