/** Prints progress: a redrawn bar on a terminal, one NDJSON line per update with `json`, else sparse lines. */
export function progressReporter(unit: string, json: boolean): (p: { done: number; total: number }) => void {
  const tty = process.stderr.isTTY && !json;
  let lastLogged = -1;
  return ({ done, total }) => {
    if (json) {
      process.stdout.write(`${JSON.stringify({ event: 'progress', unit, done, total })}\n`);
      return;
    }
    const pct = total === 0 ? 100 : Math.floor((done / total) * 100);
    if (tty) {
      const width = 30;
      const filled = Math.round((pct / 100) * width);
      process.stderr.write(`\r[${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${pct}% ${done}/${total} ${unit}`);
    } else if (pct >= lastLogged + 10 || done === total) {
      lastLogged = pct;
      process.stderr.write(`${done}/${total} ${unit} (${pct}%)\n`);
    }
  };
}
