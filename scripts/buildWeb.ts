// Bundles the admin pages (web/<app>/main.ts[x] + index.html) into web/dist/<app>/ with esbuild; `npm start` runs it.
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { projectRoot } from '../src/paths.js';

const APPS = ['explorer', 'knowledge', 'graphiql'];
const webDir = path.join(projectRoot, 'web');
const outDir = path.join(webDir, 'dist');

fs.rmSync(outDir, { recursive: true, force: true });
for (const app of APPS) {
  const dir = path.join(webDir, app);
  const entry = ['main.tsx', 'main.ts'].map((f) => path.join(dir, f)).find((f) => fs.existsSync(f));
  if (!entry) throw new Error(`web/${app} has no main.ts or main.tsx`);
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
    define: { 'process.env.NODE_ENV': '"production"' },
    jsx: 'automatic',
    logLevel: 'warning',
  });
  fs.copyFileSync(path.join(dir, 'index.html'), path.join(outDir, app, 'index.html'));
}
console.log(`built ${APPS.join(', ')} into ${path.relative(projectRoot, outDir)}/`);
