/**
 * Cross-reference data (ISO 32000-1 §7.5.4, §7.5.8): the rows of a cross-reference stream, the
 * fixed form of a classic table's entries, and what rebuilding it by scanning the file needs
 * (an object's `n g obj` header, a stream's `endstream`).
 */
import {
  isWhite,
  keyword,
  latin1,
  numberOf,
  PdfKeyword,
  PdfSyntaxError,
  type PdfDict,
} from './pdf-objects.js';

/** Where an object is: at an offset of the file (-1: free), or inside an object stream. */
export type XrefEntry =
  | { readonly type: 1; readonly offset: number; readonly gen: number }
  | { readonly type: 2; readonly stream: number; readonly index: number };

/**
 * The entries of a cross-reference stream's decoded `data` (`/W`, `/Index`, `/Size` of `dict`)
 * into `entries`, where a later section has not set them already.
 */
export function readXrefStreamEntries(
  dict: PdfDict,
  data: Uint8Array,
  entries: Map<number, XrefEntry>,
): void {
  const widths = dict.get('W');
  if (!Array.isArray(widths) || widths.length < 3 || !widths.every((w) => typeof w === 'number')) {
    throw new PdfSyntaxError('xref stream without /W');
  }
  const [w0, w1, w2] = widths as number[];
  const size = numberOf(dict.get('Size'), 0);
  const index = dict.get('Index');
  const ranges = Array.isArray(index) ? (index as number[]) : [0, size];
  const rowLength = w0! + w1! + w2!;
  if (rowLength <= 0 || w0! > 4 || w1! > 8 || w2! > 8) throw new PdfSyntaxError('bad /W');
  let at = 0;
  const field = (width: number, fallback: number): number => {
    if (width === 0) return fallback;
    let value = 0;
    for (let byte = 0; byte < width; byte++) value = value * 256 + data[at++]!;
    return value;
  };
  for (let range = 0; range + 1 < ranges.length; range += 2) {
    const first = ranges[range]!;
    const count = ranges[range + 1]!;
    for (let n = 0; n < count; n++) {
      if (at + rowLength > data.length) return;
      const type = field(w0!, 1);
      const second = field(w1!, 0);
      const third = field(w2!, 0);
      const num = first + n;
      if (entries.has(num)) continue;
      if (type === 1) entries.set(num, { type: 1, offset: second, gen: third });
      else if (type === 2) entries.set(num, { type: 2, stream: second, index: third });
      else if (type === 0) entries.set(num, { type: 1, offset: -1, gen: third });
    }
  }
}

export function isSeparator(code: number): boolean {
  return (
    code === 32 ||
    code === 10 ||
    code === 13 ||
    code === 9 ||
    code === 12 ||
    code === 60 ||
    code === 37 ||
    code === 47 ||
    code === 91
  );
}

/** The digits `bytes[at…at + length]` as a number, or -1 where one is not a digit. */
function digits(bytes: Uint8Array, at: number, length: number): number {
  let value = 0;
  for (let index = at; index < at + length; index++) {
    const code = bytes[index];
    if (code === undefined || code < 48 || code > 57) return -1;
    value = value * 10 + code - 48;
  }
  return value;
}

const ENTRY_IN_USE = keyword('n');
const ENTRY_FREE = keyword('f');

/** A classic xref entry at `at` in its fixed form (`0000012345 00000 n`), else undefined. */
export function fixedXrefEntry(
  bytes: Uint8Array,
  at: number,
): { offset: number; gen: number; kind: PdfKeyword } | undefined {
  if (bytes[at + 10] !== 32 || bytes[at + 16] !== 32) return undefined;
  const kind =
    bytes[at + 17] === 110 ? ENTRY_IN_USE : bytes[at + 17] === 102 ? ENTRY_FREE : undefined;
  const after = bytes[at + 18];
  if (kind === undefined || (after !== undefined && !isWhite(after))) return undefined;
  const offset = digits(bytes, at, 10);
  const gen = digits(bytes, at + 11, 5);
  return offset === -1 || gen === -1 ? undefined : { offset, gen, kind };
}

function isDigit(code: number | undefined): boolean {
  return code !== undefined && code >= 48 && code <= 57;
}

/** `n g ` before an `obj` at `at`: the object's number, generation and where it starts. */
export function objectHeader(
  view: Buffer,
  at: number,
): { num: number; gen: number; start: number } | undefined {
  let end = at;
  while (end > 0 && (view[end - 1] === 32 || view[end - 1] === 13 || view[end - 1] === 10)) end--;
  let start = end;
  while (start > 0 && isDigit(view[start - 1]) && end - start < 6) start--;
  if (start === end) return undefined;
  const gen = Number(view.toString('latin1', start, end));
  let numEnd = start;
  while (
    numEnd > 0 &&
    (view[numEnd - 1] === 32 || view[numEnd - 1] === 13 || view[numEnd - 1] === 10)
  )
    numEnd--;
  if (numEnd === start) return undefined;
  let numStart = numEnd;
  while (numStart > 0 && isDigit(view[numStart - 1]) && numEnd - numStart < 11) numStart--;
  if (numStart === numEnd) return undefined;
  return { num: Number(view.toString('latin1', numStart, numEnd)), gen, start: numStart };
}

/** Whether `endstream` follows `at` (after white space). */
export function endsStream(bytes: Uint8Array, at: number): boolean {
  let from = at;
  while (
    from < bytes.length &&
    from < at + 4 &&
    (bytes[from] === 10 || bytes[from] === 13 || bytes[from] === 32)
  )
    from++;
  return latin1(bytes, from, from + 9) === 'endstream';
}
