-- URL import hygiene: credentials in old import jobs, and finding a redirected page's document.

-- Import jobs recorded before URL credentials were redacted at validation may still hold a password typed into a URL:
-- in the stored request (urls, url), in each item's label and error message ("fetch of http://user:pass@host/…
-- blocked"), and possibly in a warning. They are rewritten as Cairn now stores them, scheme://***@host/… (the same
-- rule as importers/http/redactUrl.ts: everything between "://" and the last "@" before the host's end).
-- Documents never held such URLs: the fetcher has refused URLs with credentials since the first importer, so no page
-- was fetched and no document id, source or metadata.url was made from one.
-- The userinfo pattern stops at '/', '?', '#', white space and '"' (a JSON string's end, since request and warnings are
-- rewritten as jsonb text); a WHATWG-serialised URL, as every stored request URL is, percent-encodes all of those.
-- Plain SQL only (regexp_replace, jsonb casts): it runs unchanged on PGlite and on a Postgres server, and a second
-- run changes nothing.
UPDATE import_jobs
   SET request = regexp_replace(request::text, '([A-Za-z][A-Za-z0-9+.-]*://)[^/?#"[:space:]]*@', '\1***@', 'g')::jsonb
 WHERE request::text ~ '[A-Za-z][A-Za-z0-9+.-]*://[^/?#"[:space:]]*@';

UPDATE import_jobs
   SET warnings = regexp_replace(warnings::text, '([A-Za-z][A-Za-z0-9+.-]*://)[^/?#"[:space:]]*@', '\1***@', 'g')::jsonb
 WHERE warnings::text ~ '[A-Za-z][A-Za-z0-9+.-]*://[^/?#"[:space:]]*@';

UPDATE import_job_items
   SET label = regexp_replace(label, '([A-Za-z][A-Za-z0-9+.-]*://)[^/?#"[:space:]]*@', '\1***@', 'g'),
       error = regexp_replace(error, '([A-Za-z][A-Za-z0-9+.-]*://)[^/?#"[:space:]]*@', '\1***@', 'g')
 WHERE label ~ '[A-Za-z][A-Za-z0-9+.-]*://[^/?#"[:space:]]*@'
    OR error ~ '[A-Za-z][A-Za-z0-9+.-]*://[^/?#"[:space:]]*@';

-- A URL import that lands on a page already stored under another URL's id (the first URL redirected to it) finds
-- that document by its metadata.finalUrl; without an index every URL import would scan the documents table.
CREATE INDEX IF NOT EXISTS documents_final_url_idx ON documents ((metadata->>'finalUrl'));
