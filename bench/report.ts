import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { projectRoot } from '../src/paths.js';

/** A titled table of results. */
export interface Table {
  title: string;
  headers: string[];
  rows: (string | number)[][];
  notes?: string[];
}

const fmt = (v: string | number) =>
  typeof v === 'number' ? (Number.isInteger(v) ? String(v) : v.toFixed(v < 10 ? 3 : 1)) : v;

/** Renders a table as GitHub markdown. */
export function toMarkdown(t: Table): string {
  const lines = [`### ${t.title}`, '', `| ${t.headers.join(' | ')} |`, `| ${t.headers.map(() => '---').join(' | ')} |`];
  for (const r of t.rows) lines.push(`| ${r.map(fmt).join(' | ')} |`);
  if (t.notes?.length) lines.push('', ...t.notes.map((n) => `- ${n}`));
  return lines.join('\n');
}

/** Describes the machine the figures were taken on. */
export function machineLine(): string {
  return `${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown cpu'}), ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB RAM, Node ${process.version}`;
}

/** Prints tables and writes them to bench/RESULTS.md, keeping tables from earlier partial runs (`--only`) that this run did not redo. */
export function publish(tables: Table[], file = path.join(projectRoot, 'bench', 'RESULTS.md')): void {
  const fresh = tables.map(toMarkdown).join('\n\n');
  console.log(`\n${fresh}\n`);
  const titles = new Set(tables.map((t) => t.title));
  const kept = fs.existsSync(file)
    ? fs
        .readFileSync(file, 'utf8')
        .split(/^(?=### )/m)
        .slice(1)
        .filter((section) => !titles.has(section.split('\n')[0]?.slice(4) ?? ''))
        .map((s) => s.trimEnd())
    : [];
  const body = [...kept, fresh].join('\n\n');
  const header = `# Benchmark results\n\nLast run: ${new Date().toISOString()} on ${machineLine()}.\nProduced by \`npm run bench\`; see bench/README.md for what each figure means.\n\n`;
  fs.writeFileSync(file, `${header}${body}\n`);
  console.log(`wrote ${path.relative(projectRoot, file)}`);
}
