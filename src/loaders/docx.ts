import type { LibrarySource } from '../util/optional-import.js';
import { parseHtml, type HtmlContent } from './html.js';
import {
  DEFAULT_LOAD_LIMITS,
  LoadLimitError,
  type ExpansionLimits,
  type LoadLimits,
} from './limits.js';
import { escapeHeadingLines } from '../ingest/chunk-structure.js';
import { tidyText } from './text.js';
import { checkZip } from './zip-check.js';
import { attributeMap, attributeValue, decodeXmlEntities, scanXml } from './xml-scan.js';
import {
  outlineHeading,
  qualified,
  readStyles,
  styleRole,
  wordPrefix,
  type StyleTable,
} from './docx-styles.js';

/** The part of `mammoth` the DOCX loader uses when a caller injects it. */
export interface MammothLibrary {
  /** Converts a DOCX file to HTML. */
  convertToHtml(
    input: { buffer: Buffer },
    options?: { styleMap?: string[] },
  ): Promise<{ value: string; messages: unknown[] }>;
}

/** Word styles that mammoth does not map by itself. */
const STYLE_MAP = ["p[style-name='Title'] => h1:fresh", "p[style-name='Subtitle'] => h2:fresh"];

const DOCUMENT = 'word/document.xml';
const STYLES = 'word/styles.xml';

/** Elements whose content is never the document's text (tracked deletions, old properties, fallbacks). */
const SKIPPED = new Set(['del', 'moveFrom', 'pPrChange', 'rPrChange', 'instrText', 'delText']);

/** One paragraph being read. */
interface Paragraph {
  style: string | undefined;
  outline: string | undefined;
  numbered: boolean;
  level: number;
  readonly parts: string[];
}

/** A table being read: its finished rows, the row's cells and the cell's paragraphs. */
interface Table {
  readonly rows: string[][];
  cells: string[];
  cell: string[];
}

/** A block of the output: a paragraph, a heading, a list item or a table. */
interface Block {
  readonly text: string;
  readonly list: boolean;
}

/** Text with runs of spaces collapsed to one and the ends trimmed (loops: linear). */
function collapseSpaces(text: string): string {
  let double = text.indexOf('  ');
  if (double === -1) return text.trim();
  let out = '';
  let from = 0;
  while (double !== -1) {
    let end = double + 2;
    while (text.charCodeAt(end) === 32) end++;
    out += text.slice(from, double + 1);
    from = end;
    double = text.indexOf('  ', end);
  }
  return (out + text.slice(from)).trim();
}

/** Spaces for tabs and line breaks (a heading or a table cell is one line). */
function oneLine(text: string): string {
  let out = text;
  for (const char of ['\n', '\t', '\r']) if (out.includes(char)) out = out.split(char).join(' ');
  return out;
}

/** A table cell's text: `|` escaped, on one line. */
function cellText(text: string): string {
  return collapseSpaces(oneLine(text)).split('|').join('\\|');
}

/**
 * Reads `word/document.xml` from XML events (`scanXml`) into blocks: headings (`Title`,
 * `Subtitle`, `heading 1`–`6` styles, or an outline level) as `#` lines, numbered paragraphs as
 * `- ` lines (indented by level), tables as `| a | b |` rows, other paragraphs as they are.
 * Runs are joined; `w:tab` is a tab, `w:br` and `w:cr` a line break. Work is linear in the
 * XML; past `maxParagraphs` paragraphs or `maxNesting` deep it throws `LoadLimitError`.
 */
class DocumentReader {
  private w = 'w';
  private depth = 0;
  private paragraphCount = 0;
  /** Depth of the element that started skipping (0: not skipping). */
  private skipFrom = 0;
  private readonly paragraphs: Paragraph[] = [];
  private readonly tables: Table[] = [];
  private inText = false;
  private runs = 0;
  private pPr = 0;
  readonly blocks: Block[] = [];
  title: string | undefined;

  constructor(
    private readonly styles: StyleTable,
    private readonly limits: Pick<LoadLimits, 'maxNesting' | 'maxParagraphs'>,
  ) {}

  /** Local names of WordprocessingML elements by qualified name (others: `''`). */
  private readonly locals = new Map<string, string>();

  private local(name: string): string {
    let local = this.locals.get(name);
    if (local === undefined) {
      const colon = name.indexOf(':');
      const prefix = colon === -1 ? '' : name.slice(0, colon);
      local = prefix === this.w ? name.slice(colon + 1) : '';
      this.locals.set(name, local);
    }
    return local;
  }

  open(name: string, attributes: () => string): void {
    if (++this.depth > this.limits.maxNesting) {
      throw new LoadLimitError(
        'maxNesting',
        `elements nested more than maxNesting (${this.limits.maxNesting}) deep`,
      );
    }
    if (this.depth === 1) this.w = wordPrefix(attributeMap(attributes()));
    if (this.skipFrom !== 0) return;
    // Markup compatibility: the choice is read, its fallback (the same content again) is not.
    if (name === 'mc:Fallback') {
      this.skipFrom = this.depth;
      return;
    }
    const local = this.local(name);
    if (local === '') return;
    if (SKIPPED.has(local)) {
      this.skipFrom = this.depth;
      return;
    }
    const paragraph = this.paragraphs[this.paragraphs.length - 1];
    switch (local) {
      case 'p':
        if (++this.paragraphCount > this.limits.maxParagraphs) {
          throw new LoadLimitError(
            'maxParagraphs',
            `more than maxParagraphs (${this.limits.maxParagraphs}) paragraphs`,
          );
        }
        this.paragraphs.push({
          style: undefined,
          outline: undefined,
          numbered: false,
          level: 0,
          parts: [],
        });
        return;
      case 'pPr':
        this.pPr++;
        return;
      case 'r':
        this.runs++;
        return;
      case 't':
        this.inText = this.runs > 0;
        return;
      case 'tbl':
        this.tables.push({ rows: [], cells: [], cell: [] });
        return;
      default:
        break;
    }
    if (paragraph === undefined) return;
    if (this.pPr > 0) {
      const value = () => attributeValue(attributes(), qualified(this.w, 'val'));
      if (local === 'pStyle') paragraph.style = value();
      else if (local === 'outlineLvl') paragraph.outline = value();
      else if (local === 'numPr') paragraph.numbered = true;
      else if (local === 'ilvl') {
        paragraph.level = Math.min(8, Number.parseInt(value() ?? '', 10) || 0);
      }
      return;
    }
    if (this.runs === 0) return;
    if (local === 'tab') paragraph.parts.push('\t');
    else if (local === 'br' || local === 'cr') paragraph.parts.push('\n');
    else if (local === 'noBreakHyphen') paragraph.parts.push('-');
  }

  text(raw: string, cdata: boolean): void {
    if (!this.inText || this.skipFrom !== 0) return;
    this.paragraphs[this.paragraphs.length - 1]?.parts.push(cdata ? raw : decodeXmlEntities(raw));
  }

  close(name: string): void {
    if (this.depth === 0) return; // an end tag without its start
    const depth = this.depth--;
    if (this.skipFrom !== 0) {
      if (depth === this.skipFrom) this.skipFrom = 0;
      return;
    }
    switch (this.local(name)) {
      case 't':
        this.inText = false;
        return;
      case 'r':
        this.runs = Math.max(0, this.runs - 1);
        return;
      case 'pPr':
        this.pPr = Math.max(0, this.pPr - 1);
        return;
      case 'p':
        this.endParagraph();
        return;
      case 'tc':
        this.endCell();
        return;
      case 'tr':
        this.endRow();
        return;
      case 'tbl':
        this.endTable();
        return;
      default:
        return;
    }
  }

  private endParagraph(): void {
    const paragraph = this.paragraphs.pop();
    if (paragraph === undefined) return;
    const text = collapseSpaces(paragraph.parts.join('')).trim();
    if (text === '') return;
    const table = this.tables[this.tables.length - 1];
    if (table !== undefined) {
      table.cell.push(text);
      return;
    }
    const role =
      paragraph.style === undefined
        ? { heading: undefined, numbered: false }
        : styleRole(this.styles, paragraph.style);
    const heading = outlineHeading(paragraph.outline) ?? role.heading;
    if (heading !== undefined) {
      const title = collapseSpaces(oneLine(text)).trim();
      if (heading === 1) this.title ??= title;
      this.blocks.push({ text: `${'#'.repeat(heading)} ${title}`, list: false });
    } else if (paragraph.numbered || role.numbered) {
      this.blocks.push({ text: `${'  '.repeat(paragraph.level)}- ${text}`, list: true });
    } else {
      this.blocks.push({ text: escapeHeadingLines(text), list: false });
    }
  }

  private endCell(): void {
    const table = this.tables[this.tables.length - 1];
    if (table === undefined) return;
    table.cells.push(cellText(table.cell.join(' ')));
    table.cell = [];
  }

  private endRow(): void {
    const table = this.tables[this.tables.length - 1];
    if (table === undefined) return;
    if (table.cells.some((cell) => cell !== '')) table.rows.push(table.cells);
    table.cells = [];
  }

  private endTable(): void {
    const table = this.tables.pop();
    if (table === undefined || table.rows.length === 0) return;
    const outer = this.tables[this.tables.length - 1];
    // A table inside a cell: its cells' text becomes that cell's text.
    if (outer !== undefined) outer.cell.push(table.rows.map((row) => row.join(' ')).join(' '));
    else {
      const rows = table.rows.map((row) => `| ${row.join(' | ')} |`);
      this.blocks.push({ text: rows.join('\n'), list: false });
    }
  }
}

/** Blocks as text: list items on consecutive lines, other blocks apart by a blank line. */
function joinBlocks(blocks: readonly Block[]): string {
  let text = '';
  let previous: Block | undefined;
  for (const block of blocks) {
    if (previous !== undefined) text += previous.list && block.list ? '\n' : '\n\n';
    // A block is trimmed and one line unless it holds line breaks: only those need tidying
    // (tidying the whole text again cost a tenth of the read).
    text += block.text.includes('\n') ? tidyText(block.text) : block.text;
    previous = block;
  }
  return text.trim();
}

/** An XML part's text (UTF-8, a byte-order mark dropped). */
function utf8(bytes: Buffer): string {
  return new TextDecoder('utf-8').decode(bytes);
}

/** The text of a DOCX file read by our own reader (see `DocumentReader`). */
export function readDocx(
  bytes: Uint8Array,
  limits: Pick<LoadLimits, 'maxParagraphs' | 'maxNesting'> & ExpansionLimits = DEFAULT_LOAD_LIMITS,
): HtmlContent {
  const { parts } = checkZip(bytes, limits, new Set([DOCUMENT, STYLES]));
  const document = parts.get(DOCUMENT);
  if (document === undefined) throw new Error(`not a DOCX file (no ${DOCUMENT})`);
  const stylesXml = parts.get(STYLES);
  const styles = stylesXml === undefined ? new Map() : readStyles(utf8(stylesXml));
  const reader = new DocumentReader(styles, limits);
  scanXml(utf8(document), reader);
  return { text: joinBlocks(reader.blocks), title: reader.title, metadata: {} };
}

/**
 * A DOCX file's text: headings as `#` lines, list items as `- ` lines, tables as `| a | b |`
 * rows, read by cortexis's own streaming reader (linear in the file). The archive is inflated
 * within `limits.maxExpandedBytes` and `limits.maxExpansionRatio`; a file past a limit throws `LoadLimitError`. With
 * `library` (a `mammoth` module, or a function loading it), mammoth converts the file instead
 * and its HTML is rendered like an HTML page (the loader's only way before; slower).
 */
export async function parseDocx(
  bytes: Uint8Array,
  options: {
    readonly library?: LibrarySource<MammothLibrary> | undefined;
    readonly limits?: LoadLimits | undefined;
  } = {},
): Promise<HtmlContent> {
  const limits = options.limits ?? DEFAULT_LOAD_LIMITS;
  const { library } = options;
  if (library == null) return readDocx(bytes, limits);
  const mammoth =
    typeof library === 'function' ? await (library as () => Promise<MammothLibrary>)() : library;
  checkZip(bytes, limits);
  const { value } = await mammoth.convertToHtml(
    { buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) },
    { styleMap: [...STYLE_MAP] },
  );
  return parseHtml(`<body>${value}</body>`, limits);
}
