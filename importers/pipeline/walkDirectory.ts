import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { SUPPORTED_FILE_EXTENSIONS } from '../files/detectFileFormat.js';

const SKIPPED_FOLDERS = new Set(['node_modules']);

/** Lists importable files under `root` (relative, `/`-separated, sorted), skipping hidden entries and node_modules. */
export async function walkDirectory(root: string, limit = 100_000): Promise<string[]> {
  const found: string[] = [];
  const extensions = new Set(SUPPORTED_FILE_EXTENSIONS.map((e) => e.toLowerCase()));
  const visit = async (relative: string): Promise<void> => {
    const entries = await readdir(path.join(root, relative), { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const child = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!SKIPPED_FOLDERS.has(entry.name)) await visit(child);
      } else if (entry.isFile() && extensions.has(path.extname(entry.name).toLowerCase())) {
        if (found.length >= limit) throw new Error(`more than ${limit} files under ${root}`);
        found.push(child);
      }
    }
  };
  await visit('');
  return found;
}
