import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { AppError, ErrorCode, isAppError } from '../../../src/errors.js';
import { classifyHost } from '../../http/addressPolicy.js';
import type { FetchedResource } from '../../http/SafeFetcher.js';
import { PAGE_ACCEPT, planFetched } from '../../pipeline/planSources.js';
import { canonicalUrl } from '../../url/canonicalUrl.js';
import type { SiteConfig } from '../types.js';
import { refuseBlockedUrl } from '../addressCheck.js';
import type { DriverContext, SourceDriver, SyncItem } from './driver.js';
import { readSitemap } from './sitemap.js';

/** The parts of robots-parser used here (its typings do not describe its CommonJS export under NodeNext). */
interface RobotsRules {
  isAllowed(url: string, userAgent?: string): boolean | undefined;
  getCrawlDelay(userAgent?: string): number | undefined;
}
const robotsParser = createRequire(import.meta.url)('robots-parser') as (url: string, contents: string) => RobotsRules;

/** Longest Crawl-delay of robots.txt that is honoured, in milliseconds. */
const MAX_CRAWL_DELAY_MS = 60_000;
/** Links kept per page, for crawling again from a page that answers 304. */
const MAX_LINKS = 1000;

type PageFetch =
  | { kind: 'page'; url: string; res: FetchedResource; links: string[] }
  | { kind: 'notModified'; url: string; links: string[] }
  | { kind: 'skipped'; reason: string }
  | { kind: 'gone' }
  | { kind: 'error'; url: string; error: unknown };

/**
 * A docs site: the pages of its sitemap, or a crawl of same-origin links under the path prefix. robots.txt is obeyed,
 * at most `maxPages` pages are fetched, `concurrency` at once, request starts spaced by the politeness delay (or the
 * site's Crawl-delay). A page is fetched again with its ETag/Last-Modified, so an unchanged page costs a 304. Every
 * fetch goes through the SSRF-safe client; a link to a blocked address is skipped and counted.
 */
export function siteDriver(config: SiteConfig): SourceDriver {
  return {
    async *items(context: DriverContext): AsyncIterable<SyncItem> {
      const start = new URL(config.url);
      const { fetcher, importConfig } = context.runtime;
      // The start page's own address first, so a blocked host is reported by the URL given, not by /robots.txt.
      await refuseBlockedUrl(config.url, undefined, context.runtime);
      const robots = await readRobots(start, context);
      const robotsDelay = Math.min((robots?.getCrawlDelay(importConfig.userAgent) ?? 0) * 1000, MAX_CRAWL_DELAY_MS);
      const pace = pacer(Math.max(config.delayMs, robotsDelay), context.signal);
      const queue: string[] = [];
      const queued = new Set<string>();
      const enqueue = (raw: string): void => {
        const url = admissible(raw, start, config, context);
        if (url === undefined || queued.has(canonicalUrl(url))) return;
        queued.add(canonicalUrl(url));
        if (robots && robots.isAllowed(url, importConfig.userAgent) === false)
          return context.skip(`${url}: disallowed by robots.txt`);
        if (queued.size > config.maxPages) return context.skip(`${url}: past the page limit of ${config.maxPages}`);
        queue.push(url);
      };
      if (config.sitemapUrl) {
        const listed = await readSitemap(config.sitemapUrl, fetcher, context.signal, (reason) => context.skip(reason));
        listed.forEach(enqueue);
        context.setTotal(queue.length);
      } else {
        enqueue(config.url);
      }

      const fetchPage = async (url: string): Promise<PageFetch> => {
        const previous = context.previous.get(canonicalUrl(url));
        const etag = typeof previous?.state.etag === 'string' ? previous.state.etag : undefined;
        const lastModified = typeof previous?.state.lastModified === 'string' ? previous.state.lastModified : undefined;
        await pace();
        try {
          const conditional =
            previous && (etag || lastModified)
              ? { ...(etag ? { etag } : {}), ...(lastModified ? { lastModified } : {}) }
              : undefined;
          const res = await fetcher.fetch(url, {
            accept: PAGE_ACCEPT,
            signal: context.signal,
            ...(conditional ? { conditional } : {}),
          });
          if (res.status === 304) return { kind: 'notModified', url, links: strings(previous?.state.links) };
          return { kind: 'page', url, res, links: config.sitemapUrl ? [] : pageLinks(res) };
        } catch (error) {
          if (isAppError(error) && error.code === ErrorCode.IMPORT_FETCH_BLOCKED)
            return { kind: 'skipped', reason: `${url}: ${error.message}` };
          if (isAppError(error) && (error.details.status === 404 || error.details.status === 410))
            return { kind: 'gone' };
          return { kind: 'error', url, error };
        }
      };

      const inFlight: Promise<PageFetch>[] = [];
      const fill = () => {
        while (inFlight.length < config.concurrency && queue.length > 0)
          inFlight.push(fetchPage(queue.shift() as string));
      };
      fill();
      while (inFlight.length > 0) {
        const page = await (inFlight.shift() as Promise<PageFetch>);
        if (context.signal.aborted) return;
        if (page.kind === 'skipped') context.skip(page.reason);
        if (page.kind === 'page' || page.kind === 'notModified') page.links.forEach(enqueue);
        fill();
        if (page.kind === 'skipped' || page.kind === 'gone') continue;
        yield pageItem(page, context);
      }
    },
  };
}

function pageItem(page: Exclude<PageFetch, { kind: 'skipped' } | { kind: 'gone' }>, context: DriverContext): SyncItem {
  return {
    key: canonicalUrl(page.url),
    label: page.url,
    async load() {
      if (page.kind === 'error') throw page.error;
      if (page.kind === 'notModified') return { unchanged: true };
      const { res } = page;
      const plan = await planFetched(page.url, res, context.defaults, context.planDeps);
      const fingerprint = createHash('sha256').update(res.body).digest('hex');
      const state = {
        etag: res.headers.etag ?? null,
        lastModified: res.headers['last-modified'] ?? null,
        links: page.links.slice(0, MAX_LINKS),
      };
      return { plan, fingerprint, state };
    },
  };
}

/**
 * The page URL a link names if the site may import it: http(s), same origin, under the path prefix (hash dropped).
 * A link to another host that is a blocked address literal is skipped and counted; other outside links are ignored.
 */
function admissible(raw: string, start: URL, config: SiteConfig, context: DriverContext): string | undefined {
  let url: URL;
  try {
    url = new URL(raw, start);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  url.hash = '';
  if (url.origin !== start.origin) {
    const verdict = classifyHost(url.hostname);
    if (verdict && !verdict.allowed) context.skip(`${url.href}: link to a blocked address (${verdict.reason})`);
    return undefined;
  }
  return url.pathname.startsWith(config.pathPrefix) ? url.href : undefined;
}

/** Links of an HTML page, resolved against where it was fetched from. */
function pageLinks(res: FetchedResource): string[] {
  if (res.contentType !== 'text/html' && res.contentType !== 'application/xhtml+xml') return [];
  const html = res.body.toString('utf8');
  const links: string[] = [];
  for (const match of html.matchAll(/<a\s[^>]*?href\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/gi)) {
    const href = (match[1] ?? match[2] ?? match[3] ?? '').replace(/&amp;/g, '&').trim();
    if (href === '' || href.startsWith('#') || /^(mailto|javascript|tel):/i.test(href)) continue;
    try {
      links.push(new URL(href, res.finalUrl).href);
    } catch {
      // not a URL: ignored
    }
    if (links.length >= MAX_LINKS) break;
  }
  return links;
}

/** The site's robots.txt rules, or undefined when it has none (or it cannot be read). */
async function readRobots(start: URL, context: DriverContext): Promise<RobotsRules | undefined> {
  const url = `${start.origin}/robots.txt`;
  try {
    const res = await context.runtime.fetcher.fetch(url, {
      accept: 'text/plain',
      signal: context.signal,
      maxBytes: 512 * 1024,
    });
    return robotsParser(url, res.body.toString('utf8'));
  } catch (err) {
    if (context.signal.aborted) throw err;
    if (isAppError(err) && err.code === ErrorCode.IMPORT_FETCH_BLOCKED) throw err;
    return undefined;
  }
}

/** Spaces request starts at least `delayMs` apart. */
function pacer(delayMs: number, signal: AbortSignal): () => Promise<void> {
  let next = 0;
  return async () => {
    const now = Date.now();
    const at = Math.max(now, next);
    next = at + delayMs;
    if (at > now) {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, at - now);
        signal.addEventListener(
          'abort',
          () => {
            clearTimeout(timer);
            reject(new AppError(ErrorCode.TIMEOUT, 'the sync was stopped'));
          },
          { once: true },
        );
      });
    }
  };
}

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
