// Runs the checks `npm test` makes before Jest (the npm scripts named on the command line) side by side, as many at
// once as the machine has cores (at least two: most of each check is waiting on a single thread), and prints each one's
// output as a block once it ends. Exits non-zero when any failed, naming them; the others still run to the end, so one
// run reports every failing check.
import { spawn } from 'node:child_process';
import os from 'node:os';

const scripts = process.argv.slice(2);
const slots = Math.max(2, os.availableParallelism());
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Runs `npm run <script>`, resolving with its exit code, seconds and combined output. */
function run(script) {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(npm, ['run', '--silent', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (code) =>
      resolve({ script, code: code ?? 1, output, seconds: (performance.now() - started) / 1000 }),
    );
  });
}

const queue = [...scripts];
const failed = [];
async function worker() {
  for (let script = queue.shift(); script !== undefined; script = queue.shift()) {
    const { code, output, seconds } = await run(script);
    const verdict = code === 0 ? 'ok' : `FAILED (exit ${code})`;
    process.stdout.write(`== ${script}: ${verdict} in ${seconds.toFixed(1)} s\n${output}`);
    if (code !== 0) failed.push(script);
  }
}
await Promise.all(Array.from({ length: Math.min(slots, scripts.length) }, worker));
if (failed.length > 0) {
  process.stdout.write(`== checks failed: ${failed.join(', ')}\n`);
  process.exit(1);
}
