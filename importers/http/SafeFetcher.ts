/** A response body fetched by the safe HTTP client, fully read and within the size cap. */
export interface FetchedResource {
  /** The URL that was asked for. */
  requestedUrl: string;
  /** The URL after redirects. */
  finalUrl: string;
  status: number;
  /** Lower-case media type without parameters, e.g. `text/html`; '' when the server sent none. */
  contentType: string;
  /** The charset parameter of Content-Type, when present. */
  charset: string | undefined;
  /** Response headers, lower-case names. */
  headers: Record<string, string>;
  body: Buffer;
  /** Every URL visited before `finalUrl`, in order. */
  redirects: string[];
}

/** Per-request options of the safe HTTP client. */
export interface SafeFetchRequest {
  /** Accept header (default `*\/*`). */
  accept?: string;
  /** Lower the size cap for this request. */
  maxBytes?: number;
  signal?: AbortSignal;
  /**
   * Validators of a copy fetched before: sent as If-None-Match / If-Modified-Since, and a 304 answer is returned (with
   * an empty body) instead of failing.
   */
  conditional?: { etag?: string; lastModified?: string };
}

/** The one HTTP client every importer uses: http(s) only, no private addresses, pinned DNS, capped size and time. */
export interface SafeFetcher {
  /** Fetches a URL; throws `AppError` IMPORT_FETCH_BLOCKED, IMPORT_FETCH_FAILED or IMPORT_TOO_LARGE. */
  fetch(url: string, request?: SafeFetchRequest): Promise<FetchedResource>;
}

/** One resolved address of a host name. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Settings of the safe HTTP client (see `ImportConfig`). */
export interface SafeFetcherOptions {
  /**
   * Host names or IP literals that may be fetched although they resolve to blocked addresses: a bare host on any port,
   * `host:port` (`[v6]:port`) on that port only.
   */
  allowPrivateHosts: readonly string[];
  maxBytes: number;
  connectTimeoutMs: number;
  timeoutMs: number;
  maxRedirects: number;
  userAgent: string;
  /** Resolves a host name to all its addresses (default: `dns.lookup` with `all: true`); tests inject names. */
  resolve?: (hostname: string) => Promise<ResolvedAddress[]>;
}
