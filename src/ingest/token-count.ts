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
 * @module
 */
import type { Tokenizer } from '../ports/tokenizer.js';

/** Counts the tokens of `text[start, end)`. */
export type SpanCounter = (text: string, start: number, end: number) => number;

/** Spans shorter than this are counted whole: cutting them saves nothing. */
const MIN_SPLIT_LENGTH = 64;
/** Pieces longer than this are counted without being remembered (rare, and rarely repeated). */
const MAX_CACHED_PIECE = 48;
/** Slots of the piece table (a power of two); it is emptied when 3/4 full. */
const TABLE_SIZE = 1 << 18;
const TABLE_LIMIT = (TABLE_SIZE * 3) / 4;

/**
 * An open-addressing table of piece → count that looks pieces up without slicing them. It
 * holds numbers only: per slot the piece's hash, where its characters start in `chars`, its
 * length (0: empty slot) and its count. A lookup reads one slot's four numbers and compares
 * characters only when the hashes agree, instead of following a pointer to a string for every
 * probe (a cache miss per piece on a table this size).
 */
interface PieceTable {
  readonly slots: Int32Array;
  /** The characters of the pieces, one after the other (grown on demand). */
  chars: Uint16Array;
  /** Characters used in `chars`. */
  length: number;
  used: number;
}

const tables = new WeakMap<Tokenizer, PieceTable>();

function tableOf(tokenizer: Tokenizer): PieceTable {
  let table = tables.get(tokenizer);
  if (table === undefined) {
    table = {
      slots: new Int32Array(4 * TABLE_SIZE),
      chars: new Uint16Array(1 << 16),
      length: 0,
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

/** The slot of piece `text[start, end)` in the table, or of the empty slot where it would go. */
function slotOf(table: PieceTable, text: string, start: number, end: number, hash: number): number {
  const length = end - start;
  const { slots, chars } = table;
  const mask = TABLE_SIZE - 1;
  const key = hash | 0;
  let slot = (hash ^ (hash >>> 15)) & mask;
  for (;;) {
    const at = slot << 2;
    const stored = slots[at + 2]!;
    if (stored === 0) return slot;
    if (stored === length && slots[at] === key) {
      let offset = slots[at + 1]!;
      let index = start;
      while (index < end && chars[offset] === text.charCodeAt(index)) {
        offset++;
        index++;
      }
      if (index === end) return slot;
    }
    slot = (slot + 1) & mask;
  }
}

/** The count of a piece in the table, or -1 when it is not there (or too long to be). */
function knownCount(
  table: PieceTable,
  text: string,
  start: number,
  end: number,
  hash: number,
): number {
  if (end - start > MAX_CACHED_PIECE) return -1;
  const at = slotOf(table, text, start, end, hash) << 2;
  return table.slots[at + 2] === 0 ? -1 : table.slots[at + 3]!;
}

/** The count of `text[start, end)`, one piece: from the table, else counted and remembered. */
function pieceCount(
  table: PieceTable,
  tokenizer: Tokenizer,
  text: string,
  start: number,
  end: number,
  hash: number,
): number {
  if (end - start > MAX_CACHED_PIECE) return tokenizer.count(text.slice(start, end));
  let slot = slotOf(table, text, start, end, hash);
  const { slots } = table;
  if (slots[(slot << 2) + 2] !== 0) return slots[(slot << 2) + 3]!;
  const count = tokenizer.count(text.slice(start, end));
  if (table.used >= TABLE_LIMIT) {
    slots.fill(0);
    table.used = 0;
    table.length = 0;
    slot = slotOf(table, text, start, end, hash);
  }
  const length = end - start;
  if (table.length + length > table.chars.length) {
    const grown = new Uint16Array(2 * table.chars.length);
    grown.set(table.chars);
    table.chars = grown;
  }
  const { chars } = table;
  for (let index = start, offset = table.length; index < end; index++, offset++) {
    chars[offset] = text.charCodeAt(index);
  }
  const at = slot << 2;
  slots[at] = hash | 0;
  slots[at + 1] = table.length;
  slots[at + 2] = length;
  slots[at + 3] = count;
  table.length += length;
  table.used++;
  return count;
}

/** Start, end and hash of each piece `scanPieces` did not find in the table (grown on demand). */
let unseen = new Int32Array(3 * 256);

/**
 * Cuts `text[start, end)` into its pieces (see the module comment) and sums the counts the
 * table knows; the other pieces are listed in `unseen` (their number is returned in
 * `scan.unseen`).
 */
function scanPieces(
  table: PieceTable,
  text: string,
  start: number,
  end: number,
  scan: { known: number; unseen: number },
): void {
  let known = 0;
  let count = 0;
  let pieceStart = start;
  let hash = 0x811c9dc5;
  for (let index = start; index <= end; index++) {
    if (index < end) {
      const code = text.charCodeAt(index);
      if (!(
        code === 32 &&
        index > pieceStart &&
        index + 1 < end &&
        endsPiece(text.charCodeAt(index - 1)) &&
        isAsciiLetter(text.charCodeAt(index + 1))
      )) {
        hash = Math.imul(hash ^ code, 0x01000193);
        continue;
      }
    }
    const pieceHash = hash >>> 0;
    const found = knownCount(table, text, pieceStart, index, pieceHash);
    if (found >= 0) known += found;
    else {
      if (unseen.length < 3 * (count + 1)) {
        const grown = new Int32Array(unseen.length * 2);
        grown.set(unseen);
        unseen = grown;
      }
      unseen[3 * count] = pieceStart;
      unseen[3 * count + 1] = index;
      unseen[3 * count + 2] = pieceHash;
      count++;
    }
    // The next piece starts with the space at `index`: its hash has taken that space in.
    pieceStart = index;
    hash = Math.imul(0x811c9dc5 ^ 32, 0x01000193);
  }
  scan.known = known;
  scan.unseen = count;
}

/** The exact count of the pieces `scanPieces` listed in `unseen`: counted and remembered. */
function countUnseen(
  table: PieceTable,
  tokenizer: Tokenizer,
  text: string,
  pieces: number,
): number {
  let total = 0;
  for (let index = 0; index < pieces; index++) {
    const start = unseen[3 * index]!;
    const end = unseen[3 * index + 1]!;
    // Looked up again: an earlier piece of the span may have been the same and is known now.
    total += pieceCount(table, tokenizer, text, start, end, unseen[3 * index + 2]! >>> 0);
  }
  return total;
}

/**
 * The span counter of `tokenizer`: for a `piecewise` tokenizer (the built-in BPE encodings), a
 * sum over the span's pieces, remembered per tokenizer (exactly `tokenizer.count` of the span);
 * for other tokenizers, `tokenizer.count` of the span.
 */
export function spanCounter(tokenizer: Tokenizer): SpanCounter {
  const whole: SpanCounter = (text, start, end) => tokenizer.count(text.slice(start, end));
  if (tokenizer.piecewise !== true) return whole;
  const table = tableOf(tokenizer);
  const scan = { known: 0, unseen: 0 };
  return (text, start, end) => {
    if (end - start < MIN_SPLIT_LENGTH) return whole(text, start, end);
    scanPieces(table, text, start, end, scan);
    return scan.known + countUnseen(table, tokenizer, text, scan.unseen);
  };
}
