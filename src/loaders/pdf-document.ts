/**
 * A PDF file's objects (ISO 32000-1 §7.5): the cross-reference data (classic tables, PDF 1.5
 * cross-reference streams and object streams, incremental updates through `/Prev`; a damaged
 * table is rebuilt by scanning for `n g obj`), objects fetched by reference, streams decoded
 * (FlateDecode with PNG predictors) within `maxExpandedBytes`, and the document information
 * dictionary (the pages: `pdf-pages.ts`). What it cannot read throws
 * `PdfUnsupportedError`: the caller falls back to pdf.js.
 */
import {
  expansionBudget,
  expansionError,
  LoadLimitError,
  type ExpansionBudget,
  type ExpansionLimits,
  type LoadLimits,
} from './limits.js';
import { textString } from './pdf-encodings.js';
import { inflateWithin, unpredict } from './pdf-filters.js';
import {
  isDict,
  latin1,
  nameOf,
  numberOf,
  PdfKeyword,
  PdfLexer,
  PdfRef,
  PdfStream,
  PdfSyntaxError,
  PdfUnsupportedError,
  type PdfDict,
  type PdfObject,
} from './pdf-objects.js';
import {
  endsStream,
  fixedXrefEntry,
  isSeparator,
  objectHeader,
  readXrefStreamEntries,
  type XrefEntry,
} from './pdf-xref.js';

/** Most `/Prev` sections followed (incremental updates). */
const MAX_XREF_SECTIONS = 1_000;
/** Bytes scanned, in times the file, before a file that makes the reader re-read it is declined. */
const SCAN_FACTOR = 16;
/** Bytes scanned allowed on top (small files, decoded object streams). */
const SCAN_SLACK = 1 << 22;
/** What an entry of a ToUnicode or width table counts against `maxExpandedBytes` (its memory). */
export const ENTRY_BYTES = 64;
/** Most objects an object stream holds. */
const MAX_OBJECT_STREAM_OBJECTS = 1_000_000;

/** The limits the reader applies. */
export type PdfLimits = Pick<LoadLimits, 'maxPages' | 'maxNesting'> & ExpansionLimits;

/** An opened PDF file. */
export class PdfDocument {
  private readonly entries = new Map<number, XrefEntry>();
  private readonly cache = new Map<number, PdfObject>();
  private readonly fetching = new Set<number>();
  private readonly objectStreams = new Map<number, { data: Uint8Array; offsets: number[] }>();
  private expanded = 0;
  private scanned = 0;
  private contentRead = 0;
  private rebuilt = false;
  /** What the file may expand to (`maxExpandedBytes`, `maxExpansionRatio`). */
  private readonly budget: ExpansionBudget;
  trailer: PdfDict = new Map();

  constructor(
    readonly bytes: Uint8Array,
    readonly limits: PdfLimits,
  ) {
    this.budget = expansionBudget(bytes.length, limits, 'maxPdfExpansionRatio');
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

  private inflate(data: Uint8Array): Uint8Array {
    const budget = this.budget.bytes;
    const out = inflateWithin(data, budget - this.expanded);
    this.expanded = out === undefined ? budget + 1 : this.expanded + out.length;
    if (out === undefined || this.expanded > budget) {
      throw expansionError(this.budget, 'streams inflate');
    }
    return out;
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
    readXrefStreamEntries(object.dict, this.decode(object), this.entries);
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
        if (error instanceof LoadLimitError || this.overScanned()) throw error;
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
      if (error instanceof LoadLimitError || this.overScanned()) throw error;
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

  /**
   * Counts bytes the reader scanned again: past `SCAN_FACTOR` times the file (objects that
   * never end, streams without `endstream`, each read to the end of the file), the file is
   * declined rather than read in time that grows with its square.
   */
  private scan(length: number): void {
    this.scanned += Math.max(0, length);
    if (this.overScanned()) {
      throw new PdfUnsupportedError(
        'objects that never end (the file would be read again and again)',
      );
    }
  }

  private overScanned(): boolean {
    return this.scanned > SCAN_FACTOR * this.bytes.length + SCAN_SLACK;
  }

  /**
   * Counts what reading the file makes of it besides inflated bytes against `maxExpandedBytes`:
   * content stream bytes read (a page's, and a form's each time it is drawn: a small form drawn
   * a million times is a bomb too) and the tables built from short ranges (`ENTRY_BYTES` a
   * ToUnicode or width entry).
   */
  expand(bytes: number): void {
    this.contentRead += bytes;
    if (this.contentRead > this.budget.bytes) {
      throw expansionError(this.budget, 'content and tables expand');
    }
  }

  /** `n g obj … endobj` at the lexer: the object, a stream with its bytes. */
  private readIndirect(lexer: PdfLexer): PdfObject {
    const start = lexer.pos;
    this.scan(0);
    try {
      return this.readIndirectAt(lexer);
    } finally {
      this.scan(lexer.pos - start);
    }
  }

  private readIndirectAt(lexer: PdfLexer): PdfObject {
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
    this.scan((end === -1 ? bytes.length : end) - start);
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
    const lexer = new PdfLexer(parsed.data, offset, this.limits.maxNesting);
    try {
      return lexer.next() ?? null;
    } finally {
      this.scan(lexer.pos - offset);
    }
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

  // ---- pages and information ----

  /** The catalog (`/Root`). */
  catalog(): PdfDict {
    const root = this.get(this.trailer, 'Root');
    if (!isDict(root)) throw new PdfUnsupportedError('no document catalog');
    return root;
  }

  /** The information dictionary's text entry `key` (`Title`, `Author`, `Subject`). */
  info(key: string): string | undefined {
    const info = this.get(this.trailer, 'Info');
    if (!isDict(info)) return undefined;
    const value = this.get(info, key);
    return value instanceof Uint8Array ? textString(value) : undefined;
  }
}
