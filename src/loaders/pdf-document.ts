/**
 * A PDF file's objects (ISO 32000-1 §7.5): the cross-reference data (classic tables, PDF 1.5
 * cross-reference streams and object streams, incremental updates through `/Prev`; a damaged
 * table is rebuilt by scanning for `n g obj`), objects fetched by reference, streams decoded
 * (FlateDecode with PNG predictors) within `maxExpandedBytes`, the page list read in one walk
 * of the page tree, and the document information dictionary. What it cannot read throws
 * `PdfUnsupportedError`: the caller falls back to pdf.js.
 */
import { constants, inflateSync } from 'node:zlib';
import { LoadLimitError, type LoadLimits } from './limits.js';
import {
  isDict,
  isWhite as isWhiteByte,
  keyword as pdfKeyword,
  latin1,
  nameOf,
  numberOf,
  PdfKeyword,
  PdfLexer,
  PdfRef,
  PdfStream,
  PdfSyntaxError,
  type PdfDict,
  type PdfObject,
} from './pdf-objects.js';

/** The own reader does not read this file (or this part of it): pdf.js does. */
export class PdfUnsupportedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PdfUnsupportedError';
  }
}

/** Where an object is: at an offset of the file, or inside an object stream. */
type XrefEntry =
  | { readonly type: 1; readonly offset: number; readonly gen: number }
  | { readonly type: 2; readonly stream: number; readonly index: number };

/** A page: its dictionary, inherited resources and visible box. */
export interface PdfPageRef {
  readonly dict: PdfDict;
  readonly resources: PdfDict;
  /** `[x0, y0, x1, y1]`: the crop box within the media box (pdf.js's `view`). */
  readonly view: readonly [number, number, number, number];
}

/** Most `/Prev` sections followed (incremental updates). */
const MAX_XREF_SECTIONS = 1_000;
/** Most objects an object stream holds. */
const MAX_OBJECT_STREAM_OBJECTS = 1_000_000;

const DEFAULT_VIEW: readonly [number, number, number, number] = [0, 0, 612, 792];

/** An opened PDF file. */
export class PdfDocument {
  private readonly entries = new Map<number, XrefEntry>();
  private readonly cache = new Map<number, PdfObject>();
  private readonly fetching = new Set<number>();
  private readonly objectStreams = new Map<number, { data: Uint8Array; offsets: number[] }>();
  private expanded = 0;
  private rebuilt = false;
  trailer: PdfDict = new Map();

  constructor(
    readonly bytes: Uint8Array,
    readonly limits: Pick<LoadLimits, 'maxExpandedBytes' | 'maxPages' | 'maxNesting'>,
  ) {
    if (latin1(bytes, 0, Math.min(1024, bytes.length)).indexOf('%PDF-') === -1) {
      throw new PdfSyntaxError('not a PDF (no %PDF- header)');
    }
    try {
      this.readXref();
    } catch (error) {
      if (error instanceof LoadLimitError) throw error;
      this.rebuildXref();
    }
    if (!this.hasCatalog()) this.rebuildXref();
    if (this.trailer.has('Encrypt')) throw new PdfUnsupportedError('encrypted');
    if (!this.hasCatalog()) {
      throw new PdfUnsupportedError('no document catalog');
    }
  }

  private hasCatalog(): boolean {
    try {
      return isDict(this.fetchIf(this.trailer.get('Root')));
    } catch (error) {
      if (error instanceof LoadLimitError) throw error;
      return false;
    }
  }

  /** Bytes inflated so far. */
  get expandedBytes(): number {
    return this.expanded;
  }

  private lexer(at: number): PdfLexer {
    return new PdfLexer(this.bytes, at, this.limits.maxNesting);
  }

  // ---- cross-reference data ----

  private readXref(): void {
    const tail = latin1(this.bytes, Math.max(0, this.bytes.length - 1024));
    const marker = tail.lastIndexOf('startxref');
    if (marker === -1) throw new PdfSyntaxError('no startxref');
    const offset = Number.parseInt(tail.slice(marker + 9).trim(), 10);
    const seen = new Set<number>();
    let next: number | undefined = offset;
    let first = true;
    while (next !== undefined) {
      if (seen.has(next) || seen.size >= MAX_XREF_SECTIONS) break;
      if (!(next >= 0 && next < this.bytes.length))
        throw new PdfSyntaxError('xref offset out of the file');
      seen.add(next);
      const trailer = this.readXrefSection(next);
      if (first) this.trailer = trailer;
      first = false;
      // A hybrid file's cross-reference stream (`/XRefStm`) comes before `/Prev`.
      const stream = trailer.get('XRefStm');
      if (typeof stream === 'number' && !seen.has(stream)) {
        seen.add(stream);
        this.readXrefSection(stream);
      }
      const prev = trailer.get('Prev');
      next = typeof prev === 'number' ? prev : undefined;
    }
  }

  /** Reads one section (a table and its trailer, or a stream); earlier entries win. */
  private readXrefSection(offset: number): PdfDict {
    const lexer = this.lexer(offset);
    const head = lexer.next();
    if (head instanceof PdfKeyword && head.word === 'xref') return this.readXrefTable(lexer);
    lexer.pos = offset;
    const object = this.readIndirect(lexer);
    if (!(object instanceof PdfStream) || nameOf(object.dict.get('Type')) !== 'XRef') {
      throw new PdfSyntaxError('no xref at startxref');
    }
    this.readXrefStream(object);
    return object.dict;
  }

  private readXrefTable(lexer: PdfLexer): PdfDict {
    const { bytes } = this;
    for (;;) {
      const start = lexer.next();
      if (start instanceof PdfKeyword && start.word === 'trailer') break;
      const count = lexer.next();
      if (typeof start !== 'number' || typeof count !== 'number') {
        throw new PdfSyntaxError('damaged xref table');
      }
      for (let index = 0; index < count; index++) {
        lexer.skipSpace();
        // `oooooooooo ggggg n` (20 bytes a line), read directly; other spacing by the lexer.
        const fixed = fixedXrefEntry(bytes, lexer.pos);
        if (fixed !== undefined) lexer.pos += 18;
        const offset = fixed?.offset ?? lexer.next();
        const gen = fixed?.gen ?? lexer.next();
        const kind = fixed?.kind ?? lexer.next();
        if (
          typeof offset !== 'number' ||
          typeof gen !== 'number' ||
          !(kind instanceof PdfKeyword)
        ) {
          throw new PdfSyntaxError('damaged xref entry');
        }
        const num = start + index;
        if (kind.word === 'n' && !this.entries.has(num) && offset > 0) {
          this.entries.set(num, { type: 1, offset, gen });
        } else if (kind.word === 'f' && !this.entries.has(num)) {
          // A free entry hides what an earlier section said of it.
          this.entries.set(num, { type: 1, offset: -1, gen });
        }
        if (lexer.pos > bytes.length) throw new PdfSyntaxError('damaged xref table');
      }
    }
    const trailer = lexer.next();
    if (!isDict(trailer)) throw new PdfSyntaxError('damaged trailer');
    return trailer;
  }

  private readXrefStream(stream: PdfStream): void {
    const { dict } = stream;
    const widths = dict.get('W');
    if (
      !Array.isArray(widths) ||
      widths.length < 3 ||
      !widths.every((w) => typeof w === 'number')
    ) {
      throw new PdfSyntaxError('xref stream without /W');
    }
    const [w0, w1, w2] = widths as number[];
    const size = numberOf(dict.get('Size'), 0);
    const index = dict.get('Index');
    const ranges = Array.isArray(index) ? (index as number[]) : [0, size];
    const data = this.decode(stream);
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
        if (this.entries.has(num)) continue;
        if (type === 1) this.entries.set(num, { type: 1, offset: second, gen: third });
        else if (type === 2) this.entries.set(num, { type: 2, stream: second, index: third });
        else if (type === 0) this.entries.set(num, { type: 1, offset: -1, gen: third });
      }
    }
  }

  /**
   * The cross-reference data rebuilt from the objects found in the file (`n g obj`, the last of
   * a number wins), and the last trailer or cross-reference stream dictionary with a `/Root`.
   */
  private rebuildXref(): void {
    if (this.rebuilt) return;
    this.rebuilt = true;
    this.entries.clear();
    this.cache.clear();
    this.objectStreams.clear();
    const view = Buffer.from(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength);
    const streams: number[] = [];
    for (let at = view.indexOf('obj'); at !== -1; at = view.indexOf('obj', at + 3)) {
      const after = view[at + 3];
      if (after !== undefined && !isSeparator(after)) continue;
      const header = objectHeader(view, at);
      if (header === undefined) continue;
      this.entries.set(header.num, { type: 1, offset: header.start, gen: header.gen });
      streams.push(header.num);
    }
    let trailer: PdfDict | undefined;
    for (let at = view.indexOf('trailer'); at !== -1; at = view.indexOf('trailer', at + 7)) {
      try {
        const dict = this.lexer(at + 7).next();
        if (isDict(dict) && dict.has('Root')) trailer = dict;
      } catch {
        // a damaged trailer: the next one, or a stream's dictionary
      }
    }
    // Objects inside object streams, where no object of the file itself has the number.
    for (const num of streams) {
      let object: PdfObject;
      try {
        object = this.fetch(new PdfRef(num, 0));
      } catch (error) {
        if (error instanceof LoadLimitError) throw error;
        continue;
      }
      if (!(object instanceof PdfStream)) continue;
      const type = nameOf(object.dict.get('Type'));
      if (type === 'XRef' && object.dict.has('Root')) trailer ??= object.dict;
      if (type !== 'ObjStm') continue;
      const parsed = this.objectStream(num);
      if (parsed === undefined) continue;
      parsed.nums.forEach((inner, index) => {
        if (!this.entries.has(inner)) this.entries.set(inner, { type: 2, stream: num, index });
      });
    }
    if (trailer === undefined) {
      // No trailer at all: the catalog is the object of `/Type /Catalog`.
      for (const num of streams) {
        const object = this.tryFetch(num);
        if (isDict(object) && nameOf(object.get('Type')) === 'Catalog') {
          trailer = new Map([['Root', new PdfRef(num, 0)]]);
        }
      }
    }
    this.trailer = trailer ?? new Map();
  }

  private tryFetch(num: number): PdfObject {
    try {
      return this.fetch(new PdfRef(num, 0));
    } catch (error) {
      if (error instanceof LoadLimitError) throw error;
      return null;
    }
  }

  // ---- objects ----

  /** The object a reference points to (`null` for a missing one, as the spec says). */
  fetch(ref: PdfRef): PdfObject {
    const { num } = ref;
    const cached = this.cache.get(num);
    if (cached !== undefined) return cached;
    const entry = this.entries.get(num);
    if (entry === undefined) return null;
    if (this.fetching.has(num)) throw new PdfUnsupportedError(`object ${num} refers to itself`);
    this.fetching.add(num);
    try {
      let object: PdfObject;
      if (entry.type === 1) {
        if (entry.offset < 0) return null;
        object = this.readAt(num, entry.offset);
      } else {
        object = this.readFromStream(entry.stream, entry.index);
      }
      this.cache.set(num, object);
      return object;
    } finally {
      this.fetching.delete(num);
    }
  }

  /** The object itself, or what it refers to. */
  fetchIf(value: PdfObject | undefined): PdfObject {
    if (value === undefined) return null;
    return value instanceof PdfRef ? this.fetch(value) : value;
  }

  /** A dictionary's entry, references resolved. */
  get(dict: PdfDict, key: string): PdfObject {
    return this.fetchIf(dict.get(key));
  }

  private readAt(num: number, offset: number): PdfObject {
    if (offset >= this.bytes.length) {
      return this.retry(num, `object ${num} is past the end of the file`);
    }
    const lexer = this.lexer(offset);
    const first = lexer.next();
    if (first !== num) return this.retry(num, `object ${num} is not where the xref says`);
    lexer.pos = offset;
    return this.readIndirect(lexer);
  }

  /** An xref entry that does not hold: the table is rebuilt once, else the file declined. */
  private retry(num: number, reason: string): PdfObject {
    if (this.rebuilt) throw new PdfUnsupportedError(reason);
    this.fetching.delete(num);
    this.rebuildXref();
    return this.fetch(new PdfRef(num, 0));
  }

  /** `n g obj … endobj` at the lexer: the object, a stream with its bytes. */
  private readIndirect(lexer: PdfLexer): PdfObject {
    const num = lexer.next();
    const gen = lexer.next();
    const obj = lexer.next();
    if (
      typeof num !== 'number' ||
      typeof gen !== 'number' ||
      !(obj instanceof PdfKeyword && obj.word === 'obj')
    ) {
      throw new PdfSyntaxError('not an object');
    }
    const value = lexer.next();
    if (value === undefined) throw new PdfSyntaxError('object cut short');
    if (!isDict(value)) return value;
    const save = lexer.pos;
    const next = lexer.next();
    if (!(next instanceof PdfKeyword && next.word === 'stream')) {
      lexer.pos = save;
      return value;
    }
    return new PdfStream(value, this.streamBytes(value, lexer.pos));
  }

  /** A stream's bytes after the `stream` keyword at `at`: `/Length` when it holds, else up to `endstream`. */
  private streamBytes(dict: PdfDict, at: number): Uint8Array {
    const { bytes } = this;
    let start = at;
    if (bytes[start] === 13) start++;
    if (bytes[start] === 10) start++;
    const declared = dict.get('Length');
    let length = -1;
    if (typeof declared === 'number') {
      length = declared;
    } else if (declared instanceof PdfRef) {
      const value = this.fetch(declared);
      if (typeof value === 'number') length = value;
    }
    if (length >= 0 && start + length <= bytes.length && endsStream(bytes, start + length)) {
      return bytes.subarray(start, start + length);
    }
    // A `/Length` that lies: the data ends where `endstream` is.
    const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let end = view.indexOf('endstream', start);
    if (end === -1) throw new PdfUnsupportedError('a stream without endstream');
    if (end > start && bytes[end - 1] === 10) end--;
    if (end > start && bytes[end - 1] === 13) end--;
    return bytes.subarray(start, end);
  }

  private objectStream(
    num: number,
  ): { data: Uint8Array; offsets: number[]; nums: number[] } | undefined {
    const stream = this.fetch(new PdfRef(num, 0));
    if (!(stream instanceof PdfStream)) return undefined;
    const data = this.decode(stream);
    const count = numberOf(stream.dict.get('N'), 0);
    const first = numberOf(stream.dict.get('First'), 0);
    if (count < 0 || count > MAX_OBJECT_STREAM_OBJECTS || first < 0 || first > data.length) {
      throw new PdfUnsupportedError('damaged object stream');
    }
    const lexer = new PdfLexer(data, 0, this.limits.maxNesting);
    const offsets: number[] = [];
    const nums: number[] = [];
    for (let index = 0; index < count; index++) {
      const inner = lexer.next();
      const offset = lexer.next();
      if (typeof inner !== 'number' || typeof offset !== 'number') break;
      nums.push(inner);
      offsets.push(first + offset);
    }
    const parsed = { data, offsets, nums };
    this.objectStreams.set(num, parsed);
    return parsed;
  }

  private readFromStream(streamNum: number, index: number): PdfObject {
    const parsed = this.objectStreams.get(streamNum) ?? this.objectStream(streamNum);
    const offset = parsed?.offsets[index];
    if (parsed === undefined || offset === undefined) return null;
    return new PdfLexer(parsed.data, offset, this.limits.maxNesting).next() ?? null;
  }

  // ---- streams ----

  /**
   * A stream's decoded bytes (FlateDecode, with a PNG predictor; no filter), counted against
   * `maxExpandedBytes` while inflating (`LoadLimitError` past it). Other filters throw
   * `PdfUnsupportedError`.
   */
  decode(stream: PdfStream): Uint8Array {
    const filter = this.fetchIf(stream.dict.get('Filter'));
    const filters = Array.isArray(filter) ? filter.map((f) => this.fetchIf(f)) : [filter];
    const parms = this.fetchIf(stream.dict.get('DecodeParms') ?? stream.dict.get('DP'));
    const parmList = Array.isArray(parms) ? parms.map((p) => this.fetchIf(p)) : [parms];
    let data = stream.raw;
    filters.forEach((item, index) => {
      if (item === null) return;
      const name = nameOf(item);
      if (name === 'FlateDecode' || name === 'Fl') {
        data = this.inflate(data);
        const parm = parmList[index];
        if (isDict(parm)) data = unpredict(data, parm);
      } else {
        throw new PdfUnsupportedError(`the ${name ?? 'unnamed'} filter`);
      }
    });
    return data;
  }

  private inflate(data: Uint8Array): Uint8Array {
    const budget = this.limits.maxExpandedBytes;
    let out: Buffer;
    try {
      out = inflateSync(data, {
        maxOutputLength: Math.max(1, budget - this.expanded + 1),
        finishFlush: constants.Z_SYNC_FLUSH,
      });
    } catch (error) {
      if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
        this.expanded = budget + 1;
      } else {
        throw new PdfUnsupportedError(`damaged compressed stream: ${(error as Error).message}`);
      }
      out = Buffer.alloc(0);
    }
    this.expanded += out.length;
    if (this.expanded > budget) {
      throw new LoadLimitError(
        'maxExpandedBytes',
        `streams inflate to more than maxExpandedBytes (${budget} bytes)`,
      );
    }
    return out;
  }

  // ---- pages and information ----

  /** The catalog (`/Root`). */
  catalog(): PdfDict {
    const root = this.get(this.trailer, 'Root');
    if (!isDict(root)) throw new PdfUnsupportedError('no document catalog');
    return root;
  }

  /**
   * Every page, in order, found in one walk of the page tree (each node once: a cycle or a
   * node reached twice declines the file; nesting past `maxNesting` too). More than
   * `maxPages` pages throws `LoadLimitError`, before the pages past it are read.
   */
  pages(): PdfPageRef[] {
    const { maxPages, maxNesting } = this.limits;
    const root = this.get(this.catalog(), 'Pages');
    if (!isDict(root)) throw new PdfUnsupportedError('no page tree');
    const declared = this.get(root, 'Count');
    if (typeof declared === 'number' && declared > maxPages) {
      throw new LoadLimitError('maxPages', `more than maxPages (${maxPages}) pages`);
    }
    const pages: PdfPageRef[] = [];
    const seen = new Set<PdfDict>();
    interface Node {
      readonly dict: PdfDict;
      readonly resources: PdfObject;
      readonly media: PdfObject;
      readonly crop: PdfObject;
      readonly depth: number;
    }
    const stack: Node[] = [{ dict: root, resources: null, media: null, crop: null, depth: 0 }];
    while (stack.length > 0) {
      const node = stack.pop()!;
      const { dict } = node;
      if (seen.has(dict)) throw new PdfUnsupportedError('a page tree node reached twice');
      seen.add(dict);
      const resources = this.get(dict, 'Resources') ?? node.resources;
      const media = this.get(dict, 'MediaBox') ?? node.media;
      const crop = this.get(dict, 'CropBox') ?? node.crop;
      const kids = this.get(dict, 'Kids');
      const type = nameOf(this.get(dict, 'Type'));
      if (type === 'Page' || (type !== 'Pages' && !Array.isArray(kids))) {
        if (pages.length >= maxPages) {
          throw new LoadLimitError('maxPages', `more than maxPages (${maxPages}) pages`);
        }
        pages.push({
          dict,
          resources: isDict(resources) ? resources : new Map(),
          view: this.view(media, crop),
        });
        continue;
      }
      if (!Array.isArray(kids)) continue;
      if (node.depth >= maxNesting) throw new PdfUnsupportedError('page tree nested too deep');
      for (let index = kids.length - 1; index >= 0; index--) {
        const kid = this.fetchIf(kids[index]);
        if (!isDict(kid)) continue;
        stack.push({ dict: kid, resources, media, crop, depth: node.depth + 1 });
      }
    }
    if (typeof declared === 'number' && declared !== pages.length) {
      // pdf.js trusts `/Count`; what it makes of a wrong one is its own.
      throw new PdfUnsupportedError(`/Count ${declared} for ${pages.length} pages`);
    }
    return pages;
  }

  private view(media: PdfObject, crop: PdfObject): readonly [number, number, number, number] {
    const box = (value: PdfObject): [number, number, number, number] | undefined => {
      if (!Array.isArray(value) || value.length !== 4) return undefined;
      const numbers = value.map((item) => this.fetchIf(item));
      if (!numbers.every((item) => typeof item === 'number')) return undefined;
      const [a, b, c, d] = numbers as number[];
      return [Math.min(a!, c!), Math.min(b!, d!), Math.max(a!, c!), Math.max(b!, d!)];
    };
    const mediaBox = box(media) ?? [...DEFAULT_VIEW];
    const cropBox = box(crop);
    if (cropBox === undefined) return mediaBox;
    const x0 = Math.max(mediaBox[0], cropBox[0]);
    const y0 = Math.max(mediaBox[1], cropBox[1]);
    const x1 = Math.min(mediaBox[2], cropBox[2]);
    const y1 = Math.min(mediaBox[3], cropBox[3]);
    return x1 - x0 > 0 && y1 - y0 > 0 ? [x0, y0, x1, y1] : mediaBox;
  }

  /** The information dictionary's text entry `key` (`Title`, `Author`, `Subject`). */
  info(key: string): string | undefined {
    const info = this.get(this.trailer, 'Info');
    if (!isDict(info)) return undefined;
    const value = this.get(info, key);
    return value instanceof Uint8Array ? textString(value) : undefined;
  }
}

function isSeparator(code: number): boolean {
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

const ENTRY_IN_USE = pdfKeyword('n');
const ENTRY_FREE = pdfKeyword('f');

/** A classic xref entry at `at` in its fixed form (`0000012345 00000 n`), else undefined. */
function fixedXrefEntry(
  bytes: Uint8Array,
  at: number,
): { offset: number; gen: number; kind: PdfKeyword } | undefined {
  if (bytes[at + 10] !== 32 || bytes[at + 16] !== 32) return undefined;
  const kind =
    bytes[at + 17] === 110 ? ENTRY_IN_USE : bytes[at + 17] === 102 ? ENTRY_FREE : undefined;
  const after = bytes[at + 18];
  if (kind === undefined || (after !== undefined && !isWhiteByte(after))) return undefined;
  const offset = digits(bytes, at, 10);
  const gen = digits(bytes, at + 11, 5);
  return offset === -1 || gen === -1 ? undefined : { offset, gen, kind };
}

function isDigit(code: number | undefined): boolean {
  return code !== undefined && code >= 48 && code <= 57;
}

/** `n g ` before an `obj` at `at`: the object's number, generation and where it starts. */
function objectHeader(
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
function endsStream(bytes: Uint8Array, at: number): boolean {
  let from = at;
  while (
    from < bytes.length &&
    from < at + 4 &&
    (bytes[from] === 10 || bytes[from] === 13 || bytes[from] === 32)
  )
    from++;
  return latin1(bytes, from, from + 9) === 'endstream';
}

/** PNG predictors (`/Predictor` 10–15) undone; TIFF predictor 2 is declined. */
function unpredict(data: Uint8Array, parms: PdfDict): Uint8Array {
  const predictor = numberOf(parms.get('Predictor'), 1);
  if (predictor <= 1) return data;
  if (predictor < 10) throw new PdfUnsupportedError(`predictor ${predictor}`);
  const colors = numberOf(parms.get('Colors'), 1);
  const bits = numberOf(parms.get('BitsPerComponent'), 8);
  const columns = numberOf(parms.get('Columns'), 1);
  const bpp = Math.max(1, Math.ceil((colors * bits) / 8));
  const rowLength = Math.ceil((colors * bits * columns) / 8);
  if (!(rowLength > 0 && rowLength < 1 << 24)) throw new PdfUnsupportedError('bad predictor row');
  const rows = Math.floor(data.length / (rowLength + 1));
  const out = new Uint8Array(rows * rowLength);
  let prev = new Uint8Array(rowLength);
  for (let row = 0; row < rows; row++) {
    const filter = data[row * (rowLength + 1)]!;
    const source = data.subarray(row * (rowLength + 1) + 1, (row + 1) * (rowLength + 1));
    const current = out.subarray(row * rowLength, (row + 1) * rowLength);
    for (let index = 0; index < rowLength; index++) {
      const raw = source[index]!;
      const left = index >= bpp ? current[index - bpp]! : 0;
      const up = prev[index]!;
      const upLeft = index >= bpp ? prev[index - bpp]! : 0;
      let value: number;
      switch (filter) {
        case 0:
          value = raw;
          break;
        case 1:
          value = raw + left;
          break;
        case 2:
          value = raw + up;
          break;
        case 3:
          value = raw + ((left + up) >> 1);
          break;
        case 4: {
          const p = left + up - upLeft;
          const pa = Math.abs(p - left);
          const pb = Math.abs(p - up);
          const pc = Math.abs(p - upLeft);
          value = raw + (pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft);
          break;
        }
        default:
          throw new PdfUnsupportedError(`PNG filter ${filter}`);
      }
      current[index] = value & 0xff;
    }
    prev = current;
  }
  return out;
}

const PDF_DOC_ENCODING: Record<number, string> = {
  0x18: '\u02d8',
  0x19: '\u02c7',
  0x1a: '\u02c6',
  0x1b: '\u02d9',
  0x1c: '\u02dd',
  0x1d: '\u02db',
  0x1e: '\u02da',
  0x1f: '\u02dc',
  0x80: '\u2022',
  0x81: '\u2020',
  0x82: '\u2021',
  0x83: '\u2026',
  0x84: '\u2014',
  0x85: '\u2013',
  0x86: '\u0192',
  0x87: '\u2044',
  0x88: '\u2039',
  0x89: '\u203a',
  0x8a: '\u2212',
  0x8b: '\u2030',
  0x8c: '\u201e',
  0x8d: '\u201c',
  0x8e: '\u201d',
  0x8f: '\u2018',
  0x90: '\u2019',
  0x91: '\u201a',
  0x92: '\u2122',
  0x93: '\ufb01',
  0x94: '\ufb02',
  0x95: '\u0141',
  0x96: '\u0152',
  0x97: '\u0160',
  0x98: '\u0178',
  0x99: '\u017d',
  0x9a: '\u0131',
  0x9b: '\u0142',
  0x9c: '\u0153',
  0x9d: '\u0161',
  0x9e: '\u017e',
  0xa0: '\u20ac',
};

/** A text string (§7.9.2.2): UTF-16BE with its BOM, UTF-8 with its BOM, else PDFDocEncoding. */
export function textString(bytes: Uint8Array): string {
  if (bytes[0] === 0xfe && bytes[1] === 0xff) {
    const swapped = Buffer.from(bytes.subarray(2, 2 + ((bytes.length - 2) & ~1)));
    swapped.swap16();
    return swapped.toString('utf16le');
  }
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    return Buffer.from(bytes.subarray(3)).toString('utf8');
  }
  let out = '';
  for (const code of bytes) out += PDF_DOC_ENCODING[code] ?? String.fromCharCode(code);
  return out;
}
