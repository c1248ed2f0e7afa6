/**
 * The own PDF text reader: the text of each page of a PDF, laid out as pdf.js's text layer
 * lays it out (where it puts a space, where a line ends), without pdf.js. One walk of the page
 * tree, each content stream read once with its fonts cached: linear in the file, bounded by
 * `LoadLimits` (`maxExpandedBytes` and `maxExpansionRatio` while inflating and reading content,
 * `maxPages`, `maxNesting`). A file it cannot
 * read the way pdf.js does throws `PdfUnsupportedError` (see `pdf-document.ts`, `pdf-fonts.ts`);
 * `parsePdf` then reads it with unpdf.
 */
import { LoadLimitError } from './limits.js';
import { PdfDocument, type PdfLimits } from './pdf-document.js';
import { IDENTITY, multiply, TextLayout, TextState, type Matrix } from './pdf-layout.js';
import { pageList, type PdfPageRef } from './pdf-pages.js';
import { loadFont, type PdfFont } from './pdf-fonts.js';
import {
  isDict,
  nameOf,
  PdfKeyword,
  PdfLexer,
  PdfName,
  PdfRef,
  PdfStream,
  PdfUnsupportedError,
  isWhite,
  type PdfDict,
  type PdfObject,
} from './pdf-objects.js';

/** What the reader shares across a document's pages: fonts by dictionary. */
interface Shared {
  readonly document: PdfDocument;
  readonly fonts: Map<PdfDict, PdfFont>;
  /** Form XObjects being read (a form that draws itself is skipped). */
  readonly forms: Set<PdfStream>;
}

/** Operands kept before an operator (more is a damaged stream). */
const MAX_OPERANDS = 64;
/** Deepest nesting of form XObjects. */
const MAX_FORM_DEPTH = 20;

/**
 * Reads one content stream's operators (text state, text showing, `q`/`Q`/`cm`, form XObjects,
 * marked content, inline images) and lays its text out into `out` (`pdf-layout.ts`).
 */
class TextReader {
  private readonly stack: TextState[] = [];
  private readonly operands: PdfObject[] = [];
  private xObjects: PdfDict | undefined;
  private readonly layout: TextLayout;

  constructor(
    private readonly shared: Shared,
    private readonly resources: PdfDict,
    private readonly view: readonly number[],
    private readonly out: string[],
    private readonly depth: number,
    state?: TextState,
  ) {
    this.layout = new TextLayout(view, out, state);
  }

  private get state(): TextState {
    return this.layout.state;
  }

  // ---- operators ----

  private font(name: string): PdfFont {
    const { document, fonts } = this.shared;
    const dict = document.get(this.resources, 'Font');
    const fontDict = isDict(dict) ? document.get(dict, name) : null;
    if (!isDict(fontDict)) throw new PdfUnsupportedError(`the font ${name} is missing`);
    let font = fonts.get(fontDict);
    if (font === undefined) {
      font = loadFont(document, fontDict);
      fonts.set(fontDict, font);
    }
    return font;
  }

  /** Reads a content stream (the bytes of a page's streams, or a form's). */
  read(content: Uint8Array): void {
    this.shared.document.expand(content.length);
    const lexer = new PdfLexer(content, 0, this.shared.document.limits.maxNesting);
    const operands = this.operands;
    for (;;) {
      const token = lexer.next();
      if (token === undefined) break;
      if (!(token instanceof PdfKeyword)) {
        if (operands.length >= MAX_OPERANDS) operands.shift();
        operands.push(token);
        continue;
      }
      this.layout.beforeOperator();
      if (token.word === 'ID') skipInlineImage(lexer);
      else this.operator(token.word, operands);
      operands.length = 0;
    }
    this.layout.flush();
  }

  private operator(op: string, args: PdfObject[]): void {
    const { state } = this;
    switch (op) {
      case 'q': {
        // Each `q` keeps a state until its `Q`: a stream of `q`s without `Q`s would hold one
        // per two bytes of content (a 4 KB file took 600 MB). Real pages nest a few deep.
        const { maxNesting } = this.shared.document.limits;
        if (this.stack.length >= maxNesting) {
          throw new LoadLimitError(
            'maxNesting',
            `graphics states saved more than maxNesting (${maxNesting}) deep`,
          );
        }
        this.stack.push(this.layout.state);
        this.layout.state = this.layout.state.clone();
        return;
      }
      case 'Q': {
        const saved = this.stack.pop();
        if (saved !== undefined) this.layout.state = saved;
        return;
      }
      case 'cm': {
        const m = args.slice(-6);
        if (m.length === 6 && m.every((value) => typeof value === 'number')) {
          state.ctm = multiply(state.ctm, m as number[]);
        }
        return;
      }
      case 'BT':
        state.textMatrix = [...IDENTITY];
        state.textLineMatrix = [...IDENTITY];
        return;
      case 'Tf': {
        const name = args[args.length - 2];
        const size = numberAt(args, 0);
        if (!(name instanceof PdfName) || size === undefined) return;
        if (state.font !== undefined && name.name === state.fontName && size === state.fontSize)
          return;
        state.fontName = name.name;
        state.fontSize = size;
        state.font = this.font(name.name);
        return;
      }
      case 'Ts':
        state.textRise = numberAt(args, 0) ?? state.textRise;
        return;
      case 'Tz':
        if (numberAt(args, 0) !== undefined) state.textHScale = numberAt(args, 0)! / 100;
        return;
      case 'TL':
        state.leading = numberAt(args, 0) ?? state.leading;
        return;
      case 'Td':
      case 'TD': {
        const x = numberAt(args, 1);
        const y = numberAt(args, 0);
        if (x === undefined || y === undefined) return;
        if (op === 'TD') state.leading = -y;
        state.translateTextLineMatrix(x, y);
        state.textMatrix = [...state.textLineMatrix];
        return;
      }
      case 'T*':
        state.carriageReturn();
        return;
      case 'Tm': {
        const m = args.slice(-6);
        if (m.length !== 6 || !m.every((value) => typeof value === 'number')) return;
        state.textMatrix = [...(m as Matrix)];
        state.textLineMatrix = [...(m as Matrix)];
        this.layout.updateAdvanceScale();
        return;
      }
      case 'Tc':
        state.charSpacing = numberAt(args, 0) ?? state.charSpacing;
        return;
      case 'Tw':
        state.wordSpacing = numberAt(args, 0) ?? state.wordSpacing;
        return;
      case 'Tj': {
        const text = args[args.length - 1];
        if (state.font === undefined || !(text instanceof Uint8Array)) return;
        this.layout.showText(text, 0);
        return;
      }
      case "'": {
        const text = args[args.length - 1];
        if (state.font === undefined || !(text instanceof Uint8Array)) return;
        state.carriageReturn();
        this.layout.showText(text, 0);
        return;
      }
      case '"': {
        const text = args[args.length - 1];
        const word = numberAt(args, 2);
        const char = numberAt(args, 1);
        if (state.font === undefined || !(text instanceof Uint8Array)) return;
        if (word === undefined || char === undefined) return;
        state.wordSpacing = word;
        state.charSpacing = char;
        state.carriageReturn();
        this.layout.showText(text, 0);
        return;
      }
      case 'TJ':
        this.showSpacedText(args[args.length - 1]);
        return;
      case 'Do':
        this.layout.flush();
        this.drawForm(args[args.length - 1]);
        return;
      case 'gs':
        this.graphicsState(args[args.length - 1]);
        return;
      case 'BMC':
      case 'BDC':
      case 'EMC':
        this.layout.flush();
        return;
      default:
        return;
    }
  }

  private showSpacedText(array: PdfObject | undefined): void {
    const { state } = this;
    if (state.font === undefined || !Array.isArray(array)) return;
    const factor = -state.fontSize / 1000;
    // The strings since the last adjustment are shown together, the adjustment after them.
    let from = 0;
    for (let index = 0; index < array.length; index++) {
      const item = array[index];
      if (typeof item === 'number' && item !== 0) {
        // (no string before it: an empty one, which moves the text by the adjustment)
        this.layout.showText(joinedStrings(array, from, index), item * factor);
        from = index + 1;
      }
    }
    if (hasString(array, from, array.length)) {
      this.layout.showText(joinedStrings(array, from, array.length), 0);
    }
  }

  private graphicsState(name: PdfObject | undefined): void {
    if (!(name instanceof PdfName)) return;
    const { document } = this.shared;
    const states = document.get(this.resources, 'ExtGState');
    const gs = isDict(states) ? document.get(states, name.name) : null;
    if (isDict(gs) && gs.has('Font'))
      throw new PdfUnsupportedError('a font set by a graphics state');
  }

  private drawForm(name: PdfObject | undefined): void {
    if (!(name instanceof PdfName)) return;
    const { document, forms } = this.shared;
    this.xObjects ??= ((value) => (isDict(value) ? value : new Map()))(
      document.get(this.resources, 'XObject'),
    );
    const raw = this.xObjects.get(name.name);
    const form = raw instanceof PdfRef ? document.fetch(raw) : raw;
    if (!(form instanceof PdfStream) || nameOf(form.dict.get('Subtype')) !== 'Form') return;
    if (forms.has(form)) return;
    if (this.depth >= MAX_FORM_DEPTH)
      throw new PdfUnsupportedError('form XObjects nested too deep');
    const state = this.state.clone();
    const matrix = document.get(form.dict, 'Matrix');
    if (
      Array.isArray(matrix) &&
      matrix.length === 6 &&
      matrix.every((value) => typeof value === 'number')
    ) {
      state.ctm = multiply(state.ctm, matrix as number[]);
    }
    const own = document.get(form.dict, 'Resources');
    forms.add(form);
    try {
      new TextReader(
        this.shared,
        isDict(own) ? own : this.resources,
        this.view,
        this.out,
        this.depth + 1,
        state,
      ).read(document.decode(form));
    } finally {
      forms.delete(form);
    }
  }
}

const EMPTY = new Uint8Array(0);

/** Whether `items[from…to]` holds a string. */
function hasString(items: readonly PdfObject[], from: number, to: number): boolean {
  for (let index = from; index < to; index++) if (items[index] instanceof Uint8Array) return true;
  return false;
}

/** The strings of `items[from…to]`, one after the other. */
function joinedStrings(items: readonly PdfObject[], from: number, to: number): Uint8Array {
  let only: Uint8Array | undefined;
  let count = 0;
  for (let index = from; index < to; index++) {
    const item = items[index];
    if (item instanceof Uint8Array) {
      only = item;
      count++;
    }
  }
  if (count === 1) return only!;
  if (count === 0) return EMPTY;
  return Buffer.concat(items.slice(from, to).filter((item) => item instanceof Uint8Array));
}

/** The number `index` places before the last operand, if it is one. */
function numberAt(args: readonly PdfObject[], index: number): number | undefined {
  const value = args[args.length - 1 - index];
  return typeof value === 'number' ? value : undefined;
}

/** Skips an inline image's data after `ID`, to its `EI`. */
function skipInlineImage(lexer: PdfLexer): void {
  const { bytes } = lexer;
  let at = lexer.pos + 1;
  while (at + 1 < bytes.length) {
    if (
      bytes[at] === 69 &&
      bytes[at + 1] === 73 &&
      isWhite(bytes[at - 1]!) &&
      (at + 2 >= bytes.length || isWhite(bytes[at + 2]!))
    ) {
      lexer.pos = at + 2;
      return;
    }
    at++;
  }
  lexer.pos = bytes.length;
}

/** A page's content: its streams' bytes, one after the other. */
function pageContent(document: PdfDocument, page: PdfPageRef): Uint8Array {
  const contents = document.get(page.dict, 'Contents');
  const list = Array.isArray(contents)
    ? contents.map((item) => document.fetchIf(item))
    : [contents];
  const parts: Uint8Array[] = [];
  for (const item of list) {
    if (!(item instanceof PdfStream)) continue;
    if (parts.length > 0) parts.push(Buffer.from('\n'));
    parts.push(document.decode(item));
  }
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
}

/** A page's text as unpdf's `extractText` gives it. */
function pageText(shared: Shared, page: PdfPageRef): string {
  const out: string[] = [];
  new TextReader(shared, page.resources, page.view, out, 0).read(
    pageContent(shared.document, page),
  );
  return out.join('');
}

/** The own reader's result, before `parsePdf` trims the pages. */
export interface PdfText {
  readonly pages: string[];
  readonly info: PdfInfo;
}

/** The information dictionary's text entries pdf.js's `getMetadata` gives. */
export interface PdfInfo {
  readonly Title?: string;
  readonly Author?: string;
  readonly Subject?: string;
}

/**
 * Text of each page of a PDF and its information dictionary's title, author and subject.
 * Throws `LoadLimitError` past `limits`, `PdfUnsupportedError` or `PdfSyntaxError` for a file
 * this reader leaves to pdf.js.
 */
export function readPdfText(bytes: Uint8Array, limits: PdfLimits): PdfText {
  const document = new PdfDocument(bytes, limits);
  const shared: Shared = { document, fonts: new Map(), forms: new Set() };
  const pages = pageList(document).map((page) => pageText(shared, page));
  const info: Record<string, string> = {};
  for (const key of ['Title', 'Author', 'Subject']) {
    const value = document.info(key);
    if (value !== undefined) info[key] = value;
  }
  return { pages, info };
}
