/**
 * Document loaders for Node: walks files, folders and glob patterns and turns Markdown, HTML,
 * PDF, DOCX, plain text and JSON / JSONL records into documents for `engine.ingest`, reporting
 * every file it leaves out and why. PDF and DOCX files are read by cortexis's own readers; a
 * PDF the own reader declines (encryption, Type 3 fonts…) needs the optional peer `unpdf`.
 * @module
 * @example
 * ```ts
 * import { createChatEngine } from 'cortexis';
 * import { loadDocuments } from 'cortexis/loaders';
 *
 * const { documents, skipped } = await loadDocuments(['docs/', 'policies/**\/*.pdf']);
 * for (const file of skipped) console.warn(`skipped ${file.path}: ${file.reason}`);
 * const engine = createChatEngine();
 * await engine.ingest(documents);
 * ```
 */
import { stat } from 'node:fs/promises';
import { basename, extname, relative, resolve, sep } from 'node:path';
import { ConfigError, ValidationError } from '../errors/index.js';
import type { MetadataValue } from '../ports/common.js';
import type { IngestDocument } from '../types.js';
import type { LibrarySource } from '../util/optional-import.js';
import type { MammothLibrary } from './docx.js';
import type { UnpdfLibrary } from './pdf.js';
import type { RecordFields, RecordResult } from './records.js';
import { fileTitle } from './text.js';
import { walkPaths, type SkipCode, type SkippedFile } from './walk.js';
import { isGlob, globBase } from './glob.js';
import { LoadLimitError, resolveLimits, type LoadLimits } from './limits.js';
import { readRegularFile } from './read.js';
import { storableDocumentProblem } from './check.js';
import { parseBytes, type ParseJob, type Parsed } from './parse.js';
import { PARSE_POOL, ParsePool, ParseTimeoutError, sharedParsePool } from './pool.js';

export { parseMarkdown, splitFrontMatter, type MarkdownContent } from './markdown.js';
export { parseHtml, type HtmlContent } from './html.js';
export { parsePdf, PAGE_BREAK, type PdfContent, type PdfPage, type UnpdfLibrary } from './pdf.js';
export { parseDocx, type MammothLibrary } from './docx.js';
export type { LibrarySource } from '../util/optional-import.js';
export {
  parseJsonLines,
  parseJsonRecords,
  type RecordFields,
  type RecordResult,
} from './records.js';
export { DEFAULT_IGNORE, type SkipCode, type SkippedFile } from './walk.js';
export { DEFAULT_LOAD_LIMITS, LoadLimitError, type LoadLimits } from './limits.js';

/** The kinds of file `loadDocuments` reads, by file ending. */
export const FILE_TYPES = {
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.txt': 'text',
  '.text': 'text',
  '.html': 'html',
  '.htm': 'html',
  '.xhtml': 'html',
  '.pdf': 'pdf',
  '.docx': 'docx',
  '.json': 'json',
  '.jsonl': 'jsonl',
  '.ndjson': 'jsonl',
} as const satisfies Record<string, string>;

/** A kind of file `loadDocuments` reads. */
export type FileType = (typeof FILE_TYPES)[keyof typeof FILE_TYPES];

/** Default most bytes of a file: 50 MiB. */
export const DEFAULT_MAX_FILE_BYTES = 50 * 1024 * 1024;
/** Default most characters of a document's text: the engine's default `limits.maxDocumentLength`. */
export const DEFAULT_MAX_TEXT_LENGTH = 10_000_000;

/** How far `loadDocuments` has got. */
export interface LoadProgress {
  /** Files read so far (loaded or skipped). */
  readonly filesDone: number;
  /** Files found. */
  readonly filesTotal: number;
  /** The file just read. */
  readonly path: string;
}

/** Options of `loadDocuments`. */
export interface LoadOptions extends RecordFields {
  /**
   * Document ids are file paths relative to this folder, with `/` separators. Default: the
   * folder given when one folder (or one pattern, its folder) is given, else the current one.
   */
  readonly root?: string | undefined;
  /**
   * Names (`draft-*.md`, `build`) or paths relative to a walked folder (`old/**`) left out,
   * gitignore-style; dot-files and `node_modules` are always left out of folders.
   */
  readonly ignore?: readonly string[] | undefined;
  /**
   * The name of an ignore file read at the top of each folder given (the CLI uses
   * `.cortexisignore`): one `ignore` pattern per line, `#` comments. No file of that name: nothing
   * more is left out; a bad one (negation, a folder, over 64 KiB): a `ConfigError`. Default: none.
   */
  readonly ignoreFile?: string | undefined;
  /** Files larger than this many bytes are skipped (`too-large`). Default 50 MiB. */
  readonly maxFileBytes?: number | undefined;
  /**
   * Documents with more characters of text are skipped (`too-large`): pass the engine's
   * `limits.maxDocumentLength` when you change it. Default 10,000,000 (the engine's default).
   */
  readonly maxTextLength?: number | undefined;
  /**
   * How far a file may expand while parsed (inflated bytes, pages, paragraphs, front matter
   * keys, nesting); a file past one is skipped (`too-large`). Defaults: `DEFAULT_LOAD_LIMITS`.
   */
  readonly limits?: Partial<LoadLimits> | undefined;
  /**
   * Follow symlinks wherever they lead. Default `false`: a symlink in a folder must lead inside
   * it, and one given as an argument inside `root` (else its own folder); others are skipped.
   */
  readonly symlinksOutside?: boolean | undefined;
  /** Called after each file. */
  readonly onProgress?: ((progress: LoadProgress) => void) | undefined;
  /**
   * The `unpdf` module (or a function loading it) for the PDF files cortexis's own PDF reader
   * declines (encrypted, Type 3 fonts…). Default: `import('unpdf')`, when such a file comes.
   */
  readonly unpdf?: LibrarySource<UnpdfLibrary> | undefined;
  /**
   * The `mammoth` module (or a function loading it): DOCX files are then converted by mammoth
   * instead of cortexis's own DOCX reader (the default, which needs no peer).
   */
  readonly mammoth?: LibrarySource<MammothLibrary> | undefined;
  /** Stops loading; the promise rejects with the signal's reason. */
  readonly signal?: AbortSignal | undefined;
  /**
   * Parse files in a worker thread (one, reused), so a parser stuck on a file is stopped at
   * `limits.parseTimeoutMs` and the file skipped (`timeout`). Default `true`; `false` parses on
   * the calling thread, without that deadline. PDF and DOCX files are parsed on the calling
   * thread when `unpdf` / `mammoth` is injected (a module cannot cross into a worker).
   */
  readonly worker?: boolean | undefined;
}

/** What `loadDocuments` found. */
export interface LoadResult {
  /** Documents, in path order; each has `id`, `title`, `text`, `uri` and `metadata.fileType`. */
  documents: IngestDocument[];
  /** Every file (or record) not loaded, with the reason. */
  skipped: SkippedFile[];
}

function invalid(path: string, message: string): ValidationError {
  return new ValidationError(`Invalid load options: ${path} ${message}`, [{ path, message }]);
}

function checkOptions(paths: unknown, options: LoadOptions): void {
  if (!Array.isArray(paths) || paths.some((path) => typeof path !== 'string' || path === '')) {
    throw invalid('paths', 'must be an array of non-empty strings');
  }
  const { ignore, limits, worker } = options;
  if (worker !== undefined && typeof worker !== 'boolean')
    throw invalid('worker', 'must be a boolean');
  for (const key of ['maxFileBytes', 'maxTextLength'] as const) {
    const value = options[key];
    if (value !== undefined && !(Number.isInteger(value) && value > 0)) {
      throw invalid(key, 'must be a positive integer');
    }
  }
  if (limits !== undefined) {
    if (typeof limits !== 'object' || limits === null) throw invalid('limits', 'must be an object');
    const known = Object.keys(resolveLimits(undefined));
    for (const [key, value] of Object.entries(limits)) {
      if (!known.includes(key))
        throw invalid('limits', `has an unknown key (known: ${known.join(', ')})`);
      if (value !== undefined && !(Number.isSafeInteger(value) && (value as number) > 0)) {
        throw invalid(`limits.${key}`, 'must be a positive integer');
      }
    }
  }
  if (
    ignore !== undefined &&
    (!Array.isArray(ignore) || ignore.some((p) => typeof p !== 'string'))
  ) {
    throw invalid('ignore', 'must be an array of strings');
  }
  const { ignoreFile } = options;
  if (
    ignoreFile !== undefined &&
    (typeof ignoreFile !== 'string' || ignoreFile === '' || /[\\/]|^\.\.?$/.test(ignoreFile))
  ) {
    throw invalid('ignoreFile', 'must be a file name (no folder part)');
  }
  for (const key of ['textField', 'idField', 'titleField'] as const) {
    const value = options[key];
    if (value !== undefined && (typeof value !== 'string' || value === '')) {
      throw invalid(key, 'must be a non-empty string');
    }
  }
}

async function defaultRoot(paths: readonly string[]): Promise<string> {
  if (paths.length !== 1) return resolve('.');
  const [only] = paths as [string];
  const literal = await stat(only).then(
    () => true,
    () => false,
  );
  return resolve(isGlob(only) && !literal ? globBase(only) : only);
}

function documentId(root: string, path: string): string {
  const rel = relative(root, path);
  return rel === '' ? fileTitle(path) + extname(path) : rel.split(sep).join('/');
}

/** What one file yields: documents, or a reason to skip it. */
type FileResult =
  | { readonly documents: IngestDocument[]; readonly skipped: SkippedFile[] }
  | { readonly skip: SkipCode; readonly reason: string };

interface FileContext {
  readonly path: string;
  readonly id: string;
  readonly bytes: Uint8Array;
  readonly metadata: Record<string, MetadataValue>;
  readonly options: LoadOptions;
  readonly limits: LoadLimits;
}

function single(
  context: FileContext,
  fileType: FileType,
  text: string,
  title: string | undefined,
  metadata: Record<string, MetadataValue> = {},
): FileResult {
  if (text.trim() === '') {
    const reason = fileType === 'pdf' ? 'no text layer (a scanned PDF needs OCR first)' : 'no text';
    return { skip: 'empty', reason };
  }
  const limit = context.options.maxTextLength ?? DEFAULT_MAX_TEXT_LENGTH;
  if (text.length > limit) {
    return {
      skip: 'too-large',
      reason: `text of ${text.length} characters, more than maxTextLength (${limit})`,
    };
  }
  const document: IngestDocument = {
    id: context.id,
    title: (title ?? fileTitle(context.path)).slice(0, 1000),
    text,
    uri: context.path,
    metadata: { ...metadata, ...context.metadata, fileType },
  };
  return { documents: [document], skipped: [] };
}

function fromRecords(
  context: FileContext,
  fileType: FileType,
  records: RecordResult[],
): FileResult {
  const documents: IngestDocument[] = [];
  const skipped: SkippedFile[] = [];
  const where = fileType === 'jsonl' ? 'line' : 'record';
  for (const record of records) {
    const path = `${context.path}:${record.position}`;
    if (!record.ok) {
      skipped.push({
        path,
        code: record.empty ? 'empty' : 'parse-error',
        reason: `${where} ${record.position}: ${record.reason}`,
      });
      continue;
    }
    documents.push({
      id: record.id ?? `${context.id}#${record.position}`,
      title: (record.title ?? `${fileTitle(context.path)} #${record.position}`).slice(0, 1000),
      text: record.text,
      uri: context.path,
      metadata: { ...record.metadata, ...context.metadata, fileType, record: record.position },
    });
  }
  if (documents.length === 0 && skipped.length === 0)
    return { skip: 'empty', reason: 'no records' };
  return { documents, skipped };
}

/**
 * The types parsed in the worker: those whose parsers are libraries that could get stuck.
 * Plain text and JSON records (decoding, `JSON.parse`: linear, native) stay on this thread,
 * where they cost a tenth of a worker's round trip.
 */
const IN_WORKER: ReadonlySet<FileType> = new Set(['markdown', 'html', 'pdf', 'docx']);

/** Parses in the worker when it can, else on this thread (see `LoadOptions.worker`). */
async function parseFile(fileType: FileType, context: FileContext): Promise<Parsed> {
  const { bytes, options, limits } = context;
  const job: ParseJob = {
    fileType,
    bytes,
    limits,
    fields: {
      textField: options.textField,
      idField: options.idField,
      titleField: options.titleField,
    },
  };
  const injected =
    (fileType === 'pdf' && options.unpdf !== undefined) ||
    (fileType === 'docx' && options.mammoth !== undefined);
  if (options.worker !== false && !injected && IN_WORKER.has(fileType)) {
    const pool = (options as { [PARSE_POOL]?: ParsePool })[PARSE_POOL] ?? sharedParsePool();
    const parsed = await pool.parse(job, limits.parseTimeoutMs);
    if (parsed !== undefined) return parsed;
  }
  return parseBytes(job, { unpdf: options.unpdf, mammoth: options.mammoth });
}

async function readAs(fileType: FileType, context: FileContext): Promise<FileResult> {
  const parsed = await parseFile(fileType, context);
  if (parsed.kind === 'records') return fromRecords(context, fileType, parsed.records);
  return single(context, fileType, parsed.text, parsed.title, parsed.metadata);
}

function skipFor(error: unknown): { skip: SkipCode; reason: string } {
  if (ConfigError.isInstance(error)) return { skip: 'missing-dependency', reason: error.message };
  if (error instanceof LoadLimitError) return { skip: 'too-large', reason: error.message };
  if (error instanceof ParseTimeoutError) return { skip: 'timeout', reason: error.message };
  const { name, message } = error as Error;
  if (name === 'BinaryContentError') return { skip: 'binary', reason: message };
  return { skip: 'parse-error', reason: `cannot parse: ${message}` };
}

/**
 * The kind of a file by its ending; a file named `README` with no ending (as many packages and
 * repositories ship it) is read as Markdown, a superset of the plain text such files hold.
 */
function fileTypeOf(path: string): FileType | undefined {
  const ending = extname(path).toLowerCase();
  if (ending === '' && basename(path).toLowerCase() === 'readme') return 'markdown';
  return (FILE_TYPES as Record<string, FileType | undefined>)[ending];
}

async function loadFile(path: string, root: string, options: LoadOptions): Promise<FileResult> {
  const fileType = fileTypeOf(path);
  if (!fileType) {
    const supported = Object.keys(FILE_TYPES).join(', ');
    const ending = extname(path).toLowerCase();
    const what = ending ? `'${ending}'` : '(no file ending)';
    return {
      skip: 'unsupported',
      reason: `unsupported file type ${what}; supported: ${supported}`,
    };
  }
  const read = await readRegularFile(path, options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES);
  if ('skip' in read) return read;
  const context: FileContext = {
    path,
    id: documentId(root, path),
    bytes: read.bytes,
    metadata: { modifiedAt: read.modifiedAt.toISOString() },
    options,
    limits: resolveLimits(options.limits),
  };
  try {
    return await readAs(fileType, context);
  } catch (error) {
    return skipFor(error);
  }
}

/**
 * Loads every supported file under the given files, folders and glob patterns (`docs/**\/*.md`).
 * Folders are walked in name order, leaving out `ignore` patterns, dot-files and `node_modules`;
 * symlinks are followed only inside the folder and never in a loop. Every file not loaded is
 * in `skipped` with a reason: unsupported type, binary, too large, parse error, empty, missing
 * optional dependency, symlink, duplicate or not found. Document ids are unique: a later file
 * or record with an id already taken is skipped as `duplicate`.
 */
export async function loadDocuments(
  paths: readonly string[],
  options: LoadOptions = {},
): Promise<LoadResult> {
  checkOptions(paths, options);
  const root = options.root === undefined ? await defaultRoot(paths) : resolve(options.root);
  const walked = await walkPaths(paths, {
    ignore: options.ignore,
    ignoreFile: options.ignoreFile,
    signal: options.signal,
    root: options.root,
    symlinksOutside: options.symlinksOutside,
  });
  const documents: IngestDocument[] = [];
  const skipped = [...walked.skipped];
  const ids = new Map<string, string>();
  const maxTextLength = options.maxTextLength ?? DEFAULT_MAX_TEXT_LENGTH;
  let filesDone = 0;
  for (const { path } of walked.files) {
    options.signal?.throwIfAborted();
    const result = await loadFile(path, root, options);
    if ('skip' in result) {
      skipped.push({ path, code: result.skip, reason: result.reason });
    } else {
      for (const document of result.documents) {
        const record = document.metadata?.['record'];
        const where = typeof record === 'number' ? `${path}:${record}` : path;
        // What `engine.ingest` would refuse is skipped here, with its reason.
        const problem = storableDocumentProblem(document, maxTextLength);
        if (problem !== undefined) {
          skipped.push({ path: where, ...problem });
          continue;
        }
        const owner = ids.get(document.id);
        if (owner !== undefined) {
          skipped.push({
            path,
            code: 'duplicate',
            reason: `id '${document.id}' already used by ${owner}`,
          });
          continue;
        }
        ids.set(document.id, path);
        documents.push(document);
      }
      skipped.push(...result.skipped);
    }
    options.onProgress?.({ filesDone: ++filesDone, filesTotal: walked.files.length, path });
  }
  return { documents, skipped };
}
