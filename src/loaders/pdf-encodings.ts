/**
 * Character codes to Unicode for simple PDF fonts (ISO 32000-1 Annex D): the standard, WinAnsi
 * and MacRoman encodings, the Adobe glyph names a `/Differences` array uses (the Latin subset:
 * letters, digits, punctuation, accented letters built from their accent, ligatures,
 * `uniXXXX` / `uXXXX`), and the widths of the standard fonts a file may use without `/Widths`.
 */

/** StandardEncoding where it is not ASCII: code → text. */
const STANDARD_UPPER: Record<number, string> = {
  0x27: '\u2019',
  0x60: '\u2018',
  0xa1: '¡',
  0xa2: '¢',
  0xa3: '£',
  0xa4: '\u2044',
  0xa5: '¥',
  0xa6: 'ƒ',
  0xa7: '§',
  0xa8: '¤',
  0xa9: "'",
  0xaa: '\u201c',
  0xab: '«',
  0xac: '\u2039',
  0xad: '\u203a',
  0xae: '\ufb01',
  0xaf: '\ufb02',
  0xb1: '\u2013',
  0xb2: '\u2020',
  0xb3: '\u2021',
  0xb4: '·',
  0xb6: '¶',
  0xb7: '\u2022',
  0xb8: '\u201a',
  0xb9: '\u201e',
  0xba: '\u201d',
  0xbb: '»',
  0xbc: '\u2026',
  0xbd: '\u2030',
  0xbf: '¿',
  0xc1: '`',
  0xc2: '´',
  0xc3: '\u02c6',
  0xc4: '\u02dc',
  0xc5: '¯',
  0xc6: '\u02d8',
  0xc7: '\u02d9',
  0xc8: '¨',
  0xca: '\u02da',
  0xcb: '¸',
  0xcd: '\u02dd',
  0xce: '\u02db',
  0xcf: '\u02c7',
  0xd0: '\u2014',
  0xe1: 'Æ',
  0xe3: 'ª',
  0xe8: 'Ł',
  0xe9: 'Ø',
  0xea: 'Œ',
  0xeb: 'º',
  0xf1: 'æ',
  0xf5: 'ı',
  0xf8: 'ł',
  0xf9: 'ø',
  0xfa: 'œ',
  0xfb: 'ß',
};

/** Windows-1252 at 0x80–0x9F (Node decodes the label 'windows-1252' as Latin-1); its holes are bullets in pdf.js. */
const WINDOWS_1252 =
  '\u20ac\u2022\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u2022\u017d\u2022' +
  '\u2022\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u2022\u017e\u0178';
const macintosh = new TextDecoder('macintosh');

/** An encoding: code → text, `undefined` where it has no glyph. */
export type Encoding = (code: number) => string | undefined;

/** StandardEncoding (the default of a Type 1 font). */
export const standardEncoding: Encoding = (code) => {
  const upper = STANDARD_UPPER[code];
  if (upper !== undefined) return upper;
  return code >= 0x20 && code < 0x7f ? String.fromCharCode(code) : undefined;
};

/** WinAnsiEncoding (Windows-1252 with pdf.js's bullets for its holes). */
export const winAnsiEncoding: Encoding = (code) => {
  if (code === 0x7f) return '\u2022';
  if (code >= 0x80 && code <= 0x9f) return WINDOWS_1252[code - 0x80];
  if (code === 0xad) return '-';
  if (code === 0xa0) return ' ';
  if (code < 0x20) return undefined;
  return String.fromCharCode(code);
};

/** MacRomanEncoding. */
export const macRomanEncoding: Encoding = (code) => {
  if (code < 0x20 || code === 0x7f) return undefined;
  if (code === 0xca) return ' ';
  return macintosh.decode(Uint8Array.of(code));
};

/** An encoding by its name (`/Encoding /WinAnsiEncoding`), `undefined` for another. */
export function namedEncoding(name: string | undefined): Encoding | undefined {
  switch (name) {
    case 'WinAnsiEncoding':
      return winAnsiEncoding;
    case 'MacRomanEncoding':
      return macRomanEncoding;
    case 'StandardEncoding':
      return standardEncoding;
    default:
      return undefined;
  }
}

const DIGITS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
const ACCENTS: Record<string, string> = {
  acute: '\u0301',
  grave: '\u0300',
  circumflex: '\u0302',
  dieresis: '\u0308',
  tilde: '\u0303',
  ring: '\u030a',
  cedilla: '\u0327',
  caron: '\u030c',
  breve: '\u0306',
  macron: '\u0304',
  ogonek: '\u0328',
  dotaccent: '\u0307',
  hungarumlaut: '\u030b',
  commaaccent: '\u0326',
};
/** Glyph names of the Adobe glyph list (AGL) that are not a letter, a digit or an accented letter. */
const NAMED: Record<string, string> = {
  space: ' ',
  exclam: '!',
  quotedbl: '"',
  numbersign: '#',
  dollar: '$',
  percent: '%',
  ampersand: '&',
  quotesingle: "'",
  parenleft: '(',
  parenright: ')',
  asterisk: '*',
  plus: '+',
  comma: ',',
  hyphen: '-',
  period: '.',
  slash: '/',
  colon: ':',
  semicolon: ';',
  less: '<',
  equal: '=',
  greater: '>',
  question: '?',
  at: '@',
  bracketleft: '[',
  backslash: '\\',
  bracketright: ']',
  asciicircum: '^',
  underscore: '_',
  grave: '`',
  braceleft: '{',
  bar: '|',
  braceright: '}',
  asciitilde: '~',
  quoteleft: '\u2018',
  quoteright: '\u2019',
  quotesinglbase: '\u201a',
  quotedblleft: '\u201c',
  quotedblright: '\u201d',
  quotedblbase: '\u201e',
  guillemotleft: '«',
  guillemotright: '»',
  guilsinglleft: '\u2039',
  guilsinglright: '\u203a',
  endash: '\u2013',
  emdash: '\u2014',
  bullet: '\u2022',
  ellipsis: '\u2026',
  dagger: '\u2020',
  daggerdbl: '\u2021',
  perthousand: '\u2030',
  trademark: '\u2122',
  copyright: '©',
  registered: '®',
  degree: '°',
  plusminus: '±',
  multiply: '×',
  divide: '÷',
  section: '§',
  paragraph: '¶',
  periodcentered: '·',
  cent: '¢',
  sterling: '£',
  yen: '¥',
  currency: '¤',
  brokenbar: '¦',
  logicalnot: '¬',
  mu: 'µ',
  onesuperior: '¹',
  twosuperior: '²',
  threesuperior: '³',
  onequarter: '¼',
  onehalf: '½',
  threequarters: '¾',
  ordfeminine: 'ª',
  ordmasculine: 'º',
  exclamdown: '¡',
  questiondown: '¿',
  Euro: '€',
  florin: 'ƒ',
  fraction: '\u2044',
  minus: '\u2212',
  nbspace: '\u00a0',
  nonbreakingspace: '\u00a0',
  sfthyphen: '\u00ad',
  softhyphen: '\u00ad',
  AE: 'Æ',
  ae: 'æ',
  OE: 'Œ',
  oe: 'œ',
  Oslash: 'Ø',
  oslash: 'ø',
  germandbls: 'ß',
  dotlessi: 'ı',
  Lslash: 'Ł',
  lslash: 'ł',
  Eth: 'Ð',
  eth: 'ð',
  Thorn: 'Þ',
  thorn: 'þ',
  fi: '\ufb01',
  fl: '\ufb02',
  ff: '\ufb00',
  ffi: '\ufb03',
  ffl: '\ufb04',
  acute: '´',
  circumflex: '\u02c6',
  tilde: '\u02dc',
  dieresis: '¨',
  ring: '\u02da',
  cedilla: '¸',
  caron: '\u02c7',
  macron: '¯',
  breve: '\u02d8',
  dotaccent: '\u02d9',
  hungarumlaut: '\u02dd',
  ogonek: '\u02db',
  arrowright: '\u2192',
  arrowleft: '\u2190',
  checkmark: '\u2713',
  notequal: '\u2260',
  lessequal: '\u2264',
  greaterequal: '\u2265',
  infinity: '\u221e',
  f_h: 'fh',
  f_t: 'ft',
  T_h: 'Th',
};

/**
 * The text of an AGL glyph name, or `undefined` for a name outside the subset this reader
 * knows (the caller declines the file rather than guess).
 */
export function glyphText(name: string): string | undefined {
  const named = NAMED[name];
  if (named !== undefined) return named;
  if (name.length === 1 && /^[A-Za-z]$/.test(name)) return name;
  const digit = DIGITS.indexOf(name);
  if (digit !== -1) return String(digit);
  if (/^uni[0-9A-F]{4}$/.test(name)) return String.fromCharCode(Number.parseInt(name.slice(3), 16));
  if (/^u[0-9A-F]{4,6}$/.test(name)) {
    const code = Number.parseInt(name.slice(1), 16);
    if (code <= 0x10ffff && (code < 0xd800 || code > 0xdfff)) return String.fromCodePoint(code);
  }
  // An accented letter: its letter and the accent's name (`eacute`, `Ccedilla`).
  const letter = name[0]!;
  if (/^[A-Za-z]$/.test(letter)) {
    const accent = ACCENTS[name.slice(1)];
    if (accent !== undefined) {
      const composed = (letter + accent).normalize('NFC');
      if (composed.length === 1) return composed;
    }
  }
  return undefined;
}

/** Widths (thousandths of the font size) of ASCII characters, from the fonts' AFM files. */
function asciiWidths(widths: readonly number[]): ReadonlyMap<string, number> {
  return new Map(widths.map((width, index) => [String.fromCharCode(32 + index), width]));
}

// Characters 32–126 (in StandardEncoding 0x27 and 0x60 are quoteright and quoteleft, below).
const HELVETICA = asciiWidths([
  278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, 556, 556, 556,
  556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556, 1015, 667, 667, 722, 722, 667,
  611, 778, 722, 278, 500, 667, 556, 833, 722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667,
  667, 611, 278, 278, 278, 469, 556, 333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500,
  222, 833, 556, 556, 556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,
]);
const TIMES = asciiWidths([
  250, 333, 408, 500, 500, 833, 778, 180, 333, 333, 500, 564, 250, 333, 250, 278, 500, 500, 500,
  500, 500, 500, 500, 500, 500, 500, 278, 278, 564, 564, 564, 444, 921, 722, 667, 667, 722, 611,
  556, 722, 722, 333, 389, 722, 611, 889, 722, 722, 556, 722, 667, 556, 611, 722, 722, 944, 722,
  722, 611, 333, 278, 333, 469, 500, 333, 444, 500, 444, 500, 444, 333, 500, 500, 278, 278, 500,
  278, 778, 500, 500, 500, 500, 333, 389, 278, 500, 500, 722, 500, 500, 444, 480, 200, 480, 541,
]);
const QUOTES = new Map([
  [
    'HELVETICA',
    new Map([
      ['\u2019', 222],
      ['\u2018', 222],
    ]),
  ],
  [
    'TIMES',
    new Map([
      ['\u2019', 333],
      ['\u2018', 333],
    ]),
  ],
]);

/**
 * The width of a character of a standard font used without `/Widths` (Helvetica, Times-Roman,
 * Courier and their common aliases), or `undefined` where this reader does not know it.
 */
export function standardFontWidth(baseFont: string, text: string): number | undefined {
  const name = baseFont.replace(/^[A-Z]{6}\+/, '').replace(/[\s,]/g, '');
  if (/^Courier/.test(name) || /^CourierNew/.test(name)) return 600;
  if (/^(Helvetica|Arial|ArialMT)(-Oblique|-Italic|Italic|ItalicMT)?$/.test(name)) {
    return HELVETICA.get(text) ?? QUOTES.get('HELVETICA')!.get(text);
  }
  if (/^(Times-Roman|TimesNewRoman|TimesNewRomanPSMT|Times)$/.test(name)) {
    return TIMES.get(text) ?? QUOTES.get('TIMES')!.get(text);
  }
  return undefined;
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
