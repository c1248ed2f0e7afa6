/**
 * The own PDF text reader: the text of each page of a PDF, laid out as pdf.js's text layer
 * lays it out (where it puts a space, where a line ends), without pdf.js. One walk of the page
 * tree, each content stream read once with its fonts cached: linear in the file, bounded by
 * `LoadLimits` (`maxExpandedBytes` while inflating, `maxPages`, `maxNesting`). A file it cannot
 * read the way pdf.js does throws `PdfUnsupportedError` (see `pdf-document.ts`, `pdf-fonts.ts`);
 * `parsePdf` then reads it with unpdf.
 */
import type { LoadLimits } from './limits.js';
import { PdfDocument, PdfUnsupportedError, type PdfPageRef } from './pdf-document.js';
import { loadFont, type PdfFont } from './pdf-fonts.js';
import {
  isDict,
  nameOf,
  PdfKeyword,
  PdfLexer,
  PdfName,
  PdfRef,
  PdfStream,
  PdfSyntaxError,
  isWhite,
  type PdfDict,
  type PdfObject,
} from './pdf-objects.js';

type Matrix = [number, number, number, number, number, number];

const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0];

function multiply(m1: readonly number[], m2: readonly number[]): Matrix {
  return [
    m1[0]! * m2[0]! + m1[2]! * m2[1]!,
    m1[1]! * m2[0]! + m1[3]! * m2[1]!,
    m1[0]! * m2[2]! + m1[2]! * m2[3]!,
    m1[1]! * m2[2]! + m1[3]! * m2[3]!,
    m1[0]! * m2[4]! + m1[2]! * m2[5]! + m1[4]!,
    m1[1]! * m2[4]! + m1[3]! * m2[5]! + m1[5]!,
  ];
}

/** The text state and the current transformation matrix (pdf.js's `TextState`). */
class TextState {
  ctm: Matrix = [...IDENTITY];
  fontName: string | undefined = undefined;
  fontSize = 0;
  font: PdfFont | undefined = undefined;
  textMatrix: Matrix = [...IDENTITY];
  textLineMatrix: Matrix = [...IDENTITY];
  charSpacing = 0;
  wordSpacing = 0;
  leading = 0;
  textHScale = 1;
  textRise = 0;

  clone(): TextState {
    const copy = Object.assign(new TextState(), this);
    copy.ctm = [...this.ctm];
    copy.textMatrix = [...this.textMatrix];
    copy.textLineMatrix = [...this.textLineMatrix];
    return copy;
  }

  translateTextMatrix(x: number, y: number): void {
    const m = this.textMatrix;
    m[4] = m[0] * x + m[2] * y + m[4];
    m[5] = m[1] * x + m[3] * y + m[5];
  }

  translateTextLineMatrix(x: number, y: number): void {
    const m = this.textLineMatrix;
    m[4] = m[0] * x + m[2] * y + m[4];
    m[5] = m[1] * x + m[3] * y + m[5];
  }

  carriageReturn(): void {
    this.translateTextLineMatrix(0, -this.leading);
    this.textMatrix = [...this.textLineMatrix];
  }
}

/** What the reader shares across a document's pages: fonts by dictionary. */
interface Shared {
  readonly document: PdfDocument;
  readonly fonts: Map<PdfDict, PdfFont>;
  /** Form XObjects being read (a form that draws itself is skipped). */
  readonly forms: Set<PdfStream>;
}

// pdf.js's factors of the font size (evaluator.js, getTextContent).
const TRACKING_SPACE = 0.102;
const NOT_A_SPACE = 0.03;
const NEGATIVE_SPACE = -0.2;
const SPACE_IN_FLOW_MIN = 0.102;
const SPACE_IN_FLOW_MAX = 0.6;
const VERTICAL_SHIFT = 0.25;
/** Operands kept before an operator (more is a damaged stream). */
const MAX_OPERANDS = 64;
/** Deepest nesting of form XObjects. */
const MAX_FORM_DEPTH = 20;

/**
 * Reads one content stream's text into `out`, as pdf.js's `getTextContent` places it: the
 * position of each glyph against the last decides a space, a line end, or neither.
 */
class TextReader {
  private state = new TextState();
  private lastState: TextState | undefined;
  private readonly stack: TextState[] = [];
  private readonly operands: PdfObject[] = [];
  // The text item being built (pdf.js's `textContentItem`).
  private initialized = false;
  private str: string[] = [];
  private totalWidth = 0;
  private width = 0;
  private height = 0;
  private prevTransform: Matrix | undefined;
  private prevTextRise = 0;
  private textAdvanceScale = 0;
  private spaceInFlowMin = 0;
  private spaceInFlowMax = 0;
  private trackingSpaceMin = Infinity;
  private negativeSpaceMax = -Infinity;
  private notASpace = -Infinity;
  private hasEOL = false;
  private readonly lastChars = [' ', ' '];
  private lastCharPos = 0;
  private xObjects: PdfDict | undefined;

  constructor(
    private readonly shared: Shared,
    private readonly resources: PdfDict,
    private readonly view: readonly number[],
    private readonly out: string[],
    private readonly depth: number,
    state?: TextState,
  ) {
    if (state !== undefined) this.state = state;
  }

  // ---- pdf.js's helpers ----

  private saveLastChar(char: string): boolean {
    const pos = (this.lastCharPos + 1) % 2;
    const add = this.lastChars[this.lastCharPos] !== ' ' && this.lastChars[pos] === ' ';
    this.lastChars[this.lastCharPos] = char;
    this.lastCharPos = pos;
    return add;
  }

  private shouldAddWhitespace(): boolean {
    return (
      this.lastChars[this.lastCharPos] !== ' ' && this.lastChars[(this.lastCharPos + 1) % 2] === ' '
    );
  }

  private resetLastChars(): void {
    this.lastChars[0] = this.lastChars[1] = ' ';
    this.lastCharPos = 0;
  }

  private pushWhitespace(): void {
    this.out.push(' ');
  }

  private currentTransform(): Matrix {
    const { state } = this;
    return multiply(
      state.ctm,
      multiply(state.textMatrix, [
        state.fontSize * state.textHScale,
        0,
        0,
        state.fontSize,
        0,
        state.textRise,
      ]),
    );
  }

  private ensureItem(): void {
    if (this.initialized) return;
    const { state } = this;
    const transform = this.currentTransform();
    this.width = this.totalWidth = 0;
    this.height = Math.hypot(transform[2], transform[3]);
    this.textAdvanceScale =
      Math.hypot(state.ctm[0], state.ctm[1]) *
      Math.hypot(state.textLineMatrix[0], state.textLineMatrix[1]);
    const size = state.fontSize;
    this.trackingSpaceMin = size * TRACKING_SPACE;
    this.notASpace = size * NOT_A_SPACE;
    this.negativeSpaceMax = size * NEGATIVE_SPACE;
    this.spaceInFlowMin = size * SPACE_IN_FLOW_MIN;
    this.spaceInFlowMax = size * SPACE_IN_FLOW_MAX;
    this.hasEOL = false;
    this.initialized = true;
  }

  private updateAdvanceScale(): void {
    if (!this.initialized) return;
    const { state } = this;
    const scale =
      Math.hypot(state.ctm[0], state.ctm[1]) *
      Math.hypot(state.textLineMatrix[0], state.textLineMatrix[1]);
    if (scale === this.textAdvanceScale) return;
    this.totalWidth += this.width * this.textAdvanceScale;
    this.width = 0;
    this.textAdvanceScale = scale;
  }

  flush(): void {
    if (!this.initialized) return;
    this.totalWidth += this.width * this.textAdvanceScale;
    this.out.push(this.str.join(''));
    if (this.hasEOL) this.out.push('\n');
    this.initialized = false;
    this.str = [];
  }

  private appendEOL(): void {
    this.resetLastChars();
    if (this.initialized) {
      this.hasEOL = true;
      this.flush();
    } else {
      this.out.push('\n');
    }
  }

  private addFakeSpaces(width: number, sign: number): boolean {
    if (sign * this.spaceInFlowMin <= width && width <= sign * this.spaceInFlowMax) {
      if (this.initialized) {
        this.resetLastChars();
        this.str.push(' ');
      }
      return false;
    }
    this.flush();
    this.resetLastChars();
    this.pushWhitespace();
    return true;
  }

  /** pdf.js's `compareWithLastPosition` (horizontal writing). */
  private compareWithLastPosition(glyphWidth: number): boolean {
    const transform = this.currentTransform();
    let posX = transform[4];
    let posY = transform[5];
    const view = this.view;
    if (posX + glyphWidth < view[0]! || posX > view[2]! || posY < view[1]! || posY > view[3]!)
      return false;
    const prev = this.prevTransform;
    if (this.state.font === undefined || prev === undefined) return true;
    let lastX = prev[4];
    let lastY = prev[5];
    if (lastX === posX && lastY === posY) return true;
    let rotate = -1;
    if (transform[0] && transform[1] === 0 && transform[2] === 0)
      rotate = transform[0] > 0 ? 0 : 180;
    else if (transform[1] && transform[0] === 0 && transform[3] === 0)
      rotate = transform[1] > 0 ? 90 : 270;
    switch (rotate) {
      case 0:
        break;
      case 90:
        [posX, posY] = [posY, posX];
        [lastX, lastY] = [lastY, lastX];
        break;
      case 180:
        [posX, posY, lastX, lastY] = [-posX, -posY, -lastX, -lastY];
        break;
      case 270:
        [posX, posY] = [-posY, -posX];
        [lastX, lastY] = [-lastY, -lastX];
        break;
      default:
        [posX, posY] = inverseRotation(posX, posY, transform);
        [lastX, lastY] = inverseRotation(lastX, lastY, prev);
    }
    const advanceX = (posX - lastX) / this.textAdvanceScale;
    const advanceY = posY - lastY;
    const sign = Math.sign(this.width || this.totalWidth);
    if (advanceX < sign * this.negativeSpaceMax) {
      if (Math.abs(advanceY) > 0.5 * this.height) {
        this.appendEOL();
        return true;
      }
      this.resetLastChars();
      this.flush();
      return true;
    }
    const rise = this.state.textRise - this.prevTextRise;
    const shift = rise === 0 ? advanceY : advanceY - (transform[3] / this.state.fontSize) * rise;
    if (Math.abs(shift) > this.height) {
      this.appendEOL();
      return true;
    }
    if (advanceX <= sign * this.notASpace) this.resetLastChars();
    if (advanceX <= sign * this.trackingSpaceMin) {
      if (this.shouldAddWhitespace()) {
        this.resetLastChars();
        this.flush();
        this.pushWhitespace();
      } else {
        this.width += advanceX;
      }
    } else if (!this.addFakeSpaces(advanceX, sign)) {
      if (this.str.length === 0) {
        this.resetLastChars();
        this.pushWhitespace();
      } else {
        this.width += advanceX;
      }
    }
    if (Math.abs(advanceY) > this.height * VERTICAL_SHIFT) this.flush();
    return true;
  }

  /** pdf.js's `buildTextContentItem`: the glyphs of `chars` placed, `extraSpacing` after the last. */
  private showText(chars: Uint8Array, extraSpacing: number): void {
    const { state } = this;
    const last = this.lastState;
    if (
      last !== undefined &&
      (last.fontSize !== state.fontSize ||
        (last.fontName !== state.fontName && last.font?.name !== state.font?.name))
    ) {
      this.flush();
      this.lastState = state.clone();
    }
    const font = state.font!;
    const charSpacing = state.charSpacing;
    if (chars.length === 0) {
      const spacing = charSpacing + extraSpacing;
      if (spacing) state.translateTextMatrix(spacing * state.textHScale, 0);
      return;
    }
    const glyphs = font.glyphs(chars);
    const scale = state.fontSize / 1000;
    for (let index = 0; index < glyphs.length; index++) {
      const glyph = glyphs[index]!;
      if (glyph.invisible) continue;
      let spacing = charSpacing + (index + 1 === glyphs.length ? extraSpacing : 0);
      let width = glyph.width * scale;
      if (glyph.code === 32) spacing += state.wordSpacing;
      if (glyph.whitespace) {
        spacing += width;
        state.translateTextMatrix(spacing * state.textHScale, 0);
        this.saveLastChar(' ');
        continue;
      }
      if (!glyph.diacritic && !this.compareWithLastPosition(width)) {
        state.translateTextMatrix(width * state.textHScale, 0);
        continue;
      }
      this.ensureItem();
      if (glyph.diacritic) width = 0;
      width *= state.textHScale;
      state.translateTextMatrix(width, 0);
      this.width += width;
      if (width) {
        this.prevTransform = this.currentTransform();
        this.prevTextRise = state.textRise;
      }
      if (this.saveLastChar(glyph.text)) this.str.push(' ');
      this.str.push(glyph.text);
      if (spacing) state.translateTextMatrix(spacing * state.textHScale, 0);
    }
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
      this.lastState ??= this.state.clone();
      if (token.word === 'ID') skipInlineImage(lexer);
      else this.operator(token.word, operands);
      operands.length = 0;
    }
    this.flush();
  }

  private operator(op: string, args: PdfObject[]): void {
    const { state } = this;
    const number = (index: number): number | undefined => {
      const value = args[args.length - 1 - index];
      return typeof value === 'number' ? value : undefined;
    };
    switch (op) {
      case 'q':
        this.stack.push(this.state);
        this.state = this.state.clone();
        return;
      case 'Q': {
        const saved = this.stack.pop();
        if (saved !== undefined) this.state = saved;
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
        const size = number(0);
        if (!(name instanceof PdfName) || size === undefined) return;
        if (state.font !== undefined && name.name === state.fontName && size === state.fontSize)
          return;
        state.fontName = name.name;
        state.fontSize = size;
        state.font = this.font(name.name);
        return;
      }
      case 'Ts':
        state.textRise = number(0) ?? state.textRise;
        return;
      case 'Tz':
        if (number(0) !== undefined) state.textHScale = number(0)! / 100;
        return;
      case 'TL':
        state.leading = number(0) ?? state.leading;
        return;
      case 'Td':
      case 'TD': {
        const x = number(1);
        const y = number(0);
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
        this.updateAdvanceScale();
        return;
      }
      case 'Tc':
        state.charSpacing = number(0) ?? state.charSpacing;
        return;
      case 'Tw':
        state.wordSpacing = number(0) ?? state.wordSpacing;
        return;
      case 'Tj': {
        const text = args[args.length - 1];
        if (state.font === undefined || !(text instanceof Uint8Array)) return;
        this.showText(text, 0);
        return;
      }
      case "'": {
        const text = args[args.length - 1];
        if (state.font === undefined || !(text instanceof Uint8Array)) return;
        state.carriageReturn();
        this.showText(text, 0);
        return;
      }
      case '"': {
        const text = args[args.length - 1];
        const word = number(2);
        const char = number(1);
        if (state.font === undefined || !(text instanceof Uint8Array)) return;
        if (word === undefined || char === undefined) return;
        state.wordSpacing = word;
        state.charSpacing = char;
        state.carriageReturn();
        this.showText(text, 0);
        return;
      }
      case 'TJ':
        this.showSpacedText(args[args.length - 1]);
        return;
      case 'Do':
        this.flush();
        this.drawForm(args[args.length - 1]);
        return;
      case 'gs':
        this.graphicsState(args[args.length - 1]);
        return;
      case 'BMC':
      case 'BDC':
      case 'EMC':
        this.flush();
        return;
      default:
        return;
    }
  }

  private showSpacedText(array: PdfObject | undefined): void {
    const { state } = this;
    if (state.font === undefined || !Array.isArray(array)) return;
    const factor = -state.fontSize / 1000;
    let pending: Uint8Array[] = [];
    const joined = (): Uint8Array => {
      const bytes = pending.length === 1 ? pending[0]! : Buffer.concat(pending);
      pending = [];
      return bytes;
    };
    for (const item of array) {
      if (item instanceof Uint8Array) pending.push(item);
      else if (typeof item === 'number' && item !== 0) this.showText(joined(), item * factor);
    }
    if (pending.length > 0) this.showText(joined(), 0);
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

function inverseRotation(x: number, y: number, m: readonly number[]): [number, number] {
  const scale = Math.hypot(m[0]!, m[1]!);
  return [(m[0]! * x + m[1]! * y) / scale, (m[2]! * x + m[3]! * y) / scale];
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
export function readPdfText(
  bytes: Uint8Array,
  limits: Pick<LoadLimits, 'maxExpandedBytes' | 'maxPages' | 'maxNesting'>,
): PdfText {
  const document = new PdfDocument(bytes, limits);
  const shared: Shared = { document, fonts: new Map(), forms: new Set() };
  const pages = document.pages().map((page) => pageText(shared, page));
  const info: Record<string, string> = {};
  for (const key of ['Title', 'Author', 'Subject']) {
    const value = document.info(key);
    if (value !== undefined) info[key] = value;
  }
  return { pages, info };
}

/** Whether an error means "read this file with pdf.js" rather than "this file is refused". */
export function isDeclined(error: unknown): boolean {
  return error instanceof PdfUnsupportedError || error instanceof PdfSyntaxError;
}
