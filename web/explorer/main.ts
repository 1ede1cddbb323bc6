// Entry point of /explorer: builds the app, binds the toolbar and opens what the URL asks for.
import '../shared/topbar.css';
import './styles.css';
import { App } from './App.js';
import { byId } from './dom.js';
import { exportVisible } from './exportGraph.js';
import { setupSearch } from './search.js';
import { runLayoutWorker } from './WorkerLayout.js';
import { installStatsHook } from './stats.js';

function intParam(value: string | null, fallback: number, min: number, max: number): number {
  const n = Number.parseInt(value ?? '', 10);
  return Number.isFinite(n) ? Math.min(max, Math.max(min, n)) : fallback;
}

async function main(): Promise<void> {
  const app = new App({
    canvas: byId<HTMLCanvasElement>('graph'),
    panel: byId('panel'),
    legend: byId('legend'),
    gaps: byId('gaps'),
    pathbar: byId('pathbar'),
    status: byId('status'),
  });
  installStatsHook(app);
  setupSearch(
    byId<HTMLInputElement>('search-input'),
    byId<HTMLUListElement>('search-results'),
    app.colors,
    (id) => void app.open(id),
  );

  const depth = byId<HTMLSelectElement>('load-depth');
  const limit = byId<HTMLInputElement>('load-limit');
  byId('new-entity').addEventListener('click', () => app.editor.newEntity());
  byId('empty-new-entity').addEventListener('click', () => app.editor.newEntity());
  byId('export-json').addEventListener('click', () => exportVisible(app.model, app.view, 'json'));
  byId('export-graphml').addEventListener('click', () => exportVisible(app.model, app.view, 'graphml'));
  byId('fit').addEventListener('click', () => app.fit());
  byId('unpin-all').addEventListener('click', () => app.unpinAll());
  byId('overview').addEventListener(
    'click',
    () => void app.overview(intParam(depth.value, 1, 1, 3), intParam(limit.value, 300, 1, 2000)),
  );
  const gapsToggle = byId('gaps-toggle');
  gapsToggle.addEventListener('click', () => {
    if (app.gaps.open) app.gaps.hide();
    else
      void app.gaps
        .show()
        .catch((e: unknown) => app.status(`Gaps failed: ${e instanceof Error ? e.message : String(e)}`, true));
    gapsToggle.setAttribute('aria-expanded', String(app.gaps.open));
  });

  // ?entity=<id>[&depth=1-3][&limit=1-2000] opens around an entity; without it, the most connected entities.
  const params = new URLSearchParams(window.location.search);
  const entity = params.get('entity');
  await app.loadStats();
  // Edit controls show only to keys that may write (the server checks every write anyway).
  void app.editor.loadRole().then(() => {
    byId('new-entity').hidden = !app.editor.canEdit;
    byId('empty-new-entity').hidden = !app.editor.canEdit;
    document.body.dataset.editRole = app.editor.role;
    app.refresh();
  });
  if (entity) {
    const d = intParam(params.get('depth'), 1, 1, 3);
    await app.open(entity, d, intParam(params.get('limit'), d === 1 ? 101 : 2000, 1, 2000));
  } else {
    await app.overview(1, 300);
  }
}

// The same bundle runs as the layout worker (see WorkerLayout.ts): there is no document in a worker.
if (typeof document === 'undefined') runLayoutWorker();
else void main();
