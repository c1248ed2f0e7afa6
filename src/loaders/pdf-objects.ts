/**
 * PDF syntax (ISO 32000-1 §7.2–7.3): a lexer over a file's bytes or a content stream and a
 * parser of its objects (numbers, strings, names, arrays, dictionaries, references, streams),
 * in one pass of character loops: linear in the input, nesting bounded by the caller.
 */

/** A name (`/Type`): its characters, `#xx` escapes decoded. */
export class PdfName {
  constructor(readonly name: string) {}
}

/** An indirect reference (`12 0 R`). */
export class PdfRef {
  constructor(
    readonly num: number,
    readonly gen: number,
  ) {}
}

/** An operator or other bare word of a content stream (`Tj`, `BT`, `obj`, `R`). */
export class PdfKeyword {
  constructor(readonly word: string) {}
}

/** A dictionary: keys without their `/`. */
export type PdfDict = Map<string, PdfObject>;

/** A stream: its dictionary and its bytes as stored (still encoded). */
export class PdfStream {
  constructor(
    readonly dict: PdfDict,
    readonly raw: Uint8Array,
  ) {}
}

/** A PDF object. Strings are their bytes (`Uint8Array`). */
export type PdfObject =
  | null
  | boolean
  | number
  | Uint8Array
  | PdfName
  | PdfRef
  | PdfKeyword
  | PdfObject[]
  | PdfDict
  | PdfStream;

/** The file or a stream cannot be read as PDF syntax (the reader falls back to pdf.js). */
export class PdfSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PdfSyntaxError';
  }
}

/** The own reader does not read this file (or this part of it): pdf.js does. */
export class PdfUnsupportedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PdfUnsupportedError';
  }
}

/** Delimiters the lexer hands to the parser. */
const ARRAY_START = '[';
const ARRAY_END = ']';
const DICT_START = '<<';
const DICT_END = '>>';
type Delimiter = typeof ARRAY_START | typeof ARRAY_END | typeof DICT_START | typeof DICT_END;

/** A lexer token: an object, a delimiter, or the end of the input. */
type Token = PdfObject | { readonly delimiter: Delimiter } | typeof END;
const END = Symbol('end');

const WHITE = new Uint8Array(256);
for (const code of [0, 9, 10, 12, 13, 32]) WHITE[code] = 1;
const DELIMITER = new Uint8Array(256);
for (const char of '()<>[]{}/%') DELIMITER[char.charCodeAt(0)] = 1;

/** Whether a byte is PDF white space. */
export function isWhite(code: number): boolean {
  return WHITE[code] === 1;
}

function isRegular(code: number): boolean {
  return WHITE[code] === 0 && DELIMITER[code] === 0;
}

/** `\n`, `\r`, `\t`, `\b`, `\f` in a literal string: the byte each stands for. */
const ESCAPES: Readonly<Record<number, number>> = { 110: 10, 114: 13, 116: 9, 98: 8, 102: 12 };

function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 65 && code <= 70) return code - 55;
  if (code >= 97 && code <= 102) return code - 87;
  return -1;
}

const keywords = new Map<string, PdfKeyword>();
const names = new Map<string, PdfName>();
/** Most distinct names and keywords kept for reuse (a hostile file may hold millions). */
const MAX_INTERNED = 10_000;

/** The object for `key` in `table`, made once while the table has room (compare by value). */
function interned<T>(table: Map<string, T>, key: string, make: (key: string) => T): T {
  let found = table.get(key);
  if (found === undefined) {
    found = make(key);
    if (table.size < MAX_INTERNED) table.set(key, found);
  }
  return found;
}

/** Keywords of one or two bytes by their bytes (`b0`, or 256 + `b0` × 256 + `b1`). */
const SHORT_KEYWORDS: (PdfKeyword | undefined)[] = new Array(256 + 256 * 256);

/** The name object for `name`. */
export function pdfName(name: string): PdfName {
  return interned(names, name, (key) => new PdfName(key));
}

/** The keyword object for `word`. */
export function keyword(word: string): PdfKeyword {
  return interned(keywords, word, (key) => new PdfKeyword(key));
}

/** Reads objects from `bytes` from a position. */
export class PdfLexer {
  pos: number;

  constructor(
    readonly bytes: Uint8Array,
    start = 0,
    /** Deepest nesting of arrays and dictionaries. */
    readonly maxDepth = 500,
  ) {
    this.pos = start;
  }

  /** Skips white space and comments. */
  skipSpace(): void {
    const { bytes } = this;
    const length = bytes.length;
    let at = this.pos;
    while (at < length) {
      const code = bytes[at]!;
      if (code === 37) {
        // % comment to the end of the line
        while (at < length && bytes[at] !== 10 && bytes[at] !== 13) at++;
      } else if (WHITE[code] === 1) {
        at++;
      } else {
        break;
      }
    }
    this.pos = at;
  }

  private token(): Token {
    this.skipSpace();
    const { bytes } = this;
    if (this.pos >= bytes.length) return END;
    const code = bytes[this.pos]!;
    switch (code) {
      case 40: // (
        return this.literalString();
      case 60: // <
        if (bytes[this.pos + 1] === 60) {
          this.pos += 2;
          return { delimiter: DICT_START };
        }
        return this.hexString();
      case 62: // >
        if (bytes[this.pos + 1] === 62) {
          this.pos += 2;
          return { delimiter: DICT_END };
        }
        this.pos++;
        throw new PdfSyntaxError('a lone ">"');
      case 91:
        this.pos++;
        return { delimiter: ARRAY_START };
      case 93:
        this.pos++;
        return { delimiter: ARRAY_END };
      case 47:
        return this.name();
      case 41:
      case 123:
      case 125:
        // A stray ")", "{" or "}" (PostScript calculator functions): a word of its own.
        this.pos++;
        return keyword(String.fromCharCode(code));
      default:
        return this.word();
    }
  }

  private word(): Token {
    const { bytes } = this;
    const start = this.pos;
    let at = start;
    while (at < bytes.length && isRegular(bytes[at]!)) at++;
    this.pos = at;
    const first = bytes[start]!;
    if ((first >= 48 && first <= 57) || first === 43 || first === 45 || first === 46) {
      const plain = plainNumber(bytes, start, at);
      if (plain !== undefined) return plain;
      const value = Number(latin1(bytes, start, at));
      if (Number.isFinite(value)) return value;
      // `--5`, `4.-3`: what is left of a number, as pdf.js reads it: its sign and digits.
      return parseLoose(latin1(bytes, start, at));
    }
    const length = at - start;
    if (length === 1 || length === 2) {
      // Operators are mostly one or two bytes: found by their bytes, without a string.
      const slot = length === 1 ? first : 256 + first * 256 + bytes[start + 1]!;
      return (SHORT_KEYWORDS[slot] ??= keyword(shortWord(bytes, start, at)));
    }
    const word = shortWord(bytes, start, at);
    if (word === 'true') return true;
    if (word === 'false') return false;
    if (word === 'null') return null;
    return keyword(word);
  }

  private name(): PdfName {
    const { bytes } = this;
    let at = this.pos + 1;
    const start = at;
    while (at < bytes.length && isRegular(bytes[at]!)) at++;
    this.pos = at;
    let raw = latin1(bytes, start, at);
    if (raw.includes('#')) {
      let out = '';
      for (let index = 0; index < raw.length; index++) {
        const high = raw[index] === '#' ? hexValue(raw.charCodeAt(index + 1)) : -1;
        const low = high === -1 ? -1 : hexValue(raw.charCodeAt(index + 2));
        if (low === -1) {
          out += raw[index];
        } else {
          out += String.fromCharCode(high * 16 + low);
          index += 2;
        }
      }
      raw = out;
    }
    return pdfName(raw);
  }

  private literalString(): Uint8Array {
    const { bytes } = this;
    // Most strings hold no escape and no parenthesis: their bytes as they are, not copied.
    for (let at = this.pos + 1; at < bytes.length; at++) {
      const code = bytes[at]!;
      if (code === 41) {
        const plain = bytes.subarray(this.pos + 1, at);
        this.pos = at + 1;
        return plain;
      }
      if (code === 40 || code === 92) break;
    }
    const out: number[] = [];
    let depth = 1;
    let at = this.pos + 1;
    while (at < bytes.length) {
      const code = bytes[at++]!;
      if (code === 40) {
        depth++;
      } else if (code === 41) {
        if (--depth === 0) break;
      } else if (code === 92) {
        const next = bytes[at++];
        if (next === undefined) break;
        const escaped = ESCAPES[next];
        if (escaped !== undefined) {
          out.push(escaped);
          continue;
        }
        switch (next) {
          case 13:
            if (bytes[at] === 10) at++;
            continue;
          case 10:
            continue;
          default:
            if (next >= 48 && next <= 55) {
              let value = next - 48;
              for (let digits = 1; digits < 3; digits++) {
                const digit = bytes[at];
                if (digit === undefined || digit < 48 || digit > 55) break;
                value = value * 8 + digit - 48;
                at++;
              }
              out.push(value & 0xff);
            } else {
              out.push(next);
            }
            continue;
        }
      }
      out.push(code);
    }
    this.pos = at;
    return Uint8Array.from(out);
  }

  private hexString(): Uint8Array {
    const { bytes } = this;
    const out: number[] = [];
    let at = this.pos + 1;
    let high = -1;
    while (at < bytes.length) {
      const code = bytes[at++]!;
      if (code === 62) break;
      const value = hexValue(code);
      if (value === -1) continue;
      if (high === -1) {
        high = value;
      } else {
        out.push(high * 16 + value);
        high = -1;
      }
    }
    if (high !== -1) out.push(high * 16);
    this.pos = at;
    return Uint8Array.from(out);
  }

  /**
   * The next object (arrays and dictionaries whole, `n g R` as a reference), a keyword, or
   * `undefined` at the end of the input. Throws `PdfSyntaxError` on nesting past `maxDepth`.
   */
  next(): PdfObject | undefined {
    const token = this.token();
    if (token === END) return undefined;
    return this.complete(token, 0);
  }

  private complete(token: Exclude<Token, typeof END>, depth: number): PdfObject {
    if (!isDelimiter(token)) return token;
    if (depth >= this.maxDepth) throw new PdfSyntaxError('objects nested too deep');
    if (token.delimiter === ARRAY_START) return this.array(depth + 1);
    if (token.delimiter === DICT_START) return this.dictionary(depth + 1);
    // A stray closing delimiter: a keyword the caller ignores.
    return keyword(token.delimiter);
  }

  /** A value inside an array or dictionary, with `n g R` read as a reference. */
  private value(token: Exclude<Token, typeof END>, depth: number): PdfObject {
    if (typeof token === 'number' && Number.isInteger(token) && token >= 0) {
      const saved = this.pos;
      const gen = this.token();
      if (typeof gen === 'number' && Number.isInteger(gen) && gen >= 0) {
        const r = this.token();
        if (r instanceof PdfKeyword && r.word === 'R') return new PdfRef(token, gen);
      }
      this.pos = saved;
      return token;
    }
    return this.complete(token, depth);
  }

  private array(depth: number): PdfObject[] {
    const items: PdfObject[] = [];
    for (;;) {
      const token = this.token();
      if (token === END) return items;
      if (isDelimiter(token) && token.delimiter === ARRAY_END) return items;
      if (isDelimiter(token) && token.delimiter === DICT_END) continue;
      items.push(this.value(token, depth));
    }
  }

  private dictionary(depth: number): PdfDict {
    const dict: PdfDict = new Map();
    for (;;) {
      const token = this.token();
      if (token === END) return dict;
      if (isDelimiter(token) && token.delimiter === DICT_END) return dict;
      if (!(token instanceof PdfName)) {
        // A value without a key (damaged): skipped, as pdf.js does.
        if (isDelimiter(token) && token.delimiter === ARRAY_END) continue;
        this.complete(token, depth);
        continue;
      }
      const next = this.token();
      if (next === END) return dict;
      if (isDelimiter(next) && next.delimiter === DICT_END) {
        dict.set(token.name, null);
        return dict;
      }
      dict.set(token.name, this.value(next, depth));
    }
  }
}

function isDelimiter(token: Token): token is { readonly delimiter: Delimiter } {
  return typeof token === 'object' && token !== null && 'delimiter' in token;
}

/**
 * The value of `[+-]digits[.digits]` at `start…end` read from the bytes (the usual operand of
 * a content stream), or `undefined` for any other form (left to `Number`). Exact for up to 15
 * digits: the digits as one integer, divided once by a power of ten, as `Number` rounds it.
 */
function plainNumber(bytes: Uint8Array, start: number, end: number): number | undefined {
  if (end - start > 16) return undefined;
  let at = start;
  const sign = bytes[at] === 45 ? -1 : 1;
  if (bytes[at] === 45 || bytes[at] === 43) at++;
  let value = 0;
  let digits = 0;
  let scale = 1;
  let point = false;
  for (; at < end; at++) {
    const code = bytes[at]!;
    if (code >= 48 && code <= 57) {
      value = value * 10 + (code - 48);
      digits++;
      if (point) scale *= 10;
    } else if (code === 46 && !point) {
      point = true;
    } else {
      return undefined;
    }
  }
  if (digits === 0 || digits > 15) return undefined;
  return (sign * value) / scale;
}

/** Bytes `start…end` as a Latin-1 string (short words without a Buffer). */
function shortWord(bytes: Uint8Array, start: number, end: number): string {
  switch (end - start) {
    case 1:
      return String.fromCharCode(bytes[start]!);
    case 2:
      return String.fromCharCode(bytes[start]!, bytes[start + 1]!);
    case 3:
      return String.fromCharCode(bytes[start]!, bytes[start + 1]!, bytes[start + 2]!);
    default:
      return latin1(bytes, start, end);
  }
}

function parseLoose(text: string): number {
  let sign = 1;
  let at = 0;
  while (text[at] === '-' || text[at] === '+') {
    if (text[at] === '-') sign = -sign;
    at++;
  }
  const value = Number.parseFloat(text.slice(at));
  return Number.isFinite(value) ? sign * value : 0;
}

/** Bytes `start…end` as a Latin-1 string. */
export function latin1(bytes: Uint8Array, start = 0, end = bytes.length): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString(
    'latin1',
    start,
    end,
  );
}

/** A dictionary's name value (`/Type /Page` → 'Page'). */
export function nameOf(value: PdfObject | undefined): string | undefined {
  return value instanceof PdfName ? value.name : undefined;
}

/** Whether an object is a dictionary. */
export function isDict(value: PdfObject | undefined): value is PdfDict {
  return value instanceof Map;
}

/** A number, or `fallback` when the value is not one. */
export function numberOf(value: PdfObject | undefined, fallback: number): number {
  return typeof value === 'number' ? value : fallback;
}
