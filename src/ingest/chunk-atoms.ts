/**
 * The atoms chunks are packed from: a section's paragraphs, code blocks and headings as whole
 * spans when they fit a chunk, else their sentences or lines, else pieces cut at token
 * boundaries; every span is counted once.
 */
import type { Tokenizer } from '../ports/tokenizer.js';
import { splitSentences } from '../text/sentences.js';
import { trimSpan, type Block, type Section } from './chunk-structure.js';

// Above this many characters per allowed token a span is assumed too long to fit and is split
// without counting it whole first. Only a speed heuristic: every result is counted.
const FIT_CHARS_PER_TOKEN = 5;

export type AtomKind = 'heading' | 'paragraph' | 'sentence' | 'code' | 'line' | 'piece';

/** The smallest unit chunks are packed from; never more than `chunkSize` tokens. */
export interface Atom {
  readonly kind: AtomKind;
  readonly start: number;
  readonly end: number;
  readonly tokens: number;
  /** Estimated tokens of the separator before this atom when it follows another one. */
  readonly join: number;
}

/** A text being chunked, with its settings and token counters. */
export interface Context {
  readonly text: string;
  readonly tokenizer: Tokenizer;
  readonly chunkSize: number;
  readonly chunkOverlap: number;
  /** Exact tokens of `text[start, end)` (see `token-count.ts`). */
  readonly count: (start: number, end: number) => number;
}

/**
 * Appends `items` to `target` one by one: `push(...items)` passes every item as an argument and
 * overflows the call stack on a long list (a huge paragraph has millions of sentences).
 */
export function append<T>(target: T[], items: readonly T[]): void {
  for (const item of items) target.push(item);
}

/** The section's atoms; `tooLong` is a block already counted and found over `chunkSize`. */
export function sectionAtoms(section: Section, context: Context, tooLong?: Block): Atom[] {
  const atoms: Atom[] = [];
  const { blocks } = section;
  for (let index = 0; index < blocks.length; index++) {
    const item = blocks[index]!;
    const unit = leadInUnit(item, blocks[index + 1], context, tooLong);
    if (unit) {
      atoms.push(unit);
      index++;
      continue;
    }
    if (item.kind === 'paragraph') append(atoms, proseAtoms(item, context, item === tooLong));
    else if (item.kind === 'code') append(atoms, codeAtoms(item, context, item === tooLong));
    else append(atoms, spanAtoms('heading', item.start, item.end, 1, context));
  }
  return atoms;
}

/**
 * A paragraph and the code block, list or table right after it, as one atom when together they
 * fit a chunk: the sentence that introduces a block ("Set a default value:") is not cut from it.
 * It counts as code, so no overlap repeats a part of it.
 */
function leadInUnit(
  item: Block,
  following: Block | undefined,
  context: Context,
  tooLong: Block | undefined,
): Atom | undefined {
  if (item.kind !== 'paragraph' || !following || item === tooLong || following === tooLong) {
    return undefined;
  }
  if (!isStructured(following, context.text)) return undefined;
  if (likelyTooLong(item.start, following.end, context)) return undefined;
  const tokens = context.count(item.start, following.end);
  if (tokens > context.chunkSize) return undefined;
  return { kind: 'code', start: item.start, end: following.end, tokens, join: 1 };
}

// A list item or a table row (with edge pipes, or cells separated by ` | `) opens the block.
const STRUCTURED_LINE = /^[ \t]*(?:[-*+•][ \t]|\d{1,3}[.)][ \t]|\|)|^[^\n]* \| /;

/** Whether a block is code, a list or a table. */
function isStructured(item: Block, text: string): boolean {
  if (item.kind === 'code') return true;
  if (item.kind !== 'paragraph') return false;
  const newline = text.indexOf('\n', item.start);
  const firstLine = text.slice(
    item.start,
    newline === -1 || newline > item.end ? item.end : newline,
  );
  return STRUCTURED_LINE.test(firstLine);
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

export function likelyTooLong(start: number, end: number, context: Context): boolean {
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
export function sentenceSpans(
  text: string,
  start: number,
  end: number,
): { start: number; end: number }[] {
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
