/**
 * The markdown structure `chunkText` follows: a text's blocks (headings, paragraphs, fenced
 * code blocks, page breaks), grouped into sections that each start at a heading.
 */

export type BlockKind = 'heading' | 'paragraph' | 'code' | 'page-break';

/** A markdown block: a heading line, a paragraph, a fenced code block or a page break. */
export interface Block {
  readonly kind: BlockKind;
  readonly start: number;
  readonly end: number;
  /** Heading level 1–6 (headings only). */
  readonly level: number;
  /** Heading title (headings only). */
  readonly title: string;
}

/** Blocks from one heading (or the document start) to the next heading after some content. */
export interface Section {
  readonly headingPath: string[];
  readonly blocks: Block[];
}

// One space or tab, then the rest (trimmed by the caller): /[ \t]+(.*)/ backtracks.
const HEADING = /^ {0,3}(#{1,6})(?:[ \t](.*))?$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
/** A line that `HEADING` would read as a heading: one to six `#`, then a blank or the end. */
const HEADING_LIKE = /^( {0,3})(#{1,6})(?=[ \t]|$)/gm;

/**
 * Text that is not a heading, with every line that would read as one escaped as markdown
 * writes a literal `#` (`\#`). The loaders write headings as `#` lines and everything else
 * through this: a table whose first column is headed `#`, or a paragraph that opens with the
 * code span `` `#` ``, must not start a section whose title becomes every source's heading path.
 */
export function escapeHeadingLines(text: string): string {
  return text.includes('#') ? text.replace(HEADING_LIKE, '$1\\$2') : text;
}

/** A heading's title without its closing `#`s (all `#`, or `#`s after a space or tab). */
function withoutClosingHashes(title: string): string {
  let end = title.length;
  while (end > 0 && title[end - 1] === '#') end--;
  if (end === title.length) return title;
  if (end === 0) return '';
  const before = title[end - 1];
  return before === ' ' || before === '\t' ? title.slice(0, end).trim() : title;
}

/** Start and end of `text[start, end)` without surrounding whitespace. */
export function trimSpan(text: string, start: number, end: number): [number, number] {
  while (start < end && isSpace(text.charCodeAt(start))) start++;
  while (end > start && isSpace(text.charCodeAt(end - 1))) end--;
  return [start, end];
}

function isSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13) || code === 160 || code === 0xfeff;
}

function block(
  text: string,
  kind: BlockKind,
  start: number,
  end: number,
  level = 0,
  title = '',
): Block {
  const [from, to] = trimSpan(text, start, end);
  return { kind, start: from, end: to, level, title };
}

/** Headings, paragraphs (separated by blank lines) and fenced code blocks, in order. */
export function parseBlocks(text: string): Block[] {
  const blocks: Block[] = [];
  let paragraphStart = -1;
  let paragraphEnd = -1;
  let fence: { marker: string; start: number } | undefined;
  const closeParagraph = (): void => {
    if (paragraphStart >= 0) blocks.push(block(text, 'paragraph', paragraphStart, paragraphEnd));
    paragraphStart = -1;
  };
  let position = 0;
  while (position < text.length) {
    const newline = text.indexOf('\n', position);
    const lineEnd = newline === -1 ? text.length : newline;
    const line = text.slice(position, lineEnd).replace(/\r$/, '');
    const marker = lineMarker(line);
    if (fence) {
      if (marker === '`' || marker === '~') {
        const close = FENCE.exec(line)?.[1] ?? '';
        if (isClosingFence(close, fence.marker, line)) {
          blocks.push(block(text, 'code', fence.start, lineEnd));
          fence = undefined;
        }
      }
    } else if (line.trim() === '') {
      closeParagraph();
      // A form feed (between PDF pages) ends the section: no chunk spans two pages.
      const formFeed = line.indexOf('\f');
      if (formFeed !== -1) {
        const at = position + formFeed;
        blocks.push({ kind: 'page-break', start: at, end: at + 1, level: 0, title: '' });
      }
    } else if (marker === '#' && HEADING.test(line)) {
      closeParagraph();
      const match = HEADING.exec(line)!;
      const title = withoutClosingHashes((match[2] ?? '').trim());
      blocks.push(block(text, 'heading', position, lineEnd, match[1]!.length, title));
    } else if ((marker === '`' || marker === '~') && FENCE.test(line)) {
      closeParagraph();
      fence = { marker: FENCE.exec(line)![1]!, start: position };
    } else {
      if (paragraphStart < 0) paragraphStart = position;
      paragraphEnd = lineEnd;
    }
    position = lineEnd + 1;
  }
  if (fence) blocks.push(block(text, 'code', fence.start, text.length));
  closeParagraph();
  return blocks.filter((item) => item.end > item.start);
}

/** Whether `line`, starting with fence `close`, closes a fence opened with `open`. */
function isClosingFence(close: string, open: string, line: string): boolean {
  return close[0] === open[0] && close.length >= open.length && line.trim() === close;
}

/** The first non-space character of a line, when it may open a heading or a fence. */
function lineMarker(line: string): string {
  const first = line.trimStart()[0];
  return first === '#' || first === '`' || first === '~' ? first : '';
}

/** Groups blocks into sections; headings with no content before the next one share its section. */
export function parseSections(blocks: readonly Block[]): Section[] {
  const sections: Section[] = [];
  const path: { level: number; title: string }[] = [];
  let current: Section | undefined;
  let hasContent = false;
  for (const item of blocks) {
    if (item.kind === 'page-break') {
      // The next content starts a new section under the same headings.
      if (current && hasContent) {
        current = { headingPath: current.headingPath, blocks: [] };
        sections.push(current);
        hasContent = false;
      }
      continue;
    }
    if (item.kind === 'heading') {
      while (path.length > 0 && path[path.length - 1]!.level >= item.level) path.pop();
      path.push({ level: item.level, title: item.title });
      const headingPath = path.map((entry) => entry.title).filter((title) => title !== '');
      if (current && !hasContent) {
        current = { headingPath, blocks: [...current.blocks, item] };
        sections[sections.length - 1] = current;
      } else {
        current = { headingPath, blocks: [item] };
        sections.push(current);
      }
      hasContent = false;
      continue;
    }
    if (!current) {
      current = { headingPath: [], blocks: [] };
      sections.push(current);
    }
    current.blocks.push(item);
    hasContent = true;
  }
  return sections;
}
