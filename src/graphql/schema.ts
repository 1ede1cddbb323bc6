import fs from 'node:fs';
import { projectPath } from '../paths.js';

/** The SDL, read from schema.graphql (the source of truth). */
export function loadTypeDefs(): string {
  return fs.readFileSync(projectPath('schema.graphql'), 'utf8');
}
