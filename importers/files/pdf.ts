import { createRequire } from 'node:module';
import path from 'node:path';
import { errorMessage, invalidFile } from './fileErrors.js';
import type { ExtractedFile } from './types.js';

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
type PdfDocument = Awaited<ReturnType<PdfJs['getDocument']>['promise']>;

let pdfjsPromise: Promise<PdfJs> | undefined;

/**
 * Loads pdfjs once. The worker module is imported first: in Node pdfjs runs its "fake worker" on the main
 * thread and picks up `globalThis.pdfjsWorker`, instead of importing a worker script by URL.
 */
function loadPdfJs(): Promise<PdfJs> {
  pdfjsPromise ??= (async () => {
    // A variable specifier: the worker build ships no type declarations; we only need its side effect.
    const workerModule = 'pdfjs-dist/legacy/build/pdf.worker.mjs';
    await import(workerModule);
    return import('pdfjs-dist/legacy/build/pdf.mjs');
  })();
  return pdfjsPromise;
}

/** pdfjs's bundled CMaps and standard font data, read from local disk by its Node factories (never fetched). */
function localResourceUrls(): { cMapUrl: string; standardFontDataUrl: string } {
  const root = path.dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
  return { cMapUrl: `${path.join(root, 'cmaps')}/`, standardFontDataUrl: `${path.join(root, 'standard_fonts')}/` };
}

/** Extracts the text of a PDF page by page; refuses encrypted, corrupt, over-long and text-less files. */
export async function extractPdf(fileName: string, bytes: Buffer, pdfMaxPages: number): Promise<ExtractedFile> {
  const pdfjs = await loadPdfJs();
  const task = pdfjs.getDocument({
    // pdfjs may transfer (detach) the buffer it is given, so hand it a copy.
    data: new Uint8Array(bytes),
    ...localResourceUrls(),
    cMapPacked: true,
    isEvalSupported: false, // never compile PDF functions/scripts to JS
    enableXfa: false,
    disableFontFace: true,
    useSystemFonts: false,
    useWorkerFetch: false,
    useWasm: false, // image decoders are not needed for text
    disableAutoFetch: true,
    disableStream: true,
    disableRange: true,
    stopAtErrors: true, // a broken content stream fails the import instead of silently losing text
    verbosity: 0,
  });
  try {
    const doc = await openDocument(task.promise, fileName);
    if (doc.numPages > pdfMaxPages) {
      throw invalidFile(
        fileName,
        `has ${doc.numPages} pages; the limit is ${pdfMaxPages} (CAIRN_IMPORT_PDF_MAX_PAGES)`,
        { pageCount: doc.numPages, limit: pdfMaxPages },
      );
    }
    const { content, pageStarts } = await extractPages(doc, fileName);
    if (!content.trim()) {
      throw invalidFile(fileName, 'has no extractable text (it may be a scanned image; run OCR on it first)', {
        pageCount: doc.numPages,
      });
    }
    const info = await readInfo(doc);
    return {
      format: 'pdf',
      title: info.title,
      content,
      metadata: { pageCount: doc.numPages, pageStarts, ...info.metadata },
      warnings: [],
    };
  } finally {
    await task.destroy();
  }
}

async function openDocument(promise: Promise<PdfDocument>, fileName: string): Promise<PdfDocument> {
  try {
    return await promise;
  } catch (error) {
    const name = error instanceof Error ? error.name : '';
    if (name === 'PasswordException') {
      throw invalidFile(
        fileName,
        'is encrypted (password-protected); remove the password and import it again',
        {},
        error,
      );
    }
    throw invalidFile(fileName, `is not a readable PDF: ${errorMessage(error)}`, {}, error);
  }
}

/**
 * Page texts joined by a blank line; `pageStarts[i]` is where page i+1 starts in `content`
 * (an empty page starts where the previous one ended).
 */
async function extractPages(doc: PdfDocument, fileName: string): Promise<{ content: string; pageStarts: number[] }> {
  let content = '';
  const pageStarts: number[] = [];
  for (let pageNumber = 1; pageNumber <= doc.numPages; pageNumber++) {
    let text: string;
    try {
      const page = await doc.getPage(pageNumber);
      const textContent = await page.getTextContent();
      text = joinTextItems(textContent.items);
      page.cleanup();
    } catch (error) {
      const reason = `is corrupt: page ${pageNumber} cannot be read (${errorMessage(error)})`;
      throw invalidFile(fileName, reason, { page: pageNumber }, error);
    }
    if (text && content) content += '\n\n';
    pageStarts.push(content.length);
    content += text;
  }
  return { content, pageStarts };
}

/** Joins pdfjs text items, breaking lines where pdfjs saw an end of line, and tidies whitespace. */
export function joinTextItems(items: ReadonlyArray<object>): string {
  let raw = '';
  for (const item of items) {
    if (!('str' in item) || typeof item.str !== 'string') continue; // marked-content markers
    raw += item.str;
    if ('hasEOL' in item && item.hasEOL === true) raw += '\n';
  }
  return raw
    .split('\n')
    .map((line) => line.replace(/[ \t\u00a0]+$/, ''))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

async function readInfo(doc: PdfDocument): Promise<{ title: string | undefined; metadata: Record<string, string> }> {
  const { info, metadata: xmp } = await doc.getMetadata().catch(() => ({ info: {}, metadata: null }));
  const fields = info as Record<string, unknown>;
  const text = (key: string): string | undefined => {
    const value = fields[key];
    return typeof value === 'string' && value.trim() ? value.trim() : undefined;
  };
  const xmpTitle = xmp?.get('dc:title');
  const title = text('Title') ?? (typeof xmpTitle === 'string' && xmpTitle.trim() ? xmpTitle.trim() : undefined);
  const metadata: Record<string, string> = {};
  if (title) metadata.title = title;
  const author = text('Author');
  if (author) metadata.author = author;
  const subject = text('Subject');
  if (subject) metadata.subject = subject;
  const created = text('CreationDate');
  if (created) {
    const date = (await loadPdfJs()).PDFDateString.toDateObject(created);
    metadata.creationDate = date && !Number.isNaN(date.getTime()) ? date.toISOString() : created;
  }
  return { title, metadata };
}
