// Drag-and-drop upload: each dropped (or chosen) file goes to POST /v1/uploads, then importUpload runs it as a job;
// every file shows its own progress (bytes sent, then the job's status) and its document once imported.
import { useRef, useState, type DragEvent } from 'react';
import { gql } from '../shared/graphql';
import { FINISHED_STATUSES, IMPORT_JOB_QUERY, type ImportJob } from './api';
import { importUpload, uploadFile } from './uploadFile';
import { documentHref, Link } from './router';
import { ErrorNotice, Panel } from './ui';

/** The formats the server imports from a file (docs/importing.md#formats). */
const ACCEPT = '.md,.markdown,.txt,.rst,.html,.htm,.pdf,.docx,.json,.yaml,.yml';
const POLL_MS = 500;

type Phase = 'uploading' | 'importing' | 'done' | 'failed';

interface FileState {
  key: string;
  name: string;
  phase: Phase;
  /** Bytes sent, 0-1. */
  sent: number;
  job?: ImportJob;
  error?: unknown;
}

function parseTags(text: string): string[] | undefined {
  const tags = text.split(/[\s,]+/).filter(Boolean);
  return tags.length > 0 ? tags : undefined;
}

/** Polls a job until it has a final status. */
async function finished(job: ImportJob, onUpdate: (job: ImportJob) => void): Promise<ImportJob> {
  let current = job;
  while (!FINISHED_STATUSES.has(current.status)) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    const data = await gql(IMPORT_JOB_QUERY, { id: current.id });
    if (!data.importJob) throw new Error(`import job ${current.id} no longer exists`);
    current = data.importJob;
    onUpdate(current);
  }
  return current;
}

function FileRow({ f }: { f: FileState }) {
  const status = f.phase === 'uploading' ? `uploading ${Math.round(f.sent * 100)}%` : (f.job?.status ?? f.phase);
  const progress = f.job?.progress;
  const imported = progress && progress.total > 0 ? progress.done / progress.total : 0;
  const value = f.phase === 'uploading' ? f.sent / 2 : f.phase === 'importing' ? 0.5 + imported / 2 : 1;
  return (
    <li className="upload-file" data-testid="upload-file" data-name={f.name} data-phase={f.phase}>
      <div className="job-head">
        <span className="mono">{f.name}</span>
        <span className="muted" data-testid="upload-status">
          {status}
        </span>
      </div>
      <progress max={1} value={value} aria-label={`Progress of ${f.name}`} />
      {f.error !== undefined && <ErrorNotice error={f.error} title={`${f.name} was not imported`} />}
      {f.job?.errors.map((e, i) => (
        <p key={i} className="muted">
          <code className="error-code">{e.code}</code> {e.message}
        </p>
      ))}
      {f.job?.documents.map((d) => (
        <Link key={d.id} href={documentHref(d.id)}>
          {d.title}
        </Link>
      ))}
    </li>
  );
}

/** The drop zone and the list of files in flight; `onFinished` runs as each file's import ends. */
export function UploadDrop({ onFinished }: { onFinished(): void }) {
  const [files, setFiles] = useState<FileState[]>([]);
  const [tags, setTags] = useState('');
  const [over, setOver] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const counter = useRef(0);

  const update = (key: string, change: Partial<FileState>) =>
    setFiles((all) => all.map((f) => (f.key === key ? { ...f, ...change } : f)));

  const run = async (file: File, key: string) => {
    try {
      const uploadId = await uploadFile(file, (sent) => update(key, { sent }));
      const job = await importUpload(uploadId, parseTags(tags));
      update(key, { phase: 'importing', sent: 1, job });
      const end = await finished(job, (j) => update(key, { job: j }));
      update(key, { phase: end.status === 'SUCCEEDED' || end.status === 'PARTIAL' ? 'done' : 'failed', job: end });
    } catch (error) {
      update(key, { phase: 'failed', error });
    } finally {
      onFinished();
    }
  };

  const start = (list: FileList | null) => {
    const chosen = [...(list ?? [])];
    const added = chosen.map((file) => ({
      key: `f${++counter.current}`,
      name: file.name,
      phase: 'uploading' as const,
      sent: 0,
    }));
    setFiles((all) => [...added, ...all]);
    chosen.forEach((file, i) => void run(file, added[i]!.key));
  };

  const drop = (e: DragEvent<HTMLDivElement>) => {
    e.preventDefault();
    setOver(false);
    start(e.dataTransfer.files);
  };

  return (
    <Panel title="Upload files" id="upload">
      <div
        className={over ? 'drop-zone over' : 'drop-zone'}
        data-testid="drop-zone"
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={drop}
      >
        <p>Drop md, txt, html, pdf or docx files here (OpenAPI json or yaml too), or</p>
        <button type="button" onClick={() => input.current?.click()}>
          Choose files…
        </button>
        <input
          ref={input}
          type="file"
          name="files"
          multiple
          accept={ACCEPT}
          hidden
          onChange={(e) => {
            start(e.target.files);
            e.target.value = '';
          }}
        />
      </div>
      <label>
        Tags for these files <span className="muted">(optional, separated by spaces or commas)</span>
        <input name="uploadTags" value={tags} onChange={(e) => setTags(e.target.value)} placeholder="handbook" />
      </label>
      {files.length > 0 && (
        <ul className="upload-files" aria-label="Uploads">
          {files.map((f) => (
            <FileRow key={f.key} f={f} />
          ))}
        </ul>
      )}
    </Panel>
  );
}
