// Runs `npm test`'s Jest projects (jest.config.js): `parallel` on every core beside `neo4j` on one worker (only that
// project touches the Neo4j server), then `timed` alone, since it measures time. The parallel run streams its output;
// the neo4j run's output is printed as one block when it ends. Every run goes to the end, so one `npm test` reports
// every failing suite; exits non-zero when any run failed, naming it. Extra arguments go to every run.
import { spawn } from 'node:child_process';

const extra = process.argv.slice(2);
const jest = ['--experimental-vm-modules', '--no-warnings', 'node_modules/jest/bin/jest.js'];

/** Runs one Jest project, resolving with its exit code and, unless it streams, its combined output. */
function run(project, workers, stream) {
  const args = [...jest, '--selectProjects', project, `--maxWorkers=${workers}`, ...extra];
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

const [parallel, neo4j] = await Promise.all([run('parallel', 2, true), run('neo4j', 1, false)]);
report(parallel);
report(neo4j);
report(await run('timed', 1, true));
if (failed.length > 0) {
  process.stdout.write(`== jest failed: ${failed.join(', ')}\n`);
  process.exit(1);
}
