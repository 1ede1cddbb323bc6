// Search panel: query, mode, topK, minScore and a tag expression; ranked hits with their fused and lane scores.
import { useState, type FormEvent } from 'react';
import { gql } from '../shared/graphql';
import { SEARCH_MODES, SEARCH_QUERY, type Hit, type SearchInput } from './api';
import { documentHref, Link } from './router';
import { Empty, ErrorNotice, formatScore, Loading, Panel } from './ui';

type Result =
  | { status: 'idle' }
  | { status: 'loading' }
  | { status: 'error'; error: unknown }
  | { status: 'ok'; hits: Hit[]; summary: string };

const SNIPPET = 280;

function HitRow({ hit, rank }: { hit: Hit; rank: number }) {
  const text = hit.chunk.content.length > SNIPPET ? `${hit.chunk.content.slice(0, SNIPPET)}…` : hit.chunk.content;
  return (
    <li className="hit" data-testid="search-hit">
      <div className="hit-head">
        <span className="hit-rank">#{rank}</span>
        <Link href={documentHref(hit.document.id)} className="hit-title">
          {hit.document.title}
        </Link>
        <span className="badge">{hit.document.documentType}</span>
        <span className="muted">
          chunk {hit.chunk.ordinal} · chars {hit.chunk.charStart}–{hit.chunk.charEnd}
        </span>
      </div>
      <dl className="scores">
        <dt>score</dt>
        <dd data-testid="hit-score">{formatScore(hit.score)}</dd>
        <dt>vector</dt>
        <dd>
          {formatScore(hit.vectorScore)}
          {hit.vectorRank ? <span className="muted"> (#{hit.vectorRank})</span> : null}
        </dd>
        <dt>keyword</dt>
        <dd>
          {formatScore(hit.keywordScore)}
          {hit.keywordRank ? <span className="muted"> (#{hit.keywordRank})</span> : null}
        </dd>
      </dl>
      <p className="hit-text">{text}</p>
    </li>
  );
}

/** What the last search gave: progress, its error, or the ranked hits. */
function SearchResult({ result }: { result: Result }) {
  if (result.status === 'idle') return null;
  if (result.status === 'loading') return <Loading what="Searching" />;
  if (result.status === 'error') return <ErrorNotice error={result.error} title="Search failed" />;
  if (result.hits.length === 0) {
    return <Empty>No chunk matched {result.summary}. Try another mode, a lower minimum score or fewer tags.</Empty>;
  }
  return (
    <>
      <p className="muted" data-testid="search-summary">
        {result.hits.length} {result.hits.length === 1 ? 'hit' : 'hits'} for {result.summary}
      </p>
      <ol className="hits" aria-label="Search results">
        {result.hits.map((h, i) => (
          <HitRow key={h.chunk.id} hit={h} rank={i + 1} />
        ))}
      </ol>
    </>
  );
}

/** The search form and its ranked results. */
export function SearchPanel() {
  const [query, setQuery] = useState('');
  const [mode, setMode] = useState<(typeof SEARCH_MODES)[number]>('HYBRID');
  const [topK, setTopK] = useState('10');
  const [minScore, setMinScore] = useState('');
  const [tags, setTags] = useState('');
  const [result, setResult] = useState<Result>({ status: 'idle' });

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!query.trim()) return;
    const input: SearchInput = { query: query.trim(), mode };
    if (topK.trim()) input.topK = Number(topK);
    if (minScore.trim()) input.minScore = Number(minScore);
    if (tags.trim()) input.filter = { tags: tags.trim() };
    setResult({ status: 'loading' });
    try {
      const data = await gql(SEARCH_QUERY, { input });
      const scope = tags.trim() ? ` with tags ${tags.trim()}` : '';
      setResult({ status: 'ok', hits: data.search, summary: `“${query.trim()}”, ${mode}${scope}` });
    } catch (error) {
      setResult({ status: 'error', error });
    }
  };

  return (
    <Panel title="Search" id="search">
      <form className="form-row" onSubmit={submit} role="search" aria-label="Search the knowledge base">
        <label className="grow">
          Query
          <input
            name="query"
            type="search"
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            placeholder="why did the ACH payment fail?"
            required
          />
        </label>
        <label>
          Mode
          <select name="mode" value={mode} onChange={(e) => setMode(e.target.value as (typeof SEARCH_MODES)[number])}>
            {SEARCH_MODES.map((m) => (
              <option key={m}>{m}</option>
            ))}
          </select>
        </label>
        <label className="narrow">
          Top K
          <input name="topK" type="number" min={1} max={100} value={topK} onChange={(e) => setTopK(e.target.value)} />
        </label>
        <label className="narrow">
          Min score
          <input
            name="minScore"
            type="number"
            min={0}
            max={1}
            step={0.01}
            value={minScore}
            onChange={(e) => setMinScore(e.target.value)}
            placeholder="0"
          />
        </label>
        <label>
          Tags
          <input
            name="tags"
            value={tags}
            onChange={(e) => setTags(e.target.value)}
            placeholder="billing+ach|payments"
          />
        </label>
        <button type="submit" className="primary" disabled={result.status === 'loading'}>
          Search
        </button>
      </form>
      <SearchResult result={result} />
    </Panel>
  );
}
