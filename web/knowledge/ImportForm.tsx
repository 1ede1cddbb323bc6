// Import form: a URL, or an OpenAPI spec by URL or pasted; starts an async import job and polls it to the end.
import { useEffect, useState, type FormEvent } from 'react';
import { gql } from '../shared/graphql';
import {
  FINISHED_STATUSES,
  IMPORT_JOB_QUERY,
  IMPORT_OPENAPI_MUTATION,
  IMPORT_URL_MUTATION,
  type ImportJob,
} from './api';
import { documentHref, Link } from './router';
import { ErrorNotice, Panel } from './ui';

type Source = 'url' | 'openapi-url' | 'openapi-content';
const POLL_MS = 500;

function parseTags(text: string): string[] | undefined {
  const tags = text.split(/[\s,]+/).filter(Boolean);
  return tags.length > 0 ? tags : undefined;
}

function JobView({ job }: { job: ImportJob }) {
  const { done, total } = job.progress;
  const finished = FINISHED_STATUSES.has(job.status);
  return (
    <div className="job" data-testid="import-job" data-status={job.status}>
      <div className="job-head">
        <span className={`status status-${job.status.toLowerCase()}`} data-testid="import-status">
          {job.status}
        </span>
        <span className="mono muted">{job.id}</span>
        <span data-testid="import-progress">
          {done}/{total} done
        </span>
        {job.chunkCount > 0 && <span className="muted">{job.chunkCount} chunks</span>}
      </div>
      <progress max={Math.max(total, 1)} value={finished && total === 0 ? 1 : done} aria-label="Import progress" />
      {job.errors.length > 0 && (
        <ul className="job-errors">
          {job.errors.map((e, i) => (
            <li key={i}>
              <code className="error-code">{e.code}</code> {e.item}: {e.message}
            </li>
          ))}
        </ul>
      )}
      {job.warnings.length > 0 && (
        <ul className="job-warnings">
          {job.warnings.map((w, i) => (
            <li key={i}>{w}</li>
          ))}
        </ul>
      )}
      {job.documents.length > 0 && (
        <ul className="job-documents">
          {job.documents.map((d) => (
            <li key={d.id}>
              <Link href={documentHref(d.id)}>{d.title}</Link>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** Polls a running job until it reaches a final status; an error stops polling and is shown. */
function useJobPolling(
  job: ImportJob | null,
  onFinished: () => void,
  setJob: (job: ImportJob | null) => void,
  setError: (error: unknown) => void,
): void {
  const jobId = job?.id;
  const running = job !== null && !FINISHED_STATUSES.has(job.status);
  useEffect(() => {
    if (!jobId || !running) return;
    let cancelled = false;
    const timer = setTimeout(async () => {
      try {
        const data = await gql(IMPORT_JOB_QUERY, { id: jobId });
        if (cancelled) return;
        if (!data.importJob) throw new Error(`import job ${jobId} no longer exists`);
        setJob(data.importJob);
        if (FINISHED_STATUSES.has(data.importJob.status)) onFinished();
      } catch (e) {
        if (!cancelled) {
          setError(e);
          setJob(null);
        }
      }
    }, POLL_MS);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [jobId, running, job, onFinished, setJob, setError]);
}

/** Starts an async import job of the chosen kind. */
async function startImport(source: Source, url: string, content: string, tags: string): Promise<ImportJob> {
  const tagList = parseTags(tags);
  if (source === 'url') {
    const data = await gql(IMPORT_URL_MUTATION, { input: { url: url.trim(), tags: tagList, async: true } });
    return data.importUrl.job;
  }
  const input =
    source === 'openapi-url'
      ? { url: url.trim(), tags: tagList, async: true }
      : { content, tags: tagList, async: true };
  return (await gql(IMPORT_OPENAPI_MUTATION, { input })).importOpenApi.job;
}

const SOURCE_CHOICES = [
  ['url', 'A web page or file by URL'],
  ['openapi-url', 'An OpenAPI spec by URL'],
  ['openapi-content', 'A pasted OpenAPI spec'],
] as const;

function SourceChoice({ source, onChange }: { source: Source; onChange(source: Source): void }) {
  return (
    <fieldset className="choices">
      <legend>What to import</legend>
      {SOURCE_CHOICES.map(([value, label]) => (
        <label key={value} className="inline">
          <input type="radio" name="source" value={value} checked={source === value} onChange={() => onChange(value)} />{' '}
          {label}
        </label>
      ))}
    </fieldset>
  );
}

/** The import form; `onFinished` runs once a job ends so counts and tables refresh. */
export function ImportForm({ onFinished }: { onFinished(): void }) {
  const [source, setSource] = useState<Source>('url');
  const [url, setUrl] = useState('');
  const [content, setContent] = useState('');
  const [tags, setTags] = useState('');
  const [job, setJob] = useState<ImportJob | null>(null);
  const [error, setError] = useState<unknown>(undefined);
  const [submitting, setSubmitting] = useState(false);
  const running = job !== null && !FINISHED_STATUSES.has(job.status);
  useJobPolling(job, onFinished, setJob, setError);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    setSubmitting(true);
    try {
      const started = await startImport(source, url, content, tags);
      setJob(started);
      if (FINISHED_STATUSES.has(started.status)) onFinished();
    } catch (err) {
      setError(err);
    } finally {
      setSubmitting(false);
    }
  };

  return (
    <Panel title="Import" id="import">
      <form className="form-stack" onSubmit={submit} aria-label="Import knowledge">
        <SourceChoice source={source} onChange={setSource} />
        {source === 'openapi-content' ? (
          <label>
            Spec (JSON or YAML)
            <textarea
              name="content"
              rows={8}
              value={content}
              onChange={(e) => setContent(e.target.value)}
              required
              spellCheck={false}
            />
          </label>
        ) : (
          <label>
            URL
            <input
              name="url"
              type="url"
              value={url}
              onChange={(e) => setUrl(e.target.value)}
              placeholder="https://docs.example.com/guide"
              required
            />
          </label>
        )}
        <label>
          Tags <span className="muted">(optional, separated by spaces or commas)</span>
          <input
            name="importTags"
            value={tags}
            onChange={(e) => setTags(e.target.value)}
            placeholder="onboarding docs"
          />
        </label>
        <div>
          <button type="submit" className="primary" disabled={submitting || running}>
            {running ? 'Importing…' : 'Import'}
          </button>
        </div>
      </form>
      {error !== undefined && <ErrorNotice error={error} title="Import failed" />}
      {job && <JobView job={job} />}
    </Panel>
  );
}
