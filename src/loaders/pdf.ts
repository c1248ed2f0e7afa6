import type { MetadataValue } from '../ports/common.js';
import { importOptional, type LibrarySource } from '../util/optional-import.js';
import { DEFAULT_LOAD_LIMITS, LoadLimitError, type LoadLimits } from './limits.js';
import { checkPdfPages, checkPdfStreams } from './pdf-check.js';
import { readPdfText } from './pdf-text.js';

/** The page separator in a PDF's text: a form feed on its own line (as `pdftotext` writes). */
export const PAGE_BREAK = '\n\n\f\n\n';

/** A parsed PDF. */
export interface PdfContent {
  /** Text of each page, in order. */
  readonly pages: string[];
  /** The document's `Title`, if it has one. */
  readonly title: string | undefined;
  /** `pages` and, when present, `author` and `subject`. */
  readonly metadata: Record<string, MetadataValue>;
}

/** A page of a pdf.js document: its text items. */
export interface PdfPage {
  /** The page's text items (`str`, and `hasEOL` where a line ends). */
  getTextContent(): Promise<{ items: readonly unknown[] }>;
  /** Frees what pdf.js keeps of the page once read. */
  cleanup?(): unknown;
}

/** The part of `unpdf` the PDF loader uses. */
export interface UnpdfLibrary {
  /** Opens a PDF. */
  getDocumentProxy(
    data: Uint8Array,
    options?: { verbosity?: number },
  ): Promise<{
    numPages: number;
    getMetadata(): Promise<{ info: unknown }>;
    destroy(): Promise<void>;
    /** A page, from 1 (pdf.js); without it, `extractText` reads every page. */
    getPage?(pageNumber: number): Promise<PdfPage>;
  }>;
  /** Text of each page. */
  extractText(
    pdf: unknown,
    options: { mergePages: false },
  ): Promise<{ totalPages: number; text: string[] }>;
}

/** Pages read at a time: all at once (what `extractText` does) holds every page's objects. */
const PAGE_CONCURRENCY = 8;

/** A page's text as unpdf's `extractText` gives it: the items' strings, a newline at each end of line. */
function pageText(items: readonly unknown[]): string {
  let text = '';
  for (const item of items) {
    const { str, hasEOL } = item as { str?: unknown; hasEOL?: unknown };
    if (typeof str !== 'string') continue;
    text += hasEOL === true ? `${str}\n` : str;
  }
  return text;
}

/** Text of pages `1…count`, `PAGE_CONCURRENCY` at a time, each page freed once read. */
async function readPages(
  getPage: (pageNumber: number) => Promise<PdfPage>,
  count: number,
): Promise<string[]> {
  const texts: string[] = new Array<string>(count);
  let next = 1;
  const reader = async (): Promise<void> => {
    while (next <= count) {
      const pageNumber = next++;
      const page = await getPage(pageNumber);
      texts[pageNumber - 1] = pageText((await page.getTextContent()).items);
      page.cleanup?.();
    }
  };
  await Promise.all(Array.from({ length: Math.min(PAGE_CONCURRENCY, count) }, reader));
  return texts;
}

function infoString(info: unknown, key: string): string | undefined {
  if (typeof info !== 'object' || info === null) return undefined;
  const value = (info as Record<string, unknown>)[key];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** The parsed PDF from its pages' text and its information dictionary. */
function pdfContent(text: readonly string[], info: unknown): PdfContent {
  const metadata: Record<string, MetadataValue> = { pages: text.length };
  const author = infoString(info, 'Author');
  const subject = infoString(info, 'Subject');
  if (author) metadata.author = author;
  if (subject) metadata.subject = subject;
  return {
    // A form feed inside a page would read as a page break.
    pages: text.map((page) => page.replace(/\f/g, '\n').trim()),
    title: infoString(info, 'Title'),
    metadata,
  };
}

/**
 * Text per page of a PDF, with its title and author. The own reader (`pdf-text.ts`) reads
 * what it can, within `limits` while it parses; a PDF it declines (encryption, Type 3 or CID
 * fonts without ToUnicode, filters other than Flate, a structure it cannot resolve) is read
 * with `unpdf` (an optional peer): its streams are inflated within `limits.maxExpandedBytes`
 * first, and a PDF of more than `limits.maxPages` pages is refused before any page is read.
 * Throws `LoadLimitError` past a limit, `ConfigError` when a declined PDF needs unpdf and it
 * is not installed.
 */
export async function parsePdf(
  bytes: Uint8Array,
  options: {
    readonly library?: LibrarySource<UnpdfLibrary> | undefined;
    readonly limits?: LoadLimits | undefined;
  } = {},
): Promise<PdfContent> {
  const limits = options.limits ?? DEFAULT_LOAD_LIMITS;
  try {
    const own = readPdfText(bytes, limits);
    return pdfContent(own.pages, own.info);
  } catch (error) {
    if (error instanceof LoadLimitError) throw error;
    // Declined (`PdfUnsupportedError`), damaged in a way pdf.js may still read
    // (`PdfSyntaxError`), or anything else the own reader did not expect: pdf.js decides.
  }
  return parseWithUnpdf(bytes, options.library, limits);
}

/** The PDF read by pdf.js (through `unpdf`), within `limits`. */
async function parseWithUnpdf(
  bytes: Uint8Array,
  library: LibrarySource<UnpdfLibrary> | undefined,
  limits: LoadLimits,
): Promise<PdfContent> {
  const unpdf = await importOptional<UnpdfLibrary>({
    name: 'unpdf',
    load: () => import('unpdf'),
    injected: library,
    neededBy: 'cortexis/loaders',
    purpose: 'for PDF files',
    setting: 'unpdf',
  });
  checkPdfPages(bytes, limits);
  checkPdfStreams(bytes, limits);
  // pdf.js takes ownership of (detaches) the buffer it is given: pass a copy.
  const pdf = await unpdf.getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
  try {
    if (pdf.numPages > limits.maxPages) {
      throw new LoadLimitError(
        'maxPages',
        `${pdf.numPages} pages, more than maxPages (${limits.maxPages})`,
      );
    }
    const text =
      pdf.getPage === undefined
        ? (await unpdf.extractText(pdf, { mergePages: false })).text
        : await readPages(pdf.getPage.bind(pdf), pdf.numPages);
    const info = await pdf
      .getMetadata()
      .then((meta) => meta.info)
      .catch(() => undefined);
    return pdfContent(text, info);
  } finally {
    await pdf.destroy().catch(() => undefined);
  }
}
