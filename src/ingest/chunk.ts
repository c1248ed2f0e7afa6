/**
 * Token-aware chunking that follows the document's structure: markdown headings start a new
 * chunk and give its heading path; paragraphs and code fences stay whole when they fit; an
 * oversized paragraph is split at sentences, an oversized sentence or line at tokens.
 * @module
 */
import { ValidationError } from '../errors/index.js';
import type { Tokenizer } from '../ports/tokenizer.js';
import { splitSentences } from '../text/sentences.js';
import { spanCounters } from './token-count.js';

/** One chunk of a document. */
export interface TextChunk {
  /** The chunk text: exactly `source.slice(start, end)`. */
  readonly text: string;
  /** Offset of the chunk's first character in the source text. */
  readonly start: number;
  /** Offset after the chunk's last character in the source text. */
  readonly end: number;
  /** Tokens in `text`, counted by the tokenizer; never more than `chunkSize`. */
  readonly tokenCount: number;
  /** Titles of the markdown headings the chunk sits under, outermost first. */
  readonly headingPath: string[];
}

/** Options of `chunkText`. */
export interface ChunkOptions {
  /** Counts tokens (and cuts sentences longer than a chunk). */
  readonly tokenizer: Tokenizer;
  /** Most tokens in a chunk; an integer of at least 16. Default 512. */
  readonly chunkSize?: number | undefined;
  /**
   * Tokens of whole trailing sentences of the previous chunk repeated at the start of the next
   * one in the same section; an integer from 0 to below `chunkSize`. Default 64 (at most a
   * quarter of `chunkSize`).
   */
  readonly chunkOverlap?: number | undefined;
}

/** Default most tokens per chunk. */
export const DEFAULT_CHUNK_SIZE = 512;
/** Default overlap between consecutive chunks, in tokens. */
export const DEFAULT_CHUNK_OVERLAP = 64;
const MIN_CHUNK_SIZE = 16;

// Above this many characters per allowed token a span is assumed too long to fit and is split
// without counting it whole first. Only a speed heuristic: every result is counted.
const FIT_CHARS_PER_TOKEN = 5;

type BlockKind = 'heading' | 'paragraph' | 'code' | 'page-break';

/** A markdown block: a heading line, a paragraph, a fenced code block or a page break. */
interface Block {
  readonly kind: BlockKind;
  readonly start: number;
  readonly end: number;
  /** Heading level 1–6 (headings only). */
  readonly level: number;
  /** Heading title (headings only). */
  readonly title: string;
}

/** Blocks from one heading (or the document start) to the next heading after some content. */
interface Section {
  readonly headingPath: string[];
  readonly blocks: Block[];
}

type AtomKind = 'heading' | 'paragraph' | 'sentence' | 'code' | 'line' | 'piece';

/** The smallest unit chunks are packed from; never more than `chunkSize` tokens. */
interface Atom {
  readonly kind: AtomKind;
  readonly start: number;
  readonly end: number;
  readonly tokens: number;
  /** Estimated tokens of the separator before this atom when it follows another one. */
  readonly join: number;
}

/** A whole sentence that can be repeated as overlap. */
interface Span {
  readonly start: number;
  readonly tokens: number;
}

interface Context {
  readonly text: string;
  readonly tokenizer: Tokenizer;
  readonly chunkSize: number;
  readonly chunkOverlap: number;
  /** Exact tokens of `text[start, end)` (see `token-count.ts`). */
  readonly count: (start: number, end: number) => number;
  /** At least the tokens of `text[start, end)`; cheaper than `count` for unseen words. */
  readonly bound: (start: number, end: number) => number;
  /** Whether every chunk's `tokenCount` must be the exact count. */
  readonly exact: boolean;
  /** Whether `bound` is the exact count already (no need to count again). */
  readonly boundIsCount: boolean;
}

/** Splits text into token-bounded chunks that respect headings, paragraphs and sentences. */
export function chunkText(text: string, options: ChunkOptions): TextChunk[] {
  return chunkSpans(text, options, true);
}

/**
 * The chunks of `chunkText` (the same cuts), for callers that do not keep `tokenCount`: with
 * `exact` false, a chunk that is a whole section may carry an upper bound of its count (still
 * at most `chunkSize`), so that a section known to fit is not byte-pair encoded.
 */
export function chunkSpans(text: string, options: ChunkOptions, exact: boolean): TextChunk[] {
  const context = resolveOptions(text, options, exact);
  const chunks: TextChunk[] = [];
  for (const section of parseSections(parseBlocks(text))) {
    append(chunks, chunkSection(section, context));
  }
  return chunks;
}

/** A markdown section of a text: from a heading (or the start) to the next heading after content. */
export interface TextSection {
  /** Offset of the section's first character. */
  readonly start: number;
  /** Offset after the section's last character. */
  readonly end: number;
  /** Titles of the headings the section sits under, its own last. */
  readonly headingPath: string[];
}

/** The text's markdown sections, in order (headings inside code fences do not count). */
export function splitSections(text: string): TextSection[] {
  const sections: TextSection[] = [];
  for (const section of parseSections(parseBlocks(text))) {
    const first = section.blocks[0];
    const last = section.blocks[section.blocks.length - 1];
    if (first && last) {
      sections.push({ start: first.start, end: last.end, headingPath: section.headingPath });
    }
  }
  return sections;
}

/**
 * Appends `items` to `target` one by one: `push(...items)` passes every item as an argument and
 * overflows the call stack on a long list (a huge paragraph has millions of sentences).
 */
function append<T>(target: T[], items: readonly T[]): void {
  for (const item of items) target.push(item);
}

function invalid(path: string, message: string): ValidationError {
  return new ValidationError(`Invalid chunk options: ${path} ${message}`, [{ path, message }]);
}

function resolveOptions(text: string, options: ChunkOptions, exact: boolean): Context {
  const { tokenizer } = options;
  if (typeof tokenizer?.count !== 'function' || typeof tokenizer.encode !== 'function') {
    throw invalid('tokenizer', 'must be a Tokenizer');
  }
  const chunkSize = options.chunkSize ?? DEFAULT_CHUNK_SIZE;
  if (!Number.isInteger(chunkSize) || chunkSize < MIN_CHUNK_SIZE) {
    throw invalid('chunkSize', `must be an integer of at least ${MIN_CHUNK_SIZE}`);
  }
  const chunkOverlap = options.chunkOverlap ?? Math.min(DEFAULT_CHUNK_OVERLAP, chunkSize >> 2);
  if (!Number.isInteger(chunkOverlap) || chunkOverlap < 0 || chunkOverlap >= chunkSize) {
    throw invalid('chunkOverlap', 'must be an integer from 0 to below chunkSize');
  }
  const counters = spanCounters(tokenizer);
  return {
    text,
    tokenizer,
    chunkSize,
    chunkOverlap,
    count: (start, end) => counters.count(text, start, end),
    bound: (start, end) => counters.bound(text, start, end),
    exact,
    boundIsCount: counters.boundIsCount,
  };
}

// ---------------------------------------------------------------------------------------------
// Structure

const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*))?$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** Start and end of `text[start, end)` without surrounding whitespace. */
function trimSpan(text: string, start: number, end: number): [number, number] {
  while (start < end && isSpace(text.charCodeAt(start))) start++;
  while (end > start && isSpace(text.charCodeAt(end - 1))) end--;
  return [start, end];
}

function isSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13) || code === 160 || code === 0xfeff;
}

function block(
  text: string,
  kind: BlockKind,
  start: number,
  end: number,
  level = 0,
  title = '',
): Block {
  const [from, to] = trimSpan(text, start, end);
  return { kind, start: from, end: to, level, title };
}

/** Headings, paragraphs (separated by blank lines) and fenced code blocks, in order. */
function parseBlocks(text: string): Block[] {
  const blocks: Block[] = [];
  let paragraphStart = -1;
  let paragraphEnd = -1;
  let fence: { marker: string; start: number } | undefined;
  const closeParagraph = (): void => {
    if (paragraphStart >= 0) blocks.push(block(text, 'paragraph', paragraphStart, paragraphEnd));
    paragraphStart = -1;
  };
  let position = 0;
  while (position < text.length) {
    const newline = text.indexOf('\n', position);
    const lineEnd = newline === -1 ? text.length : newline;
    const line = text.slice(position, lineEnd).replace(/\r$/, '');
    const marker = lineMarker(line);
    if (fence) {
      if (marker === '`' || marker === '~') {
        const close = FENCE.exec(line)?.[1] ?? '';
        if (isClosingFence(close, fence.marker, line)) {
          blocks.push(block(text, 'code', fence.start, lineEnd));
          fence = undefined;
        }
      }
    } else if (line.trim() === '') {
      closeParagraph();
      // A form feed (between PDF pages) ends the section: no chunk spans two pages.
      const formFeed = line.indexOf('\f');
      if (formFeed !== -1) {
        const at = position + formFeed;
        blocks.push({ kind: 'page-break', start: at, end: at + 1, level: 0, title: '' });
      }
    } else if (marker === '#' && HEADING.test(line)) {
      closeParagraph();
      const match = HEADING.exec(line)!;
      const title = (match[2] ?? '').replace(/(?:^|[ \t]+)#+[ \t]*$/, '').trim();
      blocks.push(block(text, 'heading', position, lineEnd, match[1]!.length, title));
    } else if ((marker === '`' || marker === '~') && FENCE.test(line)) {
      closeParagraph();
      fence = { marker: FENCE.exec(line)![1]!, start: position };
    } else {
      if (paragraphStart < 0) paragraphStart = position;
      paragraphEnd = lineEnd;
    }
    position = lineEnd + 1;
  }
  if (fence) blocks.push(block(text, 'code', fence.start, text.length));
  closeParagraph();
  return blocks.filter((item) => item.end > item.start);
}

/** Whether `line`, starting with fence `close`, closes a fence opened with `open`. */
function isClosingFence(close: string, open: string, line: string): boolean {
  return close[0] === open[0] && close.length >= open.length && line.trim() === close;
}

/** The first non-space character of a line, when it may open a heading or a fence. */
function lineMarker(line: string): string {
  const first = line.trimStart()[0];
  return first === '#' || first === '`' || first === '~' ? first : '';
}

/** Groups blocks into sections; headings with no content before the next one share its section. */
function parseSections(blocks: readonly Block[]): Section[] {
  const sections: Section[] = [];
  const path: { level: number; title: string }[] = [];
  let current: Section | undefined;
  let hasContent = false;
  for (const item of blocks) {
    if (item.kind === 'page-break') {
      // The next content starts a new section under the same headings.
      if (current && hasContent) {
        current = { headingPath: current.headingPath, blocks: [] };
        sections.push(current);
        hasContent = false;
      }
      continue;
    }
    if (item.kind === 'heading') {
      while (path.length > 0 && path[path.length - 1]!.level >= item.level) path.pop();
      path.push({ level: item.level, title: item.title });
      const headingPath = path.map((entry) => entry.title).filter((title) => title !== '');
      if (current && !hasContent) {
        current = { headingPath, blocks: [...current.blocks, item] };
        sections[sections.length - 1] = current;
      } else {
        current = { headingPath, blocks: [item] };
        sections.push(current);
      }
      hasContent = false;
      continue;
    }
    if (!current) {
      current = { headingPath: [], blocks: [] };
      sections.push(current);
    }
    current.blocks.push(item);
    hasContent = true;
  }
  return sections;
}

// ---------------------------------------------------------------------------------------------
// Atoms: every span counted once

/** The section's atoms; `tooLong` is a block already counted and found over `chunkSize`. */
function sectionAtoms(section: Section, context: Context, tooLong?: Block): Atom[] {
  const atoms: Atom[] = [];
  for (const item of section.blocks) {
    if (item.kind === 'paragraph') append(atoms, proseAtoms(item, context, item === tooLong));
    else if (item.kind === 'code') append(atoms, codeAtoms(item, context, item === tooLong));
    else append(atoms, spanAtoms('heading', item.start, item.end, 1, context));
  }
  return atoms;
}

/** The span as one atom when it fits, else cut at token boundaries. */
function spanAtoms(
  kind: AtomKind,
  start: number,
  end: number,
  join: number,
  context: Context,
): Atom[] {
  const tokens = context.count(start, end);
  if (tokens <= context.chunkSize) return [{ kind, start, end, tokens, join }];
  return tokenPieces(start, end, join, context);
}

function likelyTooLong(start: number, end: number, context: Context): boolean {
  return end - start > context.chunkSize * FIT_CHARS_PER_TOKEN;
}

/** A paragraph as one atom when it fits, else its sentences (each cut at tokens if needed). */
function proseAtoms(paragraph: Block, context: Context, tooLong: boolean): Atom[] {
  const { text, chunkSize } = context;
  const { start, end } = paragraph;
  if (!tooLong && !likelyTooLong(start, end, context)) {
    const tokens = context.count(start, end);
    if (tokens <= chunkSize) return [{ kind: 'paragraph', start, end, tokens, join: 1 }];
  }
  const atoms: Atom[] = [];
  for (const sentence of sentenceSpans(text, start, end)) {
    const join = atoms.length === 0 ? 1 : 0;
    append(atoms, spanAtoms('sentence', sentence.start, sentence.end, join, context));
  }
  return atoms;
}

/** A code block as one atom when it fits, else its lines (each cut at tokens if needed). */
function codeAtoms(code: Block, context: Context, tooLong: boolean): Atom[] {
  const { text, chunkSize } = context;
  if (!tooLong && !likelyTooLong(code.start, code.end, context)) {
    const tokens = context.count(code.start, code.end);
    if (tokens <= chunkSize) {
      return [{ kind: 'code', start: code.start, end: code.end, tokens, join: 1 }];
    }
  }
  const atoms: Atom[] = [];
  let position = code.start;
  while (position < code.end) {
    const newline = text.indexOf('\n', position);
    const lineEnd = newline === -1 || newline > code.end ? code.end : newline;
    const [start, end] = trimSpan(text, position, lineEnd);
    if (end > start) append(atoms, spanAtoms('line', start, end, 1, context));
    position = lineEnd + 1;
  }
  return atoms;
}

/** Sentences of `text[start, end)` with absolute offsets. */
function sentenceSpans(text: string, start: number, end: number): { start: number; end: number }[] {
  return splitSentences(text.slice(start, end)).map((sentence) => ({
    start: start + sentence.start,
    end: start + sentence.end,
  }));
}

/** Cuts a span into pieces of at most `chunkSize` tokens, on character boundaries. */
function tokenPieces(start: number, end: number, join: number, context: Context): Atom[] {
  const { text, tokenizer, chunkSize } = context;
  const tokens = tokenizer.encode(text.slice(start, end));
  const pieces: Atom[] = [];
  let index = 0;
  let position = start;
  let window = chunkSize;
  while (index < tokens.length && position < end) {
    const taken = alignedTake(tokens, index, window, position, end, context);
    const [from, to] = trimSpan(text, position, position + taken.length);
    const count = to > from ? context.count(from, to) : 0;
    if (count > chunkSize && taken.tokens > 1) {
      // Re-encoded alone the piece came out longer; retry with a smaller window.
      window = Math.max(1, Math.min(window, taken.tokens) - (count - chunkSize));
      continue;
    }
    if (count > 0) {
      pieces.push({
        kind: 'piece',
        start: from,
        end: to,
        tokens: count,
        join: pieces.length > 0 ? 0 : join,
      });
    }
    index += taken.tokens;
    position += taken.length;
    window = chunkSize;
  }
  return pieces;
}

/**
 * Up to `window` tokens from `index` whose decoded text is exactly the source text at
 * `position` (a cut inside a multi-byte character is moved to the character's edge).
 */
function alignedTake(
  tokens: readonly number[],
  index: number,
  window: number,
  position: number,
  end: number,
  context: Context,
): { tokens: number; length: number } {
  const { text, tokenizer } = context;
  const available = tokens.length - index;
  const limit = Math.min(window, available);
  const matches = (decoded: string): boolean =>
    decoded.length > 0 && position + decoded.length <= end && text.startsWith(decoded, position);
  for (let take = limit; take > 0; take--) {
    const decoded = tokenizer.decode(tokens.slice(index, index + take));
    if (matches(decoded)) return { tokens: take, length: decoded.length };
  }
  // The window ends inside one character that spans more tokens than the window: extend it.
  for (let take = limit + 1; take <= available; take++) {
    const decoded = tokenizer.decode(tokens.slice(index, index + take));
    if (matches(decoded)) return { tokens: take, length: decoded.length };
  }
  // A tokenizer whose decode does not reproduce the text: take the rest as it is.
  return { tokens: available, length: end - position };
}

// ---------------------------------------------------------------------------------------------
// Packing

function chunkSection(section: Section, context: Context): TextChunk[] {
  const { text, chunkSize } = context;
  const first = section.blocks[0];
  const last = section.blocks[section.blocks.length - 1];
  if (!first || !last) return [];
  // Most sections fit whole: count them once and be done (or bound them, when that shows
  // they fit and the exact count is not wanted).
  let tooLong: Block | undefined;
  if (!likelyTooLong(first.start, last.end, context)) {
    const tokenCount = context.exact
      ? context.count(first.start, last.end)
      : fitCount(first.start, last.end, context);
    if (tokenCount <= chunkSize) {
      return [makeChunk(text, first.start, last.end, tokenCount, section.headingPath)];
    }
    // A one-block section was just counted whole: do not count the block again.
    if (first === last) tooLong = first;
  }
  return packAtoms(sectionAtoms(section, context, tooLong), section.headingPath, context);
}

/** The bound of a span when it shows the span fits (or is exact), else its exact count. */
function fitCount(start: number, end: number, context: Context): number {
  const bound = context.bound(start, end);
  return bound <= context.chunkSize || context.boundIsCount ? bound : context.count(start, end);
}

function makeChunk(
  text: string,
  start: number,
  end: number,
  tokenCount: number,
  headingPath: readonly string[],
): TextChunk {
  return { text: text.slice(start, end), start, end, tokenCount, headingPath: [...headingPath] };
}

/** Greedy packing of atoms into chunks, each verified with a real count, with overlap. */
function packAtoms(
  atoms: readonly Atom[],
  headingPath: readonly string[],
  context: Context,
): TextChunk[] {
  const { text, chunkSize } = context;
  const chunks: TextChunk[] = [];
  let overlap: Span[] = [];
  let index = 0;
  while (index < atoms.length) {
    const head = atoms[index]!;
    let overlapTokens = sumTokens(overlap);
    while (overlap.length > 0 && overlapTokens + head.join + head.tokens > chunkSize) {
      overlap = overlap.slice(1);
      overlapTokens = sumTokens(overlap);
    }
    let used = head.tokens + (overlap.length > 0 ? overlapTokens + head.join : 0);
    let next = index + 1;
    while (next < atoms.length) {
      const atom = atoms[next]!;
      if (used + atom.join + atom.tokens > chunkSize) break;
      used += atom.join + atom.tokens;
      next++;
    }
    // Token counts of concatenations are only about additive: count the chunk and shrink it
    // (first the overlap, then trailing atoms) until the real count fits.
    let tokenCount = head.tokens;
    for (;;) {
      const start = overlap[0]?.start ?? head.start;
      const end = atoms[next - 1]!.end;
      const single = overlap.length === 0 && next === index + 1;
      tokenCount = single ? head.tokens : context.count(start, end);
      if (tokenCount <= chunkSize || single) break;
      if (overlap.length > 0) overlap = overlap.slice(1);
      else next--;
    }
    const start = overlap[0]?.start ?? head.start;
    chunks.push(makeChunk(text, start, atoms[next - 1]!.end, tokenCount, headingPath));
    overlap = next < atoms.length ? trailingSentences(atoms, index, next, start, context) : [];
    index = next;
  }
  return chunks;
}

function sumTokens(spans: readonly Span[]): number {
  let total = 0;
  for (const span of spans) total += span.tokens;
  return total;
}

/**
 * Whole trailing sentences of the chunk made of `atoms[from, to)` whose tokens add up to at
 * most `chunkOverlap`; never the chunk's first sentence, never code or headings.
 */
function trailingSentences(
  atoms: readonly Atom[],
  from: number,
  to: number,
  chunkStart: number,
  context: Context,
): Span[] {
  const { text, chunkOverlap } = context;
  const spans: Span[] = [];
  let total = 0;
  for (let index = to - 1; index >= from; index--) {
    const atom = atoms[index]!;
    let candidates: { start: number; end: number; tokens?: number }[];
    if (atom.kind === 'sentence') candidates = [atom];
    else if (atom.kind === 'paragraph') candidates = sentenceSpans(text, atom.start, atom.end);
    else break;
    for (let position = candidates.length - 1; position >= 0; position--) {
      const candidate = candidates[position]!;
      if (candidate.start <= chunkStart) return spans;
      const tokens = candidate.tokens ?? context.count(candidate.start, candidate.end);
      if (total + tokens > chunkOverlap) return spans;
      total += tokens;
      spans.unshift({ start: candidate.start, tokens });
    }
  }
  return spans;
}
