// Bundles the admin pages (web/<app>/main.ts[x] + index.html) into web/dist/<app>/ with esbuild; `npm start` runs it.
// `tsx scripts/buildWeb.ts knowledge graphiql` rebuilds only the named apps and leaves the others' output alone.
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { projectRoot } from '../src/paths.js';

const APPS = ['explorer', 'knowledge', 'graphiql'];
const webDir = path.join(projectRoot, 'web');
const outDir = path.join(webDir, 'dist');

const requested = process.argv.slice(2);
const unknown = requested.filter((a) => !APPS.includes(a));
if (unknown.length > 0) throw new Error(`unknown web app(s): ${unknown.join(', ')} (known: ${APPS.join(', ')})`);
const apps = requested.length > 0 ? requested : APPS;

if (requested.length === 0) fs.rmSync(outDir, { recursive: true, force: true });
for (const app of apps) {
  const dir = path.join(webDir, app);
  const entry = ['main.tsx', 'main.ts'].map((f) => path.join(dir, f)).find((f) => fs.existsSync(f));
  if (!entry) throw new Error(`web/${app} has no main.ts or main.tsx`);
  fs.rmSync(path.join(outDir, app), { recursive: true, force: true });
  await build({
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    splitting: false,
    minify: true,
    sourcemap: true,
    target: ['chrome110', 'firefox110', 'safari16'],
    outdir: path.join(outDir, app),
    entryNames: 'main',
    loader: { '.svg': 'dataurl', '.woff': 'file', '.woff2': 'file', '.ttf': 'file' },
    // Hashed font/image files land next to main.js, under /assets/<app>/, never on a CDN.
    assetNames: '[name]-[hash]',
    // GraphiQL's toolkit imports graphql-ws lazily, for subscriptions; the GraphiQL page sends every operation over
    // HTTP, so it stays out of that bundle. The knowledge page bundles graphql-ws's client for its live sources.
    external: app === 'graphiql' ? ['graphql-ws'] : [],
    define: { 'process.env.NODE_ENV': '"production"' },
    jsx: 'automatic',
    logLevel: 'warning',
  });
  fs.copyFileSync(path.join(dir, 'index.html'), path.join(outDir, app, 'index.html'));
}
console.log(`built ${apps.join(', ')} into ${path.relative(projectRoot, outDir)}/`);
