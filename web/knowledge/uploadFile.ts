// Sends one file to POST /v1/uploads with its byte progress (XMLHttpRequest: fetch has no upload progress), then
// starts its import with importUpload.
import { askForKey, authHeaders, gql, GraphQLRequestError } from '../shared/graphql';
import { IMPORT_UPLOAD_MUTATION, type ImportJob } from './api';

/** The upload as /v1/uploads answers it. */
interface StoredUpload {
  id: string;
  fileName: string;
}

interface ErrorBody {
  error?: { code?: string; message?: string };
  errors?: { message: string; extensions?: { code?: string } }[];
}

function send(file: File, onProgress: (fraction: number) => void): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/v1/uploads');
    // Apollo's CSRF header, which /v1/uploads requires like /graphql.
    xhr.setRequestHeader('apollo-require-preflight', 'true');
    for (const [name, value] of Object.entries(authHeaders())) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      let body: unknown;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        body = null; // not JSON (a proxy's page): the status says what happened
      }
      resolve({ status: xhr.status, body });
    };
    xhr.onerror = () => reject(new Error('the upload could not reach the server'));
    const form = new FormData();
    form.append('file', file, file.name);
    xhr.send(form);
  });
}

function uploadError(status: number, body: unknown): GraphQLRequestError {
  const b = (body ?? {}) as ErrorBody;
  const first = b.errors?.[0];
  const code = first?.extensions?.code ?? b.error?.code ?? `HTTP_${status}`;
  const message = first?.message ?? b.error?.message ?? `the upload failed with HTTP ${status}`;
  return new GraphQLRequestError(code, message, []);
}

/** Uploads a file (asking for a key once when the server wants one); resolves with the upload's id. */
export async function uploadFile(file: File, onProgress: (fraction: number) => void, retried = false): Promise<string> {
  const { status, body } = await send(file, onProgress);
  if (status === 401 && !retried && (await askForKey())) return uploadFile(file, onProgress, true);
  if (status < 200 || status >= 300) throw uploadError(status, body);
  return (body as StoredUpload).id;
}

/** Starts the import of an upload as a background job. */
export async function importUpload(uploadId: string, tags: string[] | undefined): Promise<ImportJob> {
  return (await gql(IMPORT_UPLOAD_MUTATION, { input: { uploadId, tags, async: true } })).importUpload.job;
}
