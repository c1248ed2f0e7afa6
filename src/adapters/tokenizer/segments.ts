/**
 * Bounds the work of byte-pair encoding. BPE merges pairs within one pre-tokenized piece (a run
 * of letters, or of symbols) and costs time quadratic in the piece's length: a 200,000-character
 * `=` run took 20 s. Cutting such runs into pieces of at most {@link MAX_BPE_RUN} characters
 * makes it linear; a run that long is no natural word, and text without one is passed whole,
 * so its tokens are exactly what the encoding gives.
 * @module
 */

/** Longest run of letters (or of symbols) handed to byte-pair encoding in one piece. */
export const MAX_BPE_RUN = 1024;

// Pre-tokenizer classes. Letters go with their combining marks (both OpenAI encodings keep
// marks with letters or split them off, never more); symbols are neither letter, digit nor
// whitespace. Only runs of letters or of symbols can be long BPE pieces.
const OTHER = 1;
const LETTER = 2;
const SYMBOL = 3;
const LETTER_CHARACTER = /^[\p{L}\p{M}]$/u;
const OTHER_CHARACTER = /^[\s\p{N}]$/u;

// Class of each UTF-16 unit, filled on first sight (0: not seen yet).
const classes = new Uint8Array(0x10000);

function classOf(character: string): number {
  if (LETTER_CHARACTER.test(character)) return LETTER;
  return OTHER_CHARACTER.test(character) ? OTHER : SYMBOL;
}

function unitClass(code: number): number {
  let known = classes[code]!;
  if (known === 0) classes[code] = known = classOf(String.fromCharCode(code));
  return known;
}

/**
 * `text` as consecutive pieces whose concatenation is `text`: whole when it holds no letter or
 * symbol run longer than `maxRun` characters (UTF-16 units), else cut inside each such run every
 * `maxRun` characters (never inside a surrogate pair). One pass, no allocation for ordinary text.
 */
export function bpeSegments(text: string, maxRun: number = MAX_BPE_RUN): string[] {
  if (text.length <= maxRun) return [text];
  const segments: string[] = [];
  let start = 0;
  let runClass = OTHER;
  let runLength = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    let width = 1;
    let kind: number;
    if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length) {
      // A surrogate pair: classify the whole code point and keep its halves together.
      width = 2;
      kind = classOf(text.slice(index, index + 2));
    } else {
      kind = unitClass(code);
    }
    if (kind !== runClass || kind === OTHER) {
      runClass = kind;
      runLength = 0;
    } else if (runLength + width > maxRun) {
      segments.push(text.slice(start, index));
      start = index;
      runLength = 0;
    }
    runLength += width;
    index += width - 1;
  }
  segments.push(text.slice(start));
  return segments;
}
