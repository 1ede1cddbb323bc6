import fs from 'node:fs';
import path from 'node:path';
import express, { type Express, type Request, type Response } from 'express';
import type { ApolloServerPlugin } from '@apollo/server';
import { projectPath } from '../paths.js';

/** Where `npm run build:web` puts the bundled admin pages. */
export const WEB_DIST = projectPath('web', 'dist');

// Pages the same server serves; each is a single-page app with its own bundle.
const PAGES: { route: string | RegExp; app: string }[] = [
  { route: '/explorer', app: 'explorer' },
  { route: /^\/knowledge(\/.*)?$/, app: 'knowledge' },
  { route: '/graphiql', app: 'graphiql' },
];

// The pages render imported text: no inline scripts, no third-party origins, no framing.
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

function sendPage(app: string) {
  return (_req: Request, res: Response): void => {
    const file = path.join(WEB_DIST, app, 'index.html');
    if (!fs.existsSync(file)) {
      res
        .status(503)
        .type('text/plain')
        .send(`The admin pages are not built: run \`npm run build:web\` (npm start does it).`);
      return;
    }
    res.setHeader('content-security-policy', CSP);
    res.setHeader('x-content-type-options', 'nosniff');
    res.setHeader('cache-control', 'no-cache');
    res.sendFile(file);
  };
}

/** Serves the explorer, knowledge pages and GraphiQL, with their bundles under /assets/<app>/. */
export function mountWebAssets(app: Express): void {
  app.use('/assets', express.static(WEB_DIST, { index: false, maxAge: '1h' }));
  // A plain 404: express's default error page would print the file system path.
  app.use('/assets', (_req, res) => {
    res.status(404).type('text/plain').send('not found');
  });
  for (const page of PAGES) app.get(page.route, sendPage(page.app));
  app.get('/', (_req, res) => res.redirect('/knowledge'));
}

/** Apollo's landing page (GET /graphql from a browser): links to the local GraphiQL and the admin pages, no CDN. */
export function landingPagePlugin(): ApolloServerPlugin {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Cairn GraphQL</title>
<style>body{font:16px system-ui,sans-serif;max-width:40rem;margin:4rem auto;color:#1f2933}a{color:#1a56db}</style></head>
<body><h1>Cairn GraphQL API</h1><p>POST GraphQL operations to this URL.</p>
<ul><li><a href="/graphiql">GraphiQL playground</a> (works offline)</li><li><a href="/explorer">Graph explorer</a></li>
<li><a href="/knowledge">Knowledge pages</a></li></ul></body></html>`;
  return {
    async serverWillStart() {
      return {
        async renderLandingPage() {
          return { html };
        },
      };
    },
  };
}
