import { readFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';

/** What a route answers: a body with a content type, a redirect, or a handler of its own. */
export type Route =
  | { body: string | Buffer; type: string; status?: number; delayMs?: number }
  | { redirect: string; status?: number }
  | ((req: http.IncomingMessage, res: http.ServerResponse) => void);

/** A real HTTP server on 127.0.0.1 whose routes tests can change, counting the requests each path gets. */
export interface FixtureSite {
  url: string;
  /** Base URL using the host name `localhost` (same server). */
  localhostUrl: string;
  routes: Map<string, Route>;
  hits: Map<string, number>;
  close(): Promise<void>;
}

/** A route that answers only once the test releases it, and tells the test when its request has arrived. */
export interface HeldRoute {
  route: Route;
  /** Resolves when the first request for the route arrives. */
  requested: Promise<void>;
  /** Sends the answer to every request held so far and answers later ones at once. */
  release(): void;
}

/** Holds requests for `answer` until `release()`: a test acts while a fetch is in flight, without racing a delay. */
export function heldRoute(answer: { body: string | Buffer; type: string; status?: number }): HeldRoute {
  let arrived!: () => void;
  const requested = new Promise<void>((resolve) => (arrived = resolve));
  let released = false;
  const held: http.ServerResponse[] = [];
  const send = (res: http.ServerResponse) =>
    res.writeHead(answer.status ?? 200, { 'content-type': answer.type }).end(answer.body);
  return {
    route: (_req, res) => {
      arrived();
      if (released) send(res);
      else held.push(res);
    },
    requested,
    release() {
      released = true;
      held.splice(0).forEach(send);
    },
  };
}

/** Starts a fixture site; unknown paths answer 404. */
export async function startFixtureSite(initial: Record<string, Route> = {}): Promise<FixtureSite> {
  const routes = new Map(Object.entries(initial));
  const hits = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] as string;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const route = routes.get(path);
    if (!route) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    } else if (typeof route === 'function') {
      route(req, res);
    } else if ('redirect' in route) {
      res.writeHead(route.status ?? 302, { location: route.redirect }).end();
    } else {
      const send = () => res.writeHead(route.status ?? 200, { 'content-type': route.type }).end(route.body);
      if (route.delayMs) setTimeout(send, route.delayMs);
      else send();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    localhostUrl: `http://localhost:${port}`,
    routes,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Serves the files under `root` read-only on 127.0.0.1 (404 for anything else), counting requests per path. */
export async function startFolderSite(root: string): Promise<FixtureSite> {
  const site = await startFixtureSite();
  const base = path.resolve(root);
  const server = http.createServer((req, res) => {
    const pathname = decodeURIComponent((req.url ?? '/').split('?')[0] as string);
    site.hits.set(pathname, (site.hits.get(pathname) ?? 0) + 1);
    const file = path.resolve(base, `.${pathname}`);
    if (!file.startsWith(`${base}${path.sep}`)) return void res.writeHead(404).end();
    readFile(file).then(
      (body) => res.writeHead(200, { 'content-type': 'application/yaml' }).end(body),
      () => res.writeHead(404, { 'content-type': 'text/plain' }).end('not found'),
    );
  });
  await site.close();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    ...site,
    url: `http://127.0.0.1:${port}`,
    localhostUrl: `http://localhost:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
