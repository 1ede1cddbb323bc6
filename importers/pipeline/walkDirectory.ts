import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { SUPPORTED_FILE_EXTENSIONS } from '../files/detectFileFormat.js';

const SKIPPED_FOLDERS = new Set(['node_modules']);

/** A file a folder import leaves out, and why (in words a reader acts on). */
export interface SkippedFile {
  /** Relative to the folder, `/`-separated. */
  path: string;
  /** Why, in words the reader acts on: `Cairn imports text, not images`. */
  reason: string;
}

/** What a folder holds for an import: the files to import and those left out. */
export interface DirectoryScan {
  files: string[];
  skipped: SkippedFile[];
}

const IMAGES = new Set(['.png', '.jpg', '.jpeg', '.gif', '.svg', '.webp', '.bmp', '.ico', '.tif', '.tiff', '.avif']);
const DIAGRAMS = new Set(['.drawio', '.dio', '.vsdx', '.excalidraw']);

/** Why a file of this name is not imported. */
function whySkipped(name: string): string {
  const extension = path.extname(name).toLowerCase();
  if (IMAGES.has(extension)) return 'Cairn imports text, not images';
  if (DIAGRAMS.has(extension)) return 'no importer reads diagram files; describe the diagram in a markdown file';
  if (extension === '') return 'no extension, so the format is unknown';
  return `${extension} is not a format Cairn imports (it imports md, txt, rst, html, pdf, docx, yaml and json)`;
}

/**
 * How an import reports a file of this relative path it does not read, or undefined for a file that is never content
 * (hidden, or under node_modules), which is left out without a word.
 */
export function skippedFile(relative: string): SkippedFile | undefined {
  const segments = relative.split('/');
  if (segments.some((s) => s.startsWith('.') || SKIPPED_FOLDERS.has(s))) return undefined;
  return { path: relative, reason: whySkipped(segments.at(-1) ?? relative) };
}

/**
 * Lists the importable files under `root` (relative, `/`-separated, sorted) and the other files, with why they are
 * left out. Hidden entries and node_modules are skipped without a word: they are never content.
 */
export async function scanDirectory(root: string, limit = 100_000): Promise<DirectoryScan> {
  const found: string[] = [];
  const skipped: SkippedFile[] = [];
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
      } else if (entry.isFile() && skipped.length < limit) {
        skipped.push({ path: child, reason: whySkipped(entry.name) });
      }
    }
  };
  await visit('');
  return { files: found, skipped };
}

/** Lists importable files under `root` (relative, `/`-separated, sorted), skipping hidden entries and node_modules. */
export async function walkDirectory(root: string, limit = 100_000): Promise<string[]> {
  return (await scanDirectory(root, limit)).files;
}

/** Names listed per reason before "and N more". */
const NAMES_SHOWN = 10;

/** One line per reason: `skipped 2 files: logo.png, docs/arch.svg (Cairn imports text, not images)`. */
export function skippedFileWarnings(skipped: readonly SkippedFile[]): string[] {
  const byReason = new Map<string, string[]>();
  for (const s of skipped) byReason.set(s.reason, [...(byReason.get(s.reason) ?? []), s.path]);
  return [...byReason].map(([reason, paths]) => {
    const shown = paths.slice(0, NAMES_SHOWN).join(', ');
    const more = paths.length > NAMES_SHOWN ? ` and ${paths.length - NAMES_SHOWN} more` : '';
    return `skipped ${paths.length} file${paths.length === 1 ? '' : 's'}: ${shown}${more} (${reason})`;
  });
}
