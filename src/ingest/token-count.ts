/**
 * Exact token counts of spans of a text for the chunker, without byte-pair encoding the same
 * words over and over.
 *
 * The OpenAI byte-level BPE encodings cut text into pieces with a regular expression first and
 * merge bytes only inside a piece, so a text's count is the sum of its pieces' counts. No piece
 * of their patterns runs across a space that follows a printable ASCII character and precedes
 * an ASCII letter ("…cells| are"): the text is cut there, and each part (a word with its
 * leading space and trailing punctuation, mostly) is counted once and remembered. The sum is
 * the tokenizer's own count, not an estimate. A tokenizer says so with `piecewise: true` (the
 * built-in encodings do); others are counted whole.
 *
 * Where only "does it fit?" matters, `bound` does not encode pieces it has not seen: a byte-level
 * BPE token is at least one byte, so a piece's UTF-8 length bounds its count. A span whose bound
 * is within the budget fits; only a span over it needs its exact count.
 * @module
 */
import type { Tokenizer } from '../ports/tokenizer.js';

/** Counts the tokens of `text[start, end)`. */
export type SpanCounter = (text: string, start: number, end: number) => number;

/** Exact counts and cheap upper bounds of spans. */
export interface SpanCounters {
  /** The tokenizer's count of `text[start, end)`. */
  readonly count: SpanCounter;
  /**
   * At least the count of `text[start, end)`: exact for pieces already seen, their UTF-8 length
   * for the others (the exact count for a tokenizer that is not `piecewise`).
   */
  readonly bound: SpanCounter;
  /** Whether `bound` is `count` itself (a tokenizer that is not `piecewise`). */
  readonly boundIsCount: boolean;
}

/** Spans shorter than this are counted whole: cutting them saves nothing. */
const MIN_SPLIT_LENGTH = 64;
/** Pieces longer than this are counted without being remembered (rare, and rarely repeated). */
const MAX_CACHED_PIECE = 48;
/** Slots of the piece table (a power of two); it is emptied when 3/4 full. */
const TABLE_SIZE = 1 << 18;
const TABLE_LIMIT = (TABLE_SIZE * 3) / 4;

/** An open-addressing table of piece → count that looks pieces up without slicing them. */
interface PieceTable {
  readonly pieces: (string | undefined)[];
  readonly counts: Int32Array;
  used: number;
}

const tables = new WeakMap<Tokenizer, PieceTable>();

function tableOf(tokenizer: Tokenizer): PieceTable {
  let table = tables.get(tokenizer);
  if (table === undefined) {
    table = {
      pieces: new Array<string | undefined>(TABLE_SIZE),
      counts: new Int32Array(TABLE_SIZE),
      used: 0,
    };
    tables.set(tokenizer, table);
  }
  return table;
}

/** Whether a piece may end before a space at `code` (printable ASCII, not a space). */
function endsPiece(code: number): boolean {
  return code > 32 && code < 127;
}

function isAsciiLetter(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90);
}

/** UTF-8 bytes of `text[start, end)`, at most (3 per UTF-16 unit outside ASCII). */
function utf8Bound(text: string, start: number, end: number): number {
  let bytes = 0;
  for (let index = start; index < end; index++) {
    const code = text.charCodeAt(index);
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : 3;
  }
  return bytes;
}

/**
 * The count of `text[start, end)`, one piece: from the table, else counted and remembered
 * (`exact`) or bounded by its UTF-8 length.
 */
function pieceCount(
  table: PieceTable,
  tokenizer: Tokenizer,
  text: string,
  start: number,
  end: number,
  hash: number,
  exact: boolean,
): number {
  const length = end - start;
  if (length > MAX_CACHED_PIECE) {
    return exact ? tokenizer.count(text.slice(start, end)) : utf8Bound(text, start, end);
  }
  const mask = TABLE_SIZE - 1;
  const mixed = hash ^ (hash >>> 15);
  let slot = mixed & mask;
  for (;;) {
    const piece = table.pieces[slot];
    if (piece === undefined) break;
    if (piece.length === length && text.startsWith(piece, start)) return table.counts[slot]!;
    slot = (slot + 1) & mask;
  }
  if (!exact) return utf8Bound(text, start, end);
  const piece = text.slice(start, end);
  const count = tokenizer.count(piece);
  if (table.used >= TABLE_LIMIT) {
    table.pieces.fill(undefined);
    table.used = 0;
    slot = mixed & mask;
  }
  table.pieces[slot] = piece;
  table.counts[slot] = count;
  table.used++;
  return count;
}

/** Sums the pieces of `text[start, end)` (see the module comment). */
function sumPieces(
  table: PieceTable,
  tokenizer: Tokenizer,
  text: string,
  start: number,
  end: number,
  exact: boolean,
): number {
  let total = 0;
  let pieceStart = start;
  let hash = 0x811c9dc5;
  for (let index = start; index < end; index++) {
    const code = text.charCodeAt(index);
    if (
      code === 32 &&
      index > pieceStart &&
      index + 1 < end &&
      endsPiece(text.charCodeAt(index - 1)) &&
      isAsciiLetter(text.charCodeAt(index + 1))
    ) {
      total += pieceCount(table, tokenizer, text, pieceStart, index, hash >>> 0, exact);
      pieceStart = index;
      hash = 0x811c9dc5;
    }
    hash = Math.imul(hash ^ code, 0x01000193);
  }
  return total + pieceCount(table, tokenizer, text, pieceStart, end, hash >>> 0, exact);
}

/**
 * Span counters for `tokenizer`: for a `piecewise` tokenizer (the built-in BPE encodings), sums over the
 * span's pieces, remembered per tokenizer (`count` is exactly `tokenizer.count` of the span);
 * for other tokenizers, `tokenizer.count` of the span for both.
 */
export function spanCounters(tokenizer: Tokenizer): SpanCounters {
  const whole: SpanCounter = (text, start, end) => tokenizer.count(text.slice(start, end));
  if (tokenizer.piecewise !== true) {
    return { count: whole, bound: whole, boundIsCount: true };
  }
  const table = tableOf(tokenizer);
  const piecewise =
    (exact: boolean): SpanCounter =>
    (text, start, end) =>
      end - start < MIN_SPLIT_LENGTH
        ? whole(text, start, end)
        : sumPieces(table, tokenizer, text, start, end, exact);
  return { count: piecewise(true), bound: piecewise(false), boundIsCount: false };
}

/** The exact counter of {@link spanCounters}. */
export function spanCounter(tokenizer: Tokenizer): SpanCounter {
  return spanCounters(tokenizer).count;
}
