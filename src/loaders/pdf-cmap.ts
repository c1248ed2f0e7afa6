/**
 * Character code tables of PDF fonts (ISO 32000-1 §9.10.3): ToUnicode CMaps (`bfchar`,
 * `bfrange` with a string or an array) and the tables of widths, short ranges stored code by
 * code and long ones kept as ranges.
 */
import { ENTRY_BYTES } from './pdf-document.js';
import { glyphText } from './pdf-encodings.js';
import { PdfKeyword, PdfLexer, PdfName, PdfUnsupportedError } from './pdf-objects.js';

/** A code's text from a ToUnicode CMap (UTF-16BE values), per pdf.js's `readToUnicode`. */
function utf16Text(bytes: Uint8Array): string {
  const padded = bytes.length % 2 === 1 ? Uint8Array.of(0, ...bytes) : bytes;
  const units: number[] = [];
  for (let at = 0; at + 1 < padded.length; at += 2)
    units.push((padded[at]! << 8) | padded[at + 1]!);
  let out = '';
  for (let index = 0; index < units.length; index++) {
    const unit = units[index]!;
    if ((unit & 0xf800) !== 0xd800 || index + 1 >= units.length) {
      out += String.fromCharCode(unit);
      continue;
    }
    const low = units[++index]!;
    out += String.fromCodePoint(((unit & 0x3ff) << 10) + (low & 0x3ff) + 0x10000);
  }
  return out;
}

function codeOf(bytes: Uint8Array): number {
  let code = 0;
  for (const byte of bytes) code = code * 256 + byte;
  return code;
}

/** Ranges of at most this many codes are stored code by code; longer ones stay ranges. */
const SHORT_RANGE = 256;
/** Most long ranges a table keeps (a lookup reads them all). */
const MAX_LONG_RANGES = 64;
/** pdf.js ignores a ToUnicode range longer than this; the reader leaves such a file to it. */
const MAX_RANGE = 0xffffff;

/**
 * Values by character code: single entries (each counted against `maxExpandedBytes` through
 * `expand`, `ENTRY_BYTES` each), and long ranges kept as ranges, their values computed when
 * looked up, so a few bytes of `<0000> <FFFF>` never become 65,536 entries. A later range wins
 * over an earlier one; single entries over ranges.
 */
export class CodeTable<T> {
  private readonly entries = new Map<number, T>();
  private readonly ranges: { first: number; last: number; at: (code: number) => T }[] = [];

  constructor(private readonly expand: (bytes: number) => void) {}

  set(code: number, value: T): void {
    this.expand(ENTRY_BYTES);
    this.entries.set(code, value);
  }

  /** Codes `first…last`, each with `at(code)`. */
  range(first: number, last: number, at: (code: number) => T): void {
    if (last < first) return;
    if (last - first > MAX_RANGE) throw new PdfUnsupportedError('a code range too long');
    if (last - first < SHORT_RANGE) {
      for (let code = first; code <= last; code++) this.set(code, at(code));
      return;
    }
    if (this.ranges.length >= MAX_LONG_RANGES)
      throw new PdfUnsupportedError('too many long code ranges');
    this.ranges.push({ first, last, at });
  }

  get(code: number): T | undefined {
    const value = this.entries.get(code);
    if (value !== undefined) return value;
    for (let index = this.ranges.length - 1; index >= 0; index--) {
      const range = this.ranges[index]!;
      if (code >= range.first && code <= range.last) return range.at(code);
    }
    return undefined;
  }
}

/**
 * The target of a `bfrange` for `offset` codes past its first: its last byte incremented, with
 * a carry into the byte before (as pdf.js's `mapBfRange` does).
 */
function rangeTarget(start: Uint8Array, offset: number): Uint8Array {
  const value = Uint8Array.from(start);
  const end = value.length - 1;
  if (end === 0) {
    value[0] = (value[0]! + offset) & 0xff;
    return value;
  }
  const sum = ((value[end - 1]! << 8) | value[end]!) + offset;
  value[end - 1] = (sum >> 8) & 0xff;
  value[end] = sum & 0xff;
  return value;
}

/** A ToUnicode CMap's `bfchar` and `bfrange` mappings (`usecmap` declines). */
export function parseToUnicode(
  data: Uint8Array,
  maxDepth: number,
  expand: (bytes: number) => void,
): CodeTable<string> {
  const table = new CodeTable<string>(expand);
  const lexer = new PdfLexer(data, 0, maxDepth);
  for (;;) {
    const token = lexer.next();
    if (token === undefined) break;
    if (!(token instanceof PdfKeyword)) continue;
    if (token.word === 'usecmap') throw new PdfUnsupportedError('a ToUnicode CMap with usecmap');
    if (token.word === 'beginbfchar') {
      for (;;) {
        const source = lexer.next();
        if (source === undefined || source instanceof PdfKeyword) break;
        const target = lexer.next();
        if (!(source instanceof Uint8Array)) continue;
        if (target instanceof Uint8Array) table.set(codeOf(source), utf16Text(target));
        else if (target instanceof PdfName) table.set(codeOf(source), glyphText(target.name) ?? '');
      }
    } else if (token.word === 'beginbfrange') {
      for (;;) {
        const low = lexer.next();
        if (low === undefined || low instanceof PdfKeyword) break;
        const high = lexer.next();
        const target = lexer.next();
        if (!(low instanceof Uint8Array) || !(high instanceof Uint8Array)) continue;
        const first = codeOf(low);
        const last = codeOf(high);
        if (Array.isArray(target)) {
          target.forEach((item, index) => {
            if (item instanceof Uint8Array && first + index <= last)
              table.set(first + index, utf16Text(item));
          });
        } else if (target instanceof Uint8Array && target.length > 0) {
          const start = Uint8Array.from(target);
          table.range(first, last, (code) => utf16Text(rangeTarget(start, code - first)));
        }
      }
    }
  }
  return table;
}
