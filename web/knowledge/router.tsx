// A tiny history-API router: /knowledge is the dashboard, /knowledge/<url-encoded id> a document.
import { useEffect, useState, type AnchorHTMLAttributes, type MouseEvent } from 'react';

const BASE = '/knowledge';
const CHANGE = 'cairn:navigate';

/** Where the app is: the dashboard with its query string, or one document. */
export type Route = { page: 'dashboard'; params: URLSearchParams } | { page: 'document'; id: string };

/** The URL of a document's inspector (ids contain `:` and `/`, so they are encoded). */
export function documentHref(id: string): string {
  return `${BASE}/${encodeURIComponent(id)}`;
}

/** The dashboard URL with these table filters (empty values left out). */
export function dashboardHref(params: Record<string, string | undefined> = {}): string {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v) qs.set(k, v);
  const s = qs.toString();
  return s ? `${BASE}?${s}` : BASE;
}

/** The explorer centred on an entity. */
export function explorerHref(entityId: string): string {
  return `/explorer?entity=${encodeURIComponent(entityId)}`;
}

function parse(loc: Location): Route {
  const rest = loc.pathname.startsWith(`${BASE}/`) ? loc.pathname.slice(BASE.length + 1) : '';
  if (rest) {
    try {
      return { page: 'document', id: decodeURIComponent(rest) };
    } catch {
      return { page: 'document', id: rest }; // a malformed escape: show "not found" rather than crash
    }
  }
  return { page: 'dashboard', params: new URLSearchParams(loc.search) };
}

/** Pushes (or replaces) a URL inside the app and re-renders the route. */
export function navigate(href: string, replace = false): void {
  if (replace) history.replaceState(null, '', href);
  else history.pushState(null, '', href);
  window.dispatchEvent(new Event(CHANGE));
  if (!replace) window.scrollTo(0, 0);
}

/** The current route, updated on navigation and on back/forward. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parse(window.location));
  useEffect(() => {
    const update = () => setRoute(parse(window.location));
    window.addEventListener('popstate', update);
    window.addEventListener(CHANGE, update);
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener(CHANGE, update);
    };
  }, []);
  return route;
}

/** An <a> that navigates inside the app on a plain left click (new tabs, middle clicks work as usual). */
export function Link(props: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  const { onClick, ...rest } = props;
  const click = (e: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(e);
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    if (!props.href.startsWith(BASE)) return; // other apps (explorer, graphiql) load their own bundle
    e.preventDefault();
    navigate(props.href);
  };
  return <a {...rest} onClick={click} />;
}
