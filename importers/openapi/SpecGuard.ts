import { KeyedLock, type Db, type ImportDocuments, type ImportGraph } from '../../src/importerPort.js';
import type { JsonObject } from '../../src/shared/json.js';
import { AppError, ErrorCode } from '../../src/errors.js';
import { specIds } from './ids.js';
import {
  describeOrigin,
  originConflict,
  type SpecIdentity,
  type SpecImportPlan,
  type SpecOrigin,
  type StoredSpec,
} from './specOrigin.js';

/** Where the guard reads what is stored about a spec. */
export interface SpecGuardDeps {
  documents: ImportDocuments;
  graph: ImportGraph;
}

/** Advisory-lock space of spec ids (see KeyedLock). */
const SPEC_LOCK_SPACE = 0x5350;

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];

function storedOrigin(value: unknown): SpecOrigin | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const o = value as JsonObject;
  if (o.kind === 'url' && typeof o.url === 'string') return { kind: 'url', url: o.url };
  if (o.kind === 'file' && typeof o.file === 'string') return { kind: 'file', file: o.file };
  if (o.kind === 'content') return { kind: 'content' };
  return undefined;
}

/** What is stored about the spec under `specId`, or undefined when no spec holds it. */
export async function readStoredSpec(specId: string, deps: SpecGuardDeps): Promise<StoredSpec | undefined> {
  const ids = specIds(specId);
  const [[overview], [api]] = await Promise.all([
    deps.documents.findByIds([ids.overviewDocument]),
    deps.graph.getEntities([ids.api]),
  ]);
  if (!overview && !api) return undefined;
  const metadata = overview?.metadata ?? {};
  const origin = storedOrigin(metadata.origin);
  const infoTitle = typeof metadata.infoTitle === 'string' ? metadata.infoTitle : undefined;
  const title = overview?.title ?? api?.name ?? specId;
  const stored: StoredSpec = {
    title,
    titles: infoTitle !== undefined ? [infoTitle] : [title, ...(api ? [api.name, ...api.aliases] : [])],
    source: overview?.source ?? null,
    sourceUrl: typeof api?.properties.source === 'string' ? api.properties.source : null,
    operationDocumentIds: await deps.documents.idsWithPrefix(ids.documentPrefix),
  };
  if (origin) stored.origin = origin;
  if (Array.isArray(metadata.serverHosts)) stored.serverHosts = strings(metadata.serverHosts);
  return stored;
}

/** The CONFLICT a spec gets when its derived id belongs to another spec: names that spec and the ways forward. */
export function specIdTaken(incoming: SpecIdentity, stored: StoredSpec, reason: string): AppError {
  const id = incoming.specId;
  return new AppError(
    ErrorCode.CONFLICT,
    `spec id "${id}" already belongs to the spec "${stored.title}" (${describeOrigin(stored.origin, stored.source)}), and this spec "${incoming.title}" ` +
      `is a different one: ${reason}. Nothing was written. To keep both, import this one with a specId of its own ` +
      `(e.g. specId: "${id}-2", or --spec-id on the command line); to update "${stored.title}", re-import it from the same source, ` +
      `or pass specId: "${id}" to replace it on purpose.`,
    { specId: id, existingTitle: stored.title, existingSource: stored.source },
  );
}

/**
 * Lets a spec's plan be written only by the spec that owns its id: an id derived from a title or file name that a
 * spec from elsewhere already holds is refused (CONFLICT) before anything is written, where writing would replace
 * that spec's documents and delete its graph. Writes of one spec id take turns across every instance sharing the
 * database (a Postgres advisory lock, held from the check to the last batch), so two imports cannot both pass the
 * check and then overwrite each other.
 */
export class SpecGuard {
  private readonly lock: KeyedLock;

  constructor(
    db: Db,
    private readonly deps: SpecGuardDeps,
  ) {
    this.lock = new KeyedLock(db, SPEC_LOCK_SPACE);
  }

  /** Checks the plan's spec (if any) against the stored one and runs `write` while holding its spec id. */
  async write<T>(plan: SpecImportPlan, write: () => Promise<T>): Promise<T> {
    const spec = plan.spec;
    if (!spec) return write();
    return this.lock.run(spec.specId, async () => {
      if (!spec.explicit) await this.check(spec);
      return write();
    });
  }

  /** Throws CONFLICT when a different spec holds `spec.specId`. */
  async check(spec: SpecIdentity): Promise<void> {
    const stored = await readStoredSpec(spec.specId, this.deps);
    if (!stored) return;
    const reason = originConflict(stored, spec);
    if (reason) throw specIdTaken(spec, stored, reason);
  }
}
