// "What the agent sees": a question with enrichContext's options, and the context exactly as an agent receives it,
// with each chunk's lane, score and why, each entity's why, and the lanes' timings.
import { useRights } from './role';
import { useState, type FormEvent } from 'react';
import { gql } from '../shared/graphql';
import {
  AGENT_VIEW_QUERY,
  DOCUMENT_TYPES,
  RECORD_GAP_MUTATION,
  type AgentContext,
  type DocumentFilter,
  type EnrichContextInput,
} from './api';
import { documentHref, explorerHref, Link } from './router';
import { ErrorNotice, formatScore, Loading, Panel } from './ui';

type Result =
  | { status: 'idle' }
  | { status: 'loading' }
  | { status: 'error'; error: unknown }
  | { status: 'ok'; query: string; context: AgentContext; gap: 'no' | 'saving' | 'saved' | { error: unknown } };

const OPTIONS = [
  { name: 'topK', label: 'Top K', min: 1, max: 100 },
  { name: 'maxEntities', label: 'Max entities', min: 0, max: 100 },
  { name: 'graphDepth', label: 'Depth', min: 1, max: 3 },
  { name: 'maxChars', label: 'Max chars', min: 200, max: 100000 },
] as const;

type OptionName = (typeof OPTIONS)[number]['name'];

/** The filter's fields as typed: a tag expression, one document type (or any), one source (or any). */
interface FilterFields {
  tags: string;
  type: string;
  source: string;
}

/** The DocumentFilter for the fields given, or undefined when none is. */
function toFilter(f: FilterFields): DocumentFilter | undefined {
  const filter: DocumentFilter = {};
  if (f.tags.trim()) filter.tags = f.tags.trim();
  if (f.type) filter.types = [f.type as (typeof DOCUMENT_TYPES)[number]];
  if (f.source.trim()) filter.sources = [f.source.trim()];
  return Object.keys(filter).length > 0 ? filter : undefined;
}

function ContextParts({ context }: { context: AgentContext }) {
  return (
    <div className="agent-parts">
      <h3>Chunks ({context.chunks.length})</h3>
      <ol className="hits" aria-label="Chunks in the context">
        {context.chunks.map((c) => (
          <li key={`${c.lane}:${c.chunk.id}`} className="hit" data-testid="agent-chunk">
            <div className="hit-head">
              <span className="hit-rank">{c.citation ? `[${c.citation}]` : 'left out'}</span>
              <Link href={documentHref(c.document.id)} className="hit-title">
                {c.document.title}
              </Link>
              <span className="badge">{c.lane}</span>
              <span className="muted">
                chunk {c.chunk.ordinal} · score {formatScore(c.score)}
              </span>
            </div>
            <p className="muted">{c.why}</p>
          </li>
        ))}
      </ol>
      <h3>Entities ({context.entities.length})</h3>
      <ul className="agent-entities" aria-label="Entities in the context">
        {context.entities.map((e, i) => (
          <li key={e.entity.id} data-testid="agent-entity">
            <a href={explorerHref(e.entity.id)}>{e.entity.name}</a> <span className="badge">{e.entity.type}</span>{' '}
            <span className="badge">GRAPH</span>{' '}
            <span className="muted">
              rank {i + 1} · score {formatScore(e.score)} · depth {e.depth} · {e.why}
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}

function GapButton({ result, onRecord }: { result: Extract<Result, { status: 'ok' }>; onRecord(): void }) {
  const { canEdit } = useRights();
  if (result.gap === 'saved') return <span role="status">Recorded as a knowledge gap.</span>;
  if (!canEdit) return null;
  return (
    <>
      <button type="button" onClick={onRecord} disabled={result.gap === 'saving'}>
        Record as a knowledge gap
      </button>
      {typeof result.gap === 'object' ? <ErrorNotice error={result.gap.error} title="Not recorded" /> : null}
    </>
  );
}

/** The question and enrichContext's options. */
function AgentForm(props: {
  query: string;
  setQuery(value: string): void;
  options: Record<OptionName, string>;
  setOptions(value: Record<OptionName, string>): void;
  filter: FilterFields;
  setFilter(value: FilterFields): void;
  busy: boolean;
  onSubmit(e: FormEvent): void;
}) {
  const { query, setQuery, options, setOptions, filter, setFilter, busy, onSubmit } = props;
  return (
    <form className="form-row" onSubmit={onSubmit} aria-label="Ask as an agent">
      <label className="grow">
        Question
        <input
          name="question"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          placeholder="what does the ledger depend on?"
          required
        />
      </label>
      {OPTIONS.map((o) => (
        <label key={o.name} className="narrow">
          {o.label}
          <input
            name={o.name}
            type="number"
            min={o.min}
            max={o.max}
            value={options[o.name]}
            onChange={(e) => setOptions({ ...options, [o.name]: e.target.value })}
            placeholder="default"
          />
        </label>
      ))}
      <label>
        Tags
        <input
          name="tags"
          value={filter.tags}
          onChange={(e) => setFilter({ ...filter, tags: e.target.value })}
          placeholder="payments"
        />
      </label>
      <label>
        Type
        <select name="filterType" value={filter.type} onChange={(e) => setFilter({ ...filter, type: e.target.value })}>
          <option value="">any</option>
          {DOCUMENT_TYPES.map((t) => (
            <option key={t}>{t}</option>
          ))}
        </select>
      </label>
      <label>
        Source
        <input
          name="filterSource"
          value={filter.source}
          onChange={(e) => setFilter({ ...filter, source: e.target.value })}
          placeholder="any"
        />
      </label>
      <button type="submit" className="primary" disabled={busy}>
        Ask
      </button>
    </form>
  );
}

/** The question form and what enrichContext gives an agent for it. */
export function AgentView({ onGapRecorded }: { onGapRecorded(): void }) {
  const [query, setQuery] = useState('');
  const [options, setOptions] = useState<Record<OptionName, string>>({
    topK: '',
    maxEntities: '',
    graphDepth: '1',
    maxChars: '',
  });
  const [filter, setFilter] = useState<FilterFields>({ tags: '', type: '', source: '' });
  const [result, setResult] = useState<Result>({ status: 'idle' });

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!query.trim()) return;
    const input: EnrichContextInput = { query: query.trim() };
    for (const { name } of OPTIONS) if (options[name].trim()) input[name] = Number(options[name]);
    const chosen = toFilter(filter);
    if (chosen) input.filter = chosen;
    setResult({ status: 'loading' });
    try {
      const data = await gql(AGENT_VIEW_QUERY, { input });
      setResult({ status: 'ok', query: query.trim(), context: data.enrichContext, gap: 'no' });
    } catch (error) {
      setResult({ status: 'error', error });
    }
  };

  const recordGap = async () => {
    if (result.status !== 'ok') return;
    const best = Math.max(0, ...result.context.chunks.filter((c) => c.lane === 'DOCUMENTS').map((c) => c.score));
    setResult({ ...result, gap: 'saving' });
    try {
      await gql(RECORD_GAP_MUTATION, { query: result.query, bestScore: Math.min(1, best) });
      setResult({ ...result, gap: 'saved' });
      onGapRecorded();
    } catch (error) {
      setResult({ ...result, gap: { error } });
    }
  };

  return (
    <Panel title="What the agent sees" id="agent-view">
      <AgentForm
        query={query}
        setQuery={setQuery}
        options={options}
        setOptions={setOptions}
        filter={filter}
        setFilter={setFilter}
        busy={result.status === 'loading'}
        onSubmit={submit}
      />
      {result.status === 'loading' ? <Loading what="Building the context" /> : null}
      {result.status === 'error' ? <ErrorNotice error={result.error} title="enrichContext failed" /> : null}
      {result.status === 'ok' ? (
        <>
          <p className="muted" data-testid="agent-timings">
            {result.context.context.length} characters · documents lane {result.context.timings.retrievalMs.toFixed(0)}{' '}
            ms · graph lane {result.context.timings.graphMs.toFixed(0)} ms · total{' '}
            {result.context.timings.totalMs.toFixed(0)} ms
            {result.context.truncated
              ? ` · the budget left out ${result.context.omittedChunks} chunks and ${result.context.omittedEntities} entities`
              : ''}
          </p>
          {result.context.warnings.map((w) => (
            <p key={w} className="notice">
              {w}
            </p>
          ))}
          <pre className="agent-context" data-testid="agent-context">
            {result.context.context}
          </pre>
          <GapButton result={result} onRecord={() => void recordGap()} />
          <ContextParts context={result.context} />
        </>
      ) : null}
    </Panel>
  );
}
