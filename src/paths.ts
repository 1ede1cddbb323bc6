import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// Sources run from src/ (tests, tsx) and from dist/src/ (npm start): find the package root either way.
function findRoot(start: string): string {
  let dir = start;
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`package.json not found above ${start}`);
    dir = parent;
  }
  return dir;
}

/** Absolute path of the Cairn package root. */
export const projectRoot = findRoot(path.dirname(fileURLToPath(import.meta.url)));

/** Absolute path of a file inside the package. */
export function projectPath(...parts: string[]): string {
  return path.join(projectRoot, ...parts);
}
