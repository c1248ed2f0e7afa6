/**
 * PDF fonts as text extraction needs them (ISO 32000-1 §9.6–9.10): for each code of a shown
 * string, its width and its Unicode text. Simple fonts (Type 1, TrueType, Type 3 with its font
 * matrix) through their encoding, `/Differences` and `/ToUnicode`; composite fonts (Type 0)
 * with `Identity-H` and a `/ToUnicode` CMap. What this reader cannot map the way pdf.js does
 * (a Type 3 font without a box, vertical writing, other CMaps, a font's built-in encoding, an
 * unknown glyph name) throws
 * `PdfUnsupportedError`, lazily: only when a code that needs it is shown.
 */
import { CodeTable, parseToUnicode } from './pdf-cmap.js';
import type { PdfDocument } from './pdf-document.js';
import {
  glyphText,
  namedEncoding,
  standardEncoding,
  standardFontWidth,
  winAnsiEncoding,
} from './pdf-encodings.js';
import {
  isDict,
  nameOf,
  numberOf,
  PdfName,
  PdfStream,
  PdfUnsupportedError,
  type PdfDict,
  type PdfObject,
} from './pdf-objects.js';

/** A glyph shown: its code, width (glyph space, thousandths) and text, with pdf.js's categories. */
export interface PdfGlyph {
  readonly code: number;
  readonly width: number;
  /** The text as pdf.js gives it (NFKC for its compatibility characters). */
  readonly text: string;
  readonly whitespace: boolean;
  readonly diacritic: boolean;
  readonly invisible: boolean;
}

/** A font loaded for text extraction. */
export interface PdfFont {
  /** The `/BaseFont` name. */
  readonly name: string;
  /** The glyphs of a shown string. */
  glyphs(bytes: Uint8Array): PdfGlyph[];
  /** Glyph space to text space (`/FontMatrix` of a Type 3 font; thousandths for the others). */
  readonly fontMatrix: readonly number[];
  /** A Type 3 font's `/FontBBox` (pdf.js scales the height of its text by it). */
  readonly type3Box?: readonly number[] | undefined;
}

/** The font matrix of every font but Type 3. */
export const FONT_MATRIX: readonly number[] = [0.001, 0, 0, 0.001, 0, 0];

/** Symbolic flag of a font descriptor. */
const SYMBOLIC = 4;
/** Nonsymbolic flag of a font descriptor. */
const NONSYMBOLIC = 32;

/** pdf.js's categories of a glyph's text: `^(\s)|(\p{Mn})|(\p{Cf})$`. */
function categories(text: string): Pick<PdfGlyph, 'whitespace' | 'diacritic' | 'invisible'> {
  return {
    whitespace: /^\s/u.test(text),
    diacritic: /\p{Mn}/u.test(text),
    invisible: /\p{Cf}$/u.test(text),
  };
}

/** Code points pdf.js replaces by their NFKC form in extracted text (`normalizeUnicode`). */
const NORMALIZED: readonly (readonly [number, number])[] = [
  [0xa0, 0xa0],
  [0xb5, 0xb5],
  [0x37e, 0x37e],
  [0xeb3, 0xeb3],
  [0x2000, 0x200a],
  [0x202f, 0x202f],
  [0x2126, 0x2126],
  [0xfb00, 0xfb04],
  [0xfb06, 0xfb06],
  [0xfb20, 0xfb36],
  [0xfb38, 0xfb3c],
  [0xfb3e, 0xfb3e],
  [0xfb40, 0xfb41],
  [0xfb43, 0xfb44],
  [0xfb46, 0xfba1],
  [0xfba4, 0xfba9],
  [0xfbae, 0xfbb1],
  [0xfbd3, 0xfbdc],
  [0xfbde, 0xfbe7],
  [0xfbea, 0xfbf8],
  [0xfbfc, 0xfbfd],
  [0xfc00, 0xfc5d],
  [0xfc64, 0xfcf1],
  [0xfcf5, 0xfd3d],
  [0xfd88, 0xfd88],
  [0xfdf4, 0xfdf4],
  [0xfdfa, 0xfdfb],
  [0xfe71, 0xfe71],
  [0xfe77, 0xfe77],
  [0xfe79, 0xfe79],
  [0xfe7b, 0xfe7b],
  [0xfe7d, 0xfe7d],
];

/** Right-to-left scripts: pdf.js reorders them (bidi), which this reader does not. */
function isRightToLeft(code: number): boolean {
  return (
    (code >= 0x590 && code <= 0x8ff) ||
    (code >= 0xfb1d && code <= 0xfdff) ||
    (code >= 0xfe70 && code <= 0xfefc)
  );
}

/** Text as pdf.js's text layer gives it: its compatibility characters in NFKC. */
function normalized(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (isRightToLeft(code)) throw new PdfUnsupportedError('right-to-left text');
    if (code === 0xfb05) {
      out += '\u017ft';
      continue;
    }
    const hit = NORMALIZED.some(([low, high]) => code >= low && code <= high);
    out += hit ? char.normalize('NFKC') : char;
  }
  return out;
}

function glyph(code: number, width: number, raw: string): PdfGlyph {
  return { code, width, text: normalized(raw), ...categories(raw) };
}

/** Widths by code from `/FirstChar` and `/Widths`. */
function simpleWidths(document: PdfDocument, dict: PdfDict): Map<number, number> | undefined {
  const widths = document.get(dict, 'Widths');
  if (!Array.isArray(widths)) return undefined;
  const first = numberOf(document.get(dict, 'FirstChar'), 0);
  const map = new Map<number, number>();
  widths.forEach((item, index) => {
    const width = document.fetchIf(item);
    if (typeof width === 'number') map.set(first + index, width);
  });
  return map;
}

/** The Differences array: code → glyph name. */
function differences(document: PdfDocument, encoding: PdfObject): Map<number, string> {
  const map = new Map<number, string>();
  if (!isDict(encoding)) return map;
  const list = document.get(encoding, 'Differences');
  if (!Array.isArray(list)) return map;
  let code = 0;
  for (const item of list) {
    const value = document.fetchIf(item);
    if (typeof value === 'number') code = value;
    else if (value instanceof PdfName) map.set(code++, value.name);
  }
  return map;
}

function toUnicodeOf(document: PdfDocument, dict: PdfDict): CodeTable<string> | undefined {
  const stream = document.get(dict, 'ToUnicode');
  if (!(stream instanceof PdfStream)) return undefined;
  return parseToUnicode(document.decode(stream), document.limits.maxNesting, (bytes) =>
    document.expand(bytes),
  );
}

function descriptorOf(document: PdfDocument, dict: PdfDict): PdfDict | undefined {
  const descriptor = document.get(dict, 'FontDescriptor');
  return isDict(descriptor) ? descriptor : undefined;
}

function isEmbedded(document: PdfDocument, descriptor: PdfDict | undefined): boolean {
  if (descriptor === undefined) return false;
  return ['FontFile', 'FontFile2', 'FontFile3'].some((key) => descriptor.has(key));
}

/** A simple font (Type 1, TrueType): one byte a code. */
function simpleFont(
  document: PdfDocument,
  dict: PdfDict,
  subtype: string | undefined,
  type3?: { readonly fontMatrix: readonly number[]; readonly box: readonly number[] },
): PdfFont {
  const name = nameOf(document.get(dict, 'BaseFont')) ?? '';
  const descriptor = descriptorOf(document, dict);
  const embedded = isEmbedded(document, descriptor);
  const flags = numberOf(descriptor === undefined ? null : document.get(descriptor, 'Flags'), 0);
  const encodingObject = document.get(dict, 'Encoding');
  const differing = differences(document, encodingObject);
  const baseName = isDict(encodingObject)
    ? nameOf(document.get(encodingObject, 'BaseEncoding'))
    : nameOf(encodingObject);
  if (baseName === 'MacExpertEncoding') throw new PdfUnsupportedError('MacExpertEncoding');
  // The base encoding as pdf.js chooses it; `undefined` where it is the font program's own.
  let base = baseName === 'StandardEncoding' ? undefined : namedEncoding(baseName);
  const hasEncoding = base !== undefined || differing.size > 0;
  if (base === undefined) {
    const nonsymbolic = (flags & NONSYMBOLIC) !== 0;
    let symbolic = (flags & SYMBOLIC) !== 0;
    if (subtype === 'TrueType' && symbolic && nonsymbolic && differing.size > 0) symbolic = false;
    base = subtype === 'TrueType' && !nonsymbolic ? winAnsiEncoding : standardEncoding;
    if (symbolic || /Symbol|Dingbats|Wingdings/i.test(name)) base = undefined;
  }
  const toUnicode = toUnicodeOf(document, dict);
  // pdf.js takes the codes of an embedded Type 1 / CFF program without ToUnicode from the
  // program's own encoding, unless a /Differences without a base encoding names them all.
  const type1Program =
    descriptor !== undefined && (descriptor.has('FontFile') || descriptor.has('FontFile3'));
  if (type1Program && toUnicode === undefined && (baseName !== undefined || differing.size === 0)) {
    throw new PdfUnsupportedError(`the built-in encoding of ${name}`);
  }
  const widths = simpleWidths(document, dict);
  const missingWidth = numberOf(
    descriptor === undefined ? null : document.get(descriptor, 'MissingWidth'),
    0,
  );
  const encodingText = (code: number): string | undefined => {
    const differ = differing.get(code);
    if (differ !== undefined && differ !== '.notdef') {
      const text = glyphText(differ);
      if (text === undefined) throw new PdfUnsupportedError(`the glyph name ${differ}`);
      return text;
    }
    if (base === undefined) throw new PdfUnsupportedError(`the built-in encoding of ${name}`);
    return base(code);
  };
  const cache: (PdfGlyph | undefined)[] = new Array(256);
  const glyphFor = (code: number): PdfGlyph => {
    let text = toUnicode?.get(code) || undefined;
    if (text === undefined && (toUnicode === undefined || hasEncoding)) text = encodingText(code);
    // A code without a glyph in a font that is not embedded is drawn as a space (pdf.js).
    if (text === undefined && !embedded && subtype === 'Type1' && toUnicode === undefined)
      text = ' ';
    text ??= String.fromCharCode(code);
    let width =
      widths === undefined ? standardFontWidth(name, text) : (widths.get(code) ?? missingWidth);
    if (width === undefined) throw new PdfUnsupportedError(`the widths of ${name}`);
    if (width === 0 && text === ' ' && !embedded) width = standardFontWidth(name, ' ') ?? 0;
    return glyph(code, width, text);
  };
  return {
    name,
    fontMatrix: type3?.fontMatrix ?? FONT_MATRIX,
    type3Box: type3?.box,
    glyphs(bytes) {
      const out: PdfGlyph[] = new Array(bytes.length);
      for (let index = 0; index < bytes.length; index++) {
        const code = bytes[index]!;
        out[index] = cache[code] ??= glyphFor(code);
      }
      return out;
    },
  };
}

/** CID widths from `/W` (`c [w…]` and `c1 c2 w`). */
function cidWidths(document: PdfDocument, descendant: PdfDict): CodeTable<number> {
  const map = new CodeTable<number>((bytes) => document.expand(bytes));
  const list = document.get(descendant, 'W');
  if (!Array.isArray(list)) return map;
  for (let index = 0; index < list.length; index++) {
    const first = document.fetchIf(list[index]);
    if (typeof first !== 'number' || !Number.isInteger(first)) break;
    const next = document.fetchIf(list[++index]);
    if (Array.isArray(next)) {
      next.forEach((item, offset) => {
        const width = document.fetchIf(item);
        if (typeof width === 'number') map.set(first + offset, width);
      });
    } else if (typeof next === 'number' && Number.isInteger(next)) {
      const width = document.fetchIf(list[++index]);
      if (typeof width !== 'number') continue;
      map.range(first, next, () => width);
    } else {
      break;
    }
  }
  return map;
}

/** A composite font with `Identity-H`: two bytes a code, the code its CID. */
function compositeFont(document: PdfDocument, dict: PdfDict): PdfFont {
  const name = nameOf(document.get(dict, 'BaseFont')) ?? '';
  const encoding = nameOf(document.get(dict, 'Encoding'));
  if (encoding !== 'Identity-H')
    throw new PdfUnsupportedError(`the CMap ${encoding ?? '(embedded)'}`);
  const descendants = document.get(dict, 'DescendantFonts');
  const descendant = Array.isArray(descendants) ? document.fetchIf(descendants[0]) : null;
  if (!isDict(descendant)) throw new PdfUnsupportedError('a Type0 font without its CIDFont');
  // pdf.js reads a font without a descriptor as a standard simple font.
  if (descriptorOf(document, descendant) === undefined) {
    throw new PdfUnsupportedError('a CIDFont without a font descriptor');
  }
  const toUnicode = toUnicodeOf(document, dict);
  if (toUnicode === undefined) throw new PdfUnsupportedError('a CID font without ToUnicode');
  const widths = cidWidths(document, descendant);
  const dw = document.get(descendant, 'DW');
  const defaultWidth = typeof dw === 'number' ? Math.ceil(dw) : 1000;
  const cache = new Map<number, PdfGlyph>();
  return {
    name,
    fontMatrix: FONT_MATRIX,
    glyphs(bytes) {
      const out: PdfGlyph[] = [];
      for (let at = 0; at < bytes.length; at += 2) {
        const code = at + 1 < bytes.length ? (bytes[at]! << 8) | bytes[at + 1]! : bytes[at]!;
        let found = cache.get(code);
        if (found === undefined) {
          found = glyph(
            code,
            widths.get(code) ?? defaultWidth,
            toUnicode.get(code) || String.fromCharCode(code),
          );
          cache.set(code, found);
        }
        out.push(found);
      }
      return out;
    },
  };
}

/** Six numbers, or undefined. */
function numbers(document: PdfDocument, value: PdfObject, count: number): number[] | undefined {
  if (!Array.isArray(value) || value.length !== count) return undefined;
  const items = value.map((item) => document.fetchIf(item));
  return items.every((item) => typeof item === 'number') ? (items as number[]) : undefined;
}

/**
 * A Type 3 font's matrix and box. Without a box (pdf.js then measures each glyph's) or with a
 * matrix whose first number is 0, the font is declined.
 */
function type3Geometry(
  document: PdfDocument,
  dict: PdfDict,
): { fontMatrix: readonly number[]; box: readonly number[] } {
  const fontMatrix = numbers(document, document.get(dict, 'FontMatrix'), 6);
  const box = numbers(document, document.get(dict, 'FontBBox'), 4);
  if (fontMatrix === undefined || fontMatrix[0] === 0) {
    throw new PdfUnsupportedError('a Type 3 font without a usable /FontMatrix');
  }
  if (box === undefined || box.every((value) => value === 0)) {
    throw new PdfUnsupportedError('a Type 3 font without /FontBBox');
  }
  return { fontMatrix, box };
}

/** The font of a font dictionary. */
export function loadFont(document: PdfDocument, dict: PdfDict): PdfFont {
  const subtype = nameOf(document.get(dict, 'Subtype'));
  if (subtype === 'Type0') return compositeFont(document, dict);
  if (subtype === 'Type3')
    return simpleFont(document, dict, subtype, type3Geometry(document, dict));
  return simpleFont(document, dict, subtype);
}
