import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';

// One owner per table (docs/architecture.md#tables-and-their-owners): only the owner's files name a table in SQL.
// The owners come from the documentation's table, so the page and the code cannot drift apart.

const root = path.resolve(import.meta.dirname, '../../..');

/** table → owner folder, from the "Tables and their owners" table of docs/architecture.md. */
export function documentedOwners(markdown: string): Map<string, string> {
  const section = markdown.split(/^## /m).find((s) => s.startsWith('Tables and their owners')) ?? '';
  const owners = new Map<string, string>();
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 4 || !cells[1]?.startsWith('`')) continue;
    const owner = /`([^`]+)`/.exec(cells[2] ?? '')?.[1];
    for (const [, table] of (cells[1] ?? '').matchAll(/`([a-z_]+)`/g)) if (table && owner) owners.set(table, owner);
  }
  return owners;
}

/** Each `table` named by a statement verb in `source`, with its line number. */
export function tablesNamed(source: string): { table: string; line: number }[] {
  const out: { table: string; line: number }[] = [];
  source.split('\n').forEach((text, i) => {
    for (const m of text.matchAll(/\b(?:FROM|JOIN|UPDATE|INSERT INTO|DELETE FROM)\s+([a-z_]+)\b/g))
      out.push({ table: m[1] as string, line: i + 1 });
  });
  return out;
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return rel === 'src/graphql/generated' ? [] : sourceFiles(rel);
    return e.name.endsWith('.ts') ? [rel] : [];
  });
}

/** Tables created by the migrations, or by code (the migrations' own table, PGlite's vector change log). */
function createdTables(): Set<string> {
  const dir = 'src/db/migrations';
  const files = [
    ...fs.readdirSync(path.join(root, dir)).map((f) => `${dir}/${f}`),
    ...sourceFiles('src'),
    ...sourceFiles('importers'),
  ];
  const tables = new Set<string>();
  for (const f of files)
    for (const [, t] of fs
      .readFileSync(path.join(root, f), 'utf8')
      .matchAll(/CREATE TABLE (?:IF NOT EXISTS )?([a-z_]+)/g))
      tables.add(t as string);
  return tables;
}

describe('table owners', () => {
  const owners = documentedOwners(fs.readFileSync(path.join(root, 'docs/architecture.md'), 'utf8'));

  it('documents an owner for every table the migrations or the code create, and no other', () => {
    expect([...owners.keys()].sort()).toEqual([...createdTables()].sort());
  });

  it('names each table in SQL only inside its owner', () => {
    const strays: string[] = [];
    for (const file of [...sourceFiles('src'), ...sourceFiles('importers')]) {
      for (const { table, line } of tablesNamed(fs.readFileSync(path.join(root, file), 'utf8'))) {
        const owner = owners.get(table);
        if (owner !== undefined && !file.startsWith(owner))
          strays.push(`${file}:${line} names ${table} (owner ${owner})`);
      }
    }
    expect(strays).toEqual([]);
  });

  it('reads owners from the table and finds tables behind every statement verb', () => {
    const page =
      '## Tables and their owners\n\n| table | owner | how |\n| --- | --- | --- |\n| `a`, `b_c` | `src/x/` | `X` |\n\n## Next\n| `z` | `src/z/` | |\n';
    expect([...documentedOwners(page)]).toEqual([
      ['a', 'src/x/'],
      ['b_c', 'src/x/'],
    ]);
    const sql = 'SELECT 1 FROM a JOIN b ON true\nUPDATE c SET x = 1; INSERT INTO d VALUES (1); DELETE FROM e';
    expect(tablesNamed(sql).map((t) => `${t.table}@${t.line}`)).toEqual(['a@1', 'b@1', 'c@2', 'd@2', 'e@2']);
  });
});
