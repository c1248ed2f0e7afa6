/**
 * pdf.js's text layout (its `getTextContent`, horizontal writing), ported: the text state and
 * transformation matrix, and the text item being built, where the position of each glyph
 * against the last decides a space, a line end, or neither. The text goes to `out` as unpdf's
 * `extractText` joins it (each item's text, a newline after an item that ends a line).
 */
import { FONT_MATRIX, type PdfFont } from './pdf-fonts.js';

export type Matrix = [number, number, number, number, number, number];

export const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0];

export function multiply(m1: readonly number[], m2: readonly number[]): Matrix {
  return [
    m1[0]! * m2[0]! + m1[2]! * m2[1]!,
    m1[1]! * m2[0]! + m1[3]! * m2[1]!,
    m1[0]! * m2[2]! + m1[2]! * m2[3]!,
    m1[1]! * m2[2]! + m1[3]! * m2[3]!,
    m1[0]! * m2[4]! + m1[2]! * m2[5]! + m1[4]!,
    m1[1]! * m2[4]! + m1[3]! * m2[5]! + m1[5]!,
  ];
}

/**
 * `multiply(ctm, multiply(tm, [a, 0, 0, d, 0, rise]))` (a glyph's transform, pdf.js's
 * `getCurrentTransform`) with one array made instead of three: the same products in the same
 * order (the zero terms too), so the same numbers.
 */
function textTransform(
  ctm: readonly number[],
  tm: readonly number[],
  a: number,
  d: number,
  rise: number,
): Matrix {
  const i0 = tm[0]! * a + tm[2]! * 0;
  const i1 = tm[1]! * a + tm[3]! * 0;
  const i2 = tm[0]! * 0 + tm[2]! * d;
  const i3 = tm[1]! * 0 + tm[3]! * d;
  const i4 = tm[0]! * 0 + tm[2]! * rise + tm[4]!;
  const i5 = tm[1]! * 0 + tm[3]! * rise + tm[5]!;
  return [
    ctm[0]! * i0 + ctm[2]! * i1,
    ctm[1]! * i0 + ctm[3]! * i1,
    ctm[0]! * i2 + ctm[2]! * i3,
    ctm[1]! * i2 + ctm[3]! * i3,
    ctm[0]! * i4 + ctm[2]! * i5 + ctm[4]!,
    ctm[1]! * i4 + ctm[3]! * i5 + ctm[5]!,
  ];
}

/** The text state and the current transformation matrix (pdf.js's `TextState`). */
export class TextState {
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

// pdf.js's factors of the font size (evaluator.js, getTextContent).
const TRACKING_SPACE = 0.102;
const NOT_A_SPACE = 0.03;
const NEGATIVE_SPACE = -0.2;
const SPACE_IN_FLOW_MIN = 0.102;
const SPACE_IN_FLOW_MAX = 0.6;
const VERTICAL_SHIFT = 0.25;

/** Whether a font matrix is the usual one (thousandths). */
function isUsualFontMatrix(m: readonly number[]): boolean {
  return m.length === 6 && FONT_MATRIX.every((value, index) => m[index] === value);
}

/** Lays out the glyphs a content stream shows into `out`. */
export class TextLayout {
  /** The text state (`q` / `Q` replace it). */
  state: TextState;
  /** The state fonts are compared against (pdf.js's clone of the first one). */
  private lastState: TextState | undefined;
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

  constructor(
    private readonly view: readonly number[],
    private readonly out: string[],
    state = new TextState(),
  ) {
    this.state = state;
  }

  /** Before each operator: the first one fixes the state fonts are compared against. */
  beforeOperator(): void {
    this.lastState ??= this.state.clone();
  }

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
    let height = state.fontSize;
    const box = state.font?.type3Box;
    const fontMatrix = state.font?.fontMatrix;
    // pdf.js: a Type 3 font shown at a size of 1 or less has its height from its box.
    if (
      box !== undefined &&
      fontMatrix !== undefined &&
      state.fontSize <= 1 &&
      !isUsualFontMatrix(fontMatrix)
    ) {
      const boxHeight = box[3]! - box[1]!;
      if (boxHeight > 0) height *= boxHeight * fontMatrix[3]!;
    }
    return textTransform(
      state.ctm,
      state.textMatrix,
      state.fontSize * state.textHScale,
      height,
      state.textRise,
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

  /** After `Tm`: the advance scale of the item being built follows the new line matrix. */
  updateAdvanceScale(): void {
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
  showText(chars: Uint8Array, extraSpacing: number): void {
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
    const scale = font.fontMatrix[0]! * state.fontSize;
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
}

function inverseRotation(x: number, y: number, m: readonly number[]): [number, number] {
  const scale = Math.hypot(m[0]!, m[1]!);
  return [(m[0]! * x + m[1]! * y) / scale, (m[2]! * x + m[3]! * y) / scale];
}
