/**
 * The chunker port and the built-in chunkers. A chunker cuts one document into chunks; the
 * engine uses `chunking.chunker` (default `tokenChunker()`).
 * @module
 */
import { ValidationError } from '../errors/index.js';
import type { Metadata, MetadataValue } from '../ports/common.js';
import type { Tokenizer } from '../ports/tokenizer.js';
import { isMetadataValue } from '../query/metadata.js';
import type { IngestDocument } from '../types.js';
import { RESERVED_METADATA_KEYS } from '../validate.js';
import { chunkText, splitSections, type TextChunk } from './chunk.js';

/** One chunk a chunker returns. */
export interface DocumentChunk {
  /** The chunk text: embedded, keyword-indexed and quoted in answers. */
  readonly text: string;
  /** Titles of the headings the chunk sits under, outermost first (stored as `section`). */
  readonly headingPath?: readonly string[] | undefined;
  /**
   * Offset of the chunk in the document text when the chunk is a slice of it; with it, a chunk
   * of a document whose pages are separated by form feeds (PDF) gets `page` (and `pageEnd`).
   */
  readonly start?: number | undefined;
  /** Offset after the chunk's last character in the document text. */
  readonly end?: number | undefined;
  /** Metadata of this chunk only, added to the document's; reserved keys are not allowed. */
  readonly metadata?: Metadata | undefined;
}

/** What a chunker is given besides the document: the engine's `chunking` settings. */
export interface ChunkerContext {
  /** Counts tokens. */
  readonly tokenizer: Tokenizer;
  /** `chunking.chunkSize`: most tokens per chunk. */
  readonly chunkSize: number;
  /** `chunking.chunkOverlap`: tokens repeated between consecutive chunks. */
  readonly chunkOverlap: number;
}

/** Cuts a document into chunks (the chunker port); may be async. */
export type Chunker = (
  document: IngestDocument,
  context: ChunkerContext,
) => readonly DocumentChunk[] | Promise<readonly DocumentChunk[]>;

/**
 * The token counts of the built-in chunkers' chunks (exact, by the context's tokenizer), kept
 * beside them for the chunk records: a count a chunker returned is not trusted, one the
 * built-in chunkers counted themselves is.
 */
const exactCounts = new WeakMap<DocumentChunk, number>();

/** The token count of `chunk`'s text by the chunker context's tokenizer, when one was counted. */
export function countedTokens(chunk: DocumentChunk): number | undefined {
  return exactCounts.get(chunk);
}

function counted(chunk: DocumentChunk, tokens: number): DocumentChunk {
  exactCounts.set(chunk, tokens);
  return chunk;
}

function asDocumentChunk(chunk: TextChunk): DocumentChunk {
  const { text, start, end, headingPath } = chunk;
  return counted({ text, start, end, headingPath }, chunk.tokenCount);
}

/**
 * The default: token-aware chunks that follow the markdown structure (a heading starts a
 * chunk; paragraphs, sentences and code fences stay whole when they fit) with sentence overlap.
 */
export function tokenChunker(): Chunker {
  // Every chunk is counted exactly: the count is stored with the chunk and the turn does not
  // count it again (docs/benchmarks.md, tokencount).
  return (document, context) => chunkText(document.text, context).map(asDocumentChunk);
}

/** Options of `markdownSectionChunker`. */
export interface MarkdownSectionChunkerOptions {
  /**
   * Heading depth that starts a chunk: 2 (default) cuts at `#` and `##` and keeps `###` and
   * deeper subsections inside their parent's chunk. An integer from 1 to 6.
   */
  readonly depth?: number | undefined;
}

function invalid(path: string, message: string): ValidationError {
  return new ValidationError(`Invalid chunker options: ${path} ${message}`, [{ path, message }]);
}

function checkInteger(path: string, value: unknown, min: number, max: number): void {
  if (
    value !== undefined &&
    !(Number.isInteger(value) && (value as number) >= min && (value as number) <= max)
  ) {
    throw invalid(path, `must be an integer from ${min} to ${max}`);
  }
}

/**
 * One chunk per markdown section down to `depth`, whole (with its subsections) when it fits
 * in `chunkSize` tokens; a larger section is cut like `tokenChunker` does. Sections are never
 * merged and chunks do not overlap.
 */
export function markdownSectionChunker(options: MarkdownSectionChunkerOptions = {}): Chunker {
  checkInteger('depth', options.depth, 1, 6);
  const depth = options.depth ?? 2;
  return (document, context) => {
    const { text } = document;
    const groups: { start: number; end: number; headingPath: string[] }[] = [];
    for (const section of splitSections(text)) {
      const current = groups[groups.length - 1];
      if (current && section.headingPath.length > depth) current.end = section.end;
      else groups.push({ ...section, headingPath: section.headingPath.slice(0, depth) });
    }
    let fine: TextChunk[] | undefined;
    const chunks: DocumentChunk[] = [];
    for (const group of groups) {
      const slice = text.slice(group.start, group.end);
      const tokens = context.tokenizer.count(slice);
      if (tokens <= context.chunkSize) {
        chunks.push(
          counted(
            { text: slice, start: group.start, end: group.end, headingPath: group.headingPath },
            tokens,
          ),
        );
        continue;
      }
      // The token chunker never crosses a section: its chunks inside this group cut it.
      fine ??= chunkText(text, context);
      for (const chunk of fine) {
        if (chunk.start >= group.start && chunk.end <= group.end)
          chunks.push(asDocumentChunk(chunk));
      }
    }
    return chunks;
  };
}

/** Options of `fixedSizeChunker`. */
export interface FixedSizeChunkerOptions {
  /** Most tokens per chunk; an integer of at least 16. Default: `chunking.chunkSize`. */
  readonly size?: number | undefined;
  /** Tokens repeated from the end of a chunk at the start of the next. Default: `chunking.chunkOverlap`. */
  readonly overlap?: number | undefined;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13) || code === 160;
}

/** The furthest end after `start` whose slice has at most `size` tokens (never inside a pair). */
function windowEnd(text: string, start: number, size: number, tokenizer: Tokenizer): number {
  let low = start + 1;
  let high = Math.min(text.length, start + size * 32);
  if (tokenizer.count(text.slice(start, high)) <= size) return high;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (tokenizer.count(text.slice(start, middle)) <= size) low = middle;
    else high = middle - 1;
  }
  if (low < text.length && isHighSurrogate(text.charCodeAt(low - 1)) && low - 1 > start) low--;
  return low;
}

/**
 * Windows of at most `size` tokens with `overlap` tokens of overlap, regardless of structure;
 * a cut moves back to the last whitespace in the window's final fifth so words stay whole.
 * For text without structure (transcripts, logs, extracted PDF text) or strict size limits.
 */
export function fixedSizeChunker(options: FixedSizeChunkerOptions = {}): Chunker {
  checkInteger('size', options.size, 16, 1_000_000);
  checkInteger('overlap', options.overlap, 0, 1_000_000);
  return (document, context) => {
    const size = options.size ?? context.chunkSize;
    const overlap = options.overlap ?? Math.min(context.chunkOverlap, size >> 2);
    if (overlap >= size) throw invalid('overlap', 'must be smaller than size');
    const { text } = document;
    const { tokenizer } = context;
    const chunks: DocumentChunk[] = [];
    let start = 0;
    while (start < text.length) {
      while (start < text.length && isSpace(text.charCodeAt(start))) start++;
      if (start >= text.length) break;
      let end = windowEnd(text, start, size, tokenizer);
      if (end < text.length) {
        const floor = start + Math.floor(((end - start) * 4) / 5);
        for (let cut = end; cut > floor; cut--) {
          if (isSpace(text.charCodeAt(cut - 1))) {
            end = cut;
            break;
          }
        }
      }
      let trimmed = end;
      while (trimmed > start && isSpace(text.charCodeAt(trimmed - 1))) trimmed--;
      chunks.push({ text: text.slice(start, trimmed), start, end: trimmed });
      if (end >= text.length) break;
      // The next window starts `overlap` tokens before this one's end, at a word start.
      let next = end;
      if (overlap > 0) {
        let low = start + 1;
        let high = end;
        while (low < high) {
          const middle = (low + high) >> 1;
          if (tokenizer.count(text.slice(middle, end)) <= overlap) high = middle;
          else low = middle + 1;
        }
        next = low;
        // Start at a word when one starts soon (text without spaces has no words to keep).
        for (let at = next; at < Math.min(end, next + 32); at++) {
          if (isSpace(text.charCodeAt(at - 1))) {
            next = at;
            break;
          }
        }
      }
      start = next > start ? next : end;
    }
    return chunks;
  };
}

/** The 1-based page of an offset in text whose pages are separated by form feeds. */
export function pageAt(text: string, offset: number): number {
  let page = 1;
  for (let at = text.indexOf('\f'); at !== -1 && at < offset; at = text.indexOf('\f', at + 1)) {
    page++;
  }
  return page;
}

/** `page` (and `pageEnd` when the chunk spans pages) of a chunk of paged text; else nothing. */
export function pageMetadata(
  text: string,
  start: number,
  end: number,
): Record<string, MetadataValue> {
  if (!text.includes('\f')) return {};
  const page = pageAt(text, start);
  const pageEnd = pageAt(text, Math.max(start, end - 1));
  return pageEnd > page ? { page, pageEnd } : { page };
}

const NOT_BLANK = /\S/;

const RESERVED_CHUNK_KEYS: ReadonlySet<string> = new Set(RESERVED_METADATA_KEYS);

/** What is wrong with one chunk a chunker returned, if anything. */
function chunkProblem(chunk: unknown, textLength: number): [string, string] | undefined {
  if (typeof chunk !== 'object' || chunk === null) return ['', 'must be an object'];
  const { text, headingPath, start, end, metadata } = chunk as Record<string, unknown>;
  if (typeof text !== 'string') return ['text', 'must be a string'];
  if (
    headingPath !== undefined &&
    !(Array.isArray(headingPath) && headingPath.every((title) => typeof title === 'string'))
  ) {
    return ['headingPath', 'must be an array of strings'];
  }
  for (const [name, offset] of [
    ['start', start],
    ['end', end],
  ] as const) {
    if (
      offset !== undefined &&
      !(Number.isInteger(offset) && (offset as number) >= 0 && (offset as number) <= textLength)
    ) {
      return [name, `must be an integer from 0 to the text length (${textLength})`];
    }
  }
  if (metadata !== undefined) {
    if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
      return ['metadata', 'must be an object'];
    }
    for (const [key, value] of Object.entries(metadata)) {
      if (RESERVED_CHUNK_KEYS.has(key)) return [`metadata.${key}`, 'is reserved'];
      if (!isMetadataValue(value)) {
        return [`metadata.${key}`, 'must be a string, finite number, boolean or null'];
      }
    }
  }
  return undefined;
}

/**
 * Checks what a chunker returned for a document and drops blank chunks; anything malformed is
 * a `ValidationError` naming the document, the chunk and the field.
 */
export function checkChunkerOutput(
  output: unknown,
  document: IngestDocument,
): readonly DocumentChunk[] {
  const fail = (path: string, message: string) =>
    new ValidationError(
      `Invalid chunker output for document '${document.id}': ${path} ${message}`,
      [{ path: `chunking.chunker.${path}`, message }],
    );
  if (!Array.isArray(output)) throw fail('(result)', 'must be an array of chunks');
  output.forEach((chunk, index) => {
    const problem = chunkProblem(chunk, document.text.length);
    if (problem) throw fail(problem[0] ? `${index}.${problem[0]}` : String(index), problem[1]);
  });
  // `\S` is what `trim` keeps: a chunk of whitespace only is dropped, without copying text.
  return (output as DocumentChunk[]).filter((chunk) => NOT_BLANK.test(chunk.text));
}
