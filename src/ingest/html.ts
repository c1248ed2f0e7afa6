/**
 * HTML to plain text for ingestion: markup, scripts and styles removed, entities decoded,
 * `h1`–`h6` turned into markdown headings, block elements into paragraph breaks, list items
 * into `- ` lines, `pre` into fenced code. Pure and dependency-free; not a full HTML parser.
 * @module
 */
import { escapeHeadingLines } from './chunk-structure.js';

// Elements whose content is never text.
const DROPPED =
  /<(script|style|noscript|template|head|svg|math|iframe|object|canvas|select|button)\b(?:[^<>"']|"[^"]*"|'[^']*')*>[\s\S]*?(?:<\/\1\s*>|$)/gi;
const COMMENT = /<!--[\s\S]*?(?:-->|$)|<!\[CDATA\[[\s\S]*?(?:\]\]>|$)|<![^<>]*>|<\?[^<>]*>/g;
// A tag's name ends where the look-ahead says (no backtracking into it), and its attributes
// never span a `<`: an unclosed `<` costs the distance to the next one, not to the end.
// An unclosed dropped element (`<script>` with no `</script>`) drops the rest, as browsers do.
const TAG = /<(\/?)([a-zA-Z][a-zA-Z0-9:-]*)(?![a-zA-Z0-9:-])(?:[^<>"']|"[^"]*"|'[^']*')*?(\/?)>/g;
const PRE = /<pre\b(?:[^<>"']|"[^"]*"|'[^']*')*>([\s\S]*?)<\/pre\s*>/gi;

/** Elements that break a paragraph (shared with the `cortexis/loaders` HTML loader). */
export const BLOCK_ELEMENTS: ReadonlySet<string> = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'body',
  'caption',
  'center',
  'dd',
  'details',
  'dialog',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'header',
  'hgroup',
  'hr',
  'html',
  'legend',
  'main',
  'nav',
  'ol',
  'p',
  'section',
  'summary',
  'table',
  'tbody',
  'tfoot',
  'thead',
  'ul',
]);

const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  ensp: ' ',
  emsp: ' ',
  thinsp: ' ',
  ndash: '–',
  mdash: '—',
  hellip: '…',
  lsquo: '‘',
  rsquo: '’',
  sbquo: '‚',
  ldquo: '“',
  rdquo: '”',
  bdquo: '„',
  laquo: '«',
  raquo: '»',
  bull: '•',
  middot: '·',
  copy: '©',
  reg: '®',
  trade: '™',
  deg: '°',
  plusmn: '±',
  times: '×',
  divide: '÷',
  micro: 'µ',
  para: '¶',
  sect: '§',
  euro: '€',
  pound: '£',
  yen: '¥',
  cent: '¢',
  shy: '',
  zwj: '',
  zwnj: '',
  frac12: '½',
  frac14: '¼',
  frac34: '¾',
  larr: '←',
  rarr: '→',
  uarr: '↑',
  darr: '↓',
  le: '≤',
  ge: '≥',
  ne: '≠',
  asymp: '≈',
  infin: '∞',
  alpha: 'α',
  beta: 'β',
  gamma: 'γ',
  delta: 'δ',
  mu: 'μ',
  pi: 'π',
  sigma: 'σ',
  eacute: 'é',
  egrave: 'è',
  aacute: 'á',
  agrave: 'à',
  ouml: 'ö',
  uuml: 'ü',
  auml: 'ä',
  szlig: 'ß',
  ccedil: 'ç',
  ntilde: 'ñ',
  iacute: 'í',
  oacute: 'ó',
  uacute: 'ú',
};

/** Decodes named (common ones), decimal and hexadecimal character references. */
export function decodeEntities(text: string): string {
  return text.replace(
    /&(#[xX][0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-zA-Z][a-zA-Z0-9]{1,31});/g,
    (entity, body: string) => {
      if (body[0] === '#') {
        const code =
          body[1] === 'x' || body[1] === 'X'
            ? parseInt(body.slice(2), 16)
            : parseInt(body.slice(1), 10);
        return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff)
          ? String.fromCodePoint(code)
          : '\uFFFD';
      }
      return NAMED_ENTITIES[body] ?? NAMED_ENTITIES[body.toLowerCase()] ?? entity;
    },
  );
}

// Private-use markers for structure while text whitespace is collapsed.
const PARAGRAPH = '\uE000';
const LINE = '\uE001';
const PRE_SLOT = '\uE002';
/** A heading's `#`, kept apart from a `#` of the text until the text's own are escaped. */
const HEADING_MARK = '\uE003';

/** Converts an HTML document or fragment into text with markdown headings and paragraphs. */
export function htmlToText(html: string): string {
  const preBlocks: string[] = [];
  const cleaned = html
    .replace(/[\uE000-\uE003]/g, '')
    .replace(COMMENT, ' ')
    .replace(DROPPED, ' ')
    .replace(PRE, (_match, body: string) => {
      preBlocks.push(preText(body));
      return `<p>${PRE_SLOT}${preBlocks.length - 1}${PRE_SLOT}</p>`;
    });
  const text = renderMarkup(cleaned);
  return restorePre(normalize(text), preBlocks);
}

/** Text of a `pre` block as a fenced code block (its whitespace kept). */
function preText(body: string): string {
  const code = decodeEntities(body.replace(/<br\s*\/?>/gi, '\n').replace(TAG, ''))
    .replace(/^\n/, '')
    .trimEnd();
  const fence = code.includes('```') ? '~~~' : '```';
  return `${fence}\n${code}\n${fence}`;
}

/** Replaces tags with structure markers and decodes the text between them. */
function renderMarkup(html: string): string {
  const parts: string[] = [];
  let heading = 0;
  let cell = 0;
  let last = 0;
  for (const match of html.matchAll(TAG)) {
    parts.push(decodeEntities(html.slice(last, match.index)).replace(/\s+/g, ' '));
    last = match.index + match[0].length;
    const closing = match[1] === '/';
    const name = match[2]!.toLowerCase();
    const level = /^h([1-6])$/.exec(name)?.[1];
    if (level) {
      heading = closing ? 0 : Number(level);
      parts.push(closing ? PARAGRAPH : `${PARAGRAPH}${HEADING_MARK.repeat(heading)} `);
    } else if (name === 'br') {
      parts.push(heading ? ' ' : LINE);
    } else if (name === 'li') {
      parts.push(closing ? LINE : `${LINE}- `);
    } else if (name === 'tr') {
      parts.push(LINE);
      cell = 0;
    } else if (name === 'td' || name === 'th') {
      if (!closing && cell++ > 0) parts.push(' | ');
    } else if (BLOCK_ELEMENTS.has(name)) {
      parts.push(PARAGRAPH);
    } else if (name === 'img' && !closing) {
      const alt = /\balt\s*=\s*("([^"]*)"|'([^']*)')/i.exec(match[0]);
      const text = alt?.[2] ?? alt?.[3];
      if (text) parts.push(` ${decodeEntities(text)} `);
    }
  }
  parts.push(decodeEntities(html.slice(last)).replace(/\s+/g, ' '));
  return parts.join('');
}

/** Turns structure markers into newlines, trims lines, and collapses runs of blank lines. */
function normalize(text: string): string {
  const lines = text
    .replace(/[ \t\u00a0]+/g, ' ')
    .replace(/(?<![ \uE000\uE001])[ \uE000\uE001]*\uE000[ \uE000\uE001]*/g, '\n\n')
    .replace(/(?<![ \uE001])[ \uE001]*\uE001[ \uE001]*/g, '\n')
    .replace(/^[ \t]+|(?<![ \t])[ \t]+$/gm, '');
  // The text's own line-opening `#`s are escaped; then the headings' marks become `#`.
  return escapeHeadingLines(lines)
    .replaceAll(HEADING_MARK, '#')
    .replace(/^(?:- *|#{1,6})$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .replace(/^(#{1,6} [^\r\n]*)\n(?!\n)/gm, '$1\n\n')
    .trim();
}

function restorePre(text: string, blocks: readonly string[]): string {
  return text.replace(/\uE002(\d+)\uE002/g, (_match, index: string) => blocks[Number(index)] ?? '');
}
