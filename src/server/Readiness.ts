import type { Db } from '../db/Db.js';
import { pendingMigrations } from '../db/migrate.js';
import { describeEmbedder, type EmbeddingProvider } from '../embeddings/EmbeddingProvider.js';

/** The state of one dependency. */
export interface ComponentStatus {
  ok: boolean;
  detail?: string;
  /** How to fix it, when not ok. */
  fix?: string;
  /** Something degraded that does not make the instance unready (a read replica out of service). */
  warning?: string;
}

/** What `/readyz` reports. */
export interface ReadinessReport {
  ready: boolean;
  components: Record<string, ComponentStatus>;
}

// Embedder checks may call a remote API: cache the answer briefly so probes don't hammer it.
const EMBEDDER_CHECK_TTL_MS = 10_000;

/** Checks the database, migrations and embedder for `/readyz`. */
export class Readiness {
  private embedderCheck: { at: number; status: ComponentStatus } | undefined;

  constructor(
    private readonly db: Db,
    private readonly embedder: EmbeddingProvider,
    private readonly extra: Record<string, () => Promise<ComponentStatus>> = {},
  ) {}

  /** Adds a named check (e.g. the graph store). */
  register(name: string, check: () => Promise<ComponentStatus>): void {
    this.extra[name] = check;
  }

  /** Runs every check concurrently. */
  async check(): Promise<ReadinessReport> {
    const entries = await Promise.all([
      this.guard('database', () => this.checkDatabase()),
      this.guard('migrations', () => this.checkMigrations()),
      this.guard('embedder', () => this.checkEmbedder()),
      ...Object.entries(this.extra).map(([name, fn]) => this.guard(name, fn)),
    ]);
    const components = Object.fromEntries(entries);
    return { ready: Object.values(components).every((c) => c.ok), components };
  }

  private async guard(name: string, fn: () => Promise<ComponentStatus>): Promise<[string, ComponentStatus]> {
    try {
      return [name, await fn()];
    } catch (err) {
      return [name, { ok: false, detail: (err as Error).message }];
    }
  }

  private async checkDatabase(): Promise<ComponentStatus> {
    try {
      await this.db.query('SELECT 1');
      return { ok: true, detail: this.db.kind };
    } catch (err) {
      return {
        ok: false,
        detail: `${this.db.kind} unreachable: ${(err as Error).message}`,
        fix:
          this.db.kind === 'postgres'
            ? 'check CAIRN_DATABASE_URL and that the server is running'
            : 'check CAIRN_DATA_DIR is writable',
      };
    }
  }

  private async checkMigrations(): Promise<ComponentStatus> {
    const pending = await pendingMigrations(this.db);
    if (pending.length === 0) return { ok: true };
    return { ok: false, detail: `pending: ${pending.join(', ')}`, fix: 'restart Cairn so it applies its migrations' };
  }

  private async checkEmbedder(): Promise<ComponentStatus> {
    const now = Date.now();
    if (this.embedderCheck && now - this.embedderCheck.at < EMBEDDER_CHECK_TTL_MS) return this.embedderCheck.status;
    let status: ComponentStatus;
    try {
      await this.embedder.ready();
      status = { ok: true, detail: describeEmbedder(this.embedder.info) };
    } catch (err) {
      status = {
        ok: false,
        detail: (err as Error).message,
        fix: 'see the detail; or set CAIRN_EMBEDDING_PROVIDER=hashing to run offline',
      };
    }
    this.embedderCheck = { at: now, status };
    return status;
  }
}
