import { AppError, ErrorCode, isAppError } from '../../../src/errors.js';
import type { SafeFetcher } from '../../http/SafeFetcher.js';

/** Sitemaps an index may name that are read. */
const MAX_CHILD_SITEMAPS = 50;

/** The page URLs of a sitemap (or of the sitemaps a sitemap index names), through the safe client. */
export async function readSitemap(
  url: string,
  fetcher: SafeFetcher,
  signal: AbortSignal,
  skip: (reason: string) => void,
): Promise<string[]> {
  const root = await fetchXml(url, fetcher, signal);
  if (!/<sitemapindex[\s>]/i.test(root)) {
    if (!/<urlset[\s>]/i.test(root))
      throw new AppError(ErrorCode.INVALID_FILE, `${url} is not a sitemap (no <urlset> or <sitemapindex>)`, { url });
    return locs(root);
  }
  const pages: string[] = [];
  for (const child of locs(root).slice(0, MAX_CHILD_SITEMAPS)) {
    try {
      pages.push(...locs(await fetchXml(child, fetcher, signal)));
    } catch (err) {
      if (isAppError(err) && err.code === ErrorCode.IMPORT_FETCH_BLOCKED) skip(`${child}: ${err.message}`);
      else throw err;
    }
  }
  return pages;
}

async function fetchXml(url: string, fetcher: SafeFetcher, signal: AbortSignal): Promise<string> {
  return (await fetcher.fetch(url, { accept: 'application/xml,text/xml;q=0.9,*/*;q=0.1', signal })).body.toString(
    'utf8',
  );
}

function locs(xml: string): string[] {
  return [...xml.matchAll(/<loc>\s*(?:<!\[CDATA\[)?(.*?)(?:\]\]>)?\s*<\/loc>/gis)]
    .map((m) => decodeXml((m[1] ?? '').trim()))
    .filter((u) => u !== '');
}

function decodeXml(text: string): string {
  return text.replace(
    /&(amp|lt|gt|quot|apos);/g,
    (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" })[e] as string,
  );
}
