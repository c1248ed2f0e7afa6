import { Parser, type Handler } from 'htmlparser2';
import type { MetadataValue } from '../ports/common.js';
import { BLOCK_ELEMENTS } from '../ingest/html.js';
import { escapeHeadingLines } from '../ingest/chunk-structure.js';
import { tidyText } from './text.js';
import { DEFAULT_LOAD_LIMITS, LoadLimitError, type LoadLimits } from './limits.js';

/** A parsed HTML page. */
export interface HtmlContent {
  /** The main content as text: headings as `#` lines, list items as `- ` lines, `pre` fenced. */
  readonly text: string;
  /** The first `h1` of the main content, else `<title>`. */
  readonly title: string | undefined;
  /** `lang`, `description`, `author` and `keywords` of the page, when present. */
  readonly metadata: Record<string, MetadataValue>;
}

/** Elements whose content is never text. */
const NEVER_TEXT = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'head',
  'svg',
  'math',
  'iframe',
  'object',
  'canvas',
  'select',
  'button',
  'input',
  'textarea',
  'dialog',
]);

/** Page chrome: navigation, asides and (outside an article) page headers and footers. */
const CHROME = new Set(['nav', 'aside']);
const PAGE_FRAME = new Set(['header', 'footer']);
const CHROME_ROLES = new Set(['navigation', 'banner', 'contentinfo', 'complementary', 'search']);

/** The heading level of `h1`–`h6`, else 0. */
function headingLevel(name: string): number {
  if (name.length !== 2 || name[0] !== 'h') return 0;
  const level = name.charCodeAt(1) - 48;
  return level >= 1 && level <= 6 ? level : 0;
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function isChrome(name: string, attribs: Record<string, string>, insideArticle: boolean): boolean {
  if (CHROME.has(name)) return true;
  if (PAGE_FRAME.has(name) && !insideArticle) return true;
  const role = attribs.role?.toLowerCase();
  if (role && CHROME_ROLES.has(role)) return true;
  return 'hidden' in attribs || attribs['aria-hidden'] === 'true';
}

/**
 * The renderer's output: parts joined once at the end, so that each step costs the size of what
 * it adds, not of everything written so far (a page of 20,000 paragraphs is linear).
 */
class TextBuffer {
  private readonly parts: string[] = [];

  get empty(): boolean {
    return this.parts.length === 0;
  }

  append(text: string): void {
    if (text !== '') this.parts.push(text);
  }

  /** Removes trailing spaces (not other whitespace). */
  trimSpaces(): void {
    while (this.parts.length > 0) {
      const last = this.parts[this.parts.length - 1]!;
      let end = last.length;
      while (end > 0 && last.charCodeAt(end - 1) === 32) end--;
      if (end === last.length) return;
      if (end > 0) {
        this.parts[this.parts.length - 1] = last.slice(0, end);
        return;
      }
      this.parts.pop();
    }
  }

  /** The last `count` characters (fewer when there are fewer). */
  tail(count: number): string {
    let tail = '';
    for (let index = this.parts.length - 1; index >= 0 && tail.length < count; index--) {
      tail = this.parts[index]! + tail;
    }
    return tail.slice(-count);
  }

  toString(): string {
    return this.parts.join('');
  }
}

/** What an element does when it closes (see `StreamRenderer`). */
const NONE = 0;
const BLOCK = 1;
const ITEM = 2;
const LIST = 3;
const ROW = 4;

/** Text collected for a heading or `pre` (`level` 0), or for the title `h1`. */
interface Capture {
  /** Depth of the element collected. */
  readonly from: number;
  readonly level: number;
  readonly parts: string[];
}

/** The element whose content is the page's main content, by the order elements open in. */
interface Region {
  /** The element, counted from 1 in the order start tags come. */
  readonly ordinal: number;
  /** Render the element itself (`main`, `article`), or only its children (`body`). */
  readonly self: boolean;
}

/**
 * Renders HTML as markdown-like text from the parser's events, without a DOM: a stack of what
 * each open element does when it closes, the text written once. Only `region` is rendered
 * (the whole page when undefined). Headings as `#` lines, list items as `- ` lines, table
 * rows as lines of cells, `pre` fenced; scripts, forms and page chrome dropped.
 */
class StreamRenderer implements Partial<Handler> {
  private readonly out = new TextBuffer();
  private readonly kinds: number[] = [];
  /** For each open element: whether its children are inside an article (or `main`). */
  private readonly insideArticle: boolean[] = [];
  private ordinal = 0;
  private inRegion: boolean;
  private regionDepth = 0;
  /** Depth of the dropped element being skipped, else 0. */
  private skipFrom = 0;
  /** Depth of the element whose content is never text (in the region), else 0. */
  private neverTextFrom = 0;
  private listDepth = 0;
  private capture: Capture | undefined;
  private h1: Capture | undefined;
  private h1Seen = false;
  /** The text of the region's first `h1`, collapsed. */
  h1Text: string | undefined;

  constructor(private readonly region: Region | undefined) {
    this.inRegion = region === undefined;
  }

  onopentag(name: string, attribs: Record<string, string>): void {
    const parentArticle = this.insideArticle[this.insideArticle.length - 1] ?? false;
    const depth = this.kinds.length + 1;
    const enters = this.region !== undefined && ++this.ordinal === this.region.ordinal;
    if (enters && this.region?.self === true) this.enter(depth);
    let kind = NONE;
    let childArticle = parentArticle;
    if (this.inRegion) {
      if (!this.h1Seen && name === 'h1' && this.neverTextFrom === 0) {
        this.h1Seen = true;
        this.h1 = { from: depth, level: 1, parts: [] };
      }
      if (this.skipFrom === 0 && this.capture === undefined) {
        if (NEVER_TEXT.has(name) || isChrome(name, attribs, parentArticle)) {
          this.skipFrom = depth;
        } else {
          kind = this.open(name, attribs, depth);
          childArticle = parentArticle || name === 'article' || name === 'main';
        }
      }
      if (this.neverTextFrom === 0 && NEVER_TEXT.has(name)) this.neverTextFrom = depth;
    }
    this.kinds.push(kind);
    this.insideArticle.push(childArticle);
    if (enters && this.region?.self === false) this.enter(depth);
  }

  private enter(depth: number): void {
    this.inRegion = true;
    this.regionDepth = depth;
  }

  /** Opens a rendered element; returns what its close does. */
  private open(name: string, attribs: Record<string, string>, depth: number): number {
    const level = headingLevel(name);
    if (level > 0 || name === 'pre') {
      this.capture = { from: depth, level, parts: [] };
      return NONE;
    }
    switch (name) {
      case 'br':
        this.out.trimSpaces();
        this.out.append('\n');
        return NONE;
      case 'li':
        this.lineBreak();
        this.out.append(`${'  '.repeat(Math.max(0, this.listDepth - 1))}- `);
        return ITEM;
      case 'ul':
      case 'ol':
        this.paragraphBreak(this.listDepth === 0);
        this.listDepth++;
        return LIST;
      case 'td':
      case 'th':
        if (!this.out.empty && !this.out.tail(1).endsWith('\n')) {
          this.out.trimSpaces();
          this.out.append(' | ');
        }
        return NONE;
      case 'tr':
        this.lineBreak();
        return ROW;
      case 'img': {
        const alt = attribs.alt?.trim();
        if (alt) this.inline(` ${alt} `);
        return NONE;
      }
      default:
        break;
    }
    if (!BLOCK_ELEMENTS.has(name)) return NONE;
    this.paragraphBreak(this.listDepth === 0);
    return BLOCK;
  }

  ontext(data: string): void {
    if (!this.inRegion) return;
    if (this.neverTextFrom === 0) {
      this.h1?.parts.push(data);
      this.capture?.parts.push(data);
    }
    if (this.skipFrom === 0 && this.capture === undefined) this.inline(data);
  }

  onclosetag(): void {
    const depth = this.kinds.length;
    if (depth === 0) return;
    const kind = this.kinds.pop()!;
    this.insideArticle.pop();
    if (!this.inRegion) return;
    if (this.h1?.from === depth) {
      this.h1Text = collapse(this.h1.parts.join(''));
      this.h1 = undefined;
    }
    if (this.capture?.from === depth) this.endCapture(this.capture);
    if (this.skipFrom === depth) this.skipFrom = 0;
    if (this.neverTextFrom === depth) this.neverTextFrom = 0;
    if (kind === ITEM || kind === ROW) {
      this.lineBreak();
    } else if (kind === LIST) {
      this.listDepth--;
      this.paragraphBreak(this.listDepth === 0);
    } else if (kind === BLOCK) {
      this.paragraphBreak(this.listDepth === 0);
    }
    if (this.region !== undefined && depth === this.regionDepth) this.inRegion = false;
  }

  private endCapture(capture: Capture): void {
    this.capture = undefined;
    const text = capture.parts.join('');
    if (capture.level > 0) {
      const title = collapse(text);
      if (title) this.block(`${'#'.repeat(capture.level)} ${title}`);
      return;
    }
    const code = (text.startsWith('\n') ? text.slice(1) : text).trimEnd();
    if (code) this.block(`\`\`\`\n${code}\n\`\`\``);
  }

  private inline(text: string): void {
    const collapsed = text.replace(/\s+/g, ' ');
    const last = this.out.tail(1);
    const lineStart = last === '' || last === '\n';
    const trimmed =
      (lineStart || last === ' ') && collapsed.startsWith(' ') ? collapsed.slice(1) : collapsed;
    // Text that opens a line is never a heading (a first table cell `#`, a paragraph `# 1`).
    this.out.append(lineStart ? escapeHeadingLines(trimmed) : trimmed);
  }

  private lineBreak(): void {
    this.out.trimSpaces();
    if (!this.out.empty && this.out.tail(1) !== '\n') this.out.append('\n');
  }

  private paragraphBreak(blank: boolean): void {
    this.lineBreak();
    if (blank && !this.out.empty && this.out.tail(2) !== '\n\n') this.out.append('\n');
  }

  private block(text: string): void {
    this.paragraphBreak(true);
    this.out.append(text);
    this.paragraphBreak(true);
  }

  text(): string {
    return tidyText(this.out.toString());
  }
}

/** What the first pass over a page finds: where its main content is, its title and metadata. */
class PageSurvey implements Partial<Handler> {
  private depth = 0;
  private blocks = 0;
  private ordinal = 0;
  /** Depth of an element whose content is never text, else 0 (`head` aside, for `<title>`). */
  private neverTextFrom = 0;
  private headFrom = 0;
  private titleFrom = 0;
  private readonly titleParts: string[] = [];
  main: number | undefined;
  body: number | undefined;
  firstArticle: number | undefined;
  articles = 0;
  title: string | undefined;
  lang: string | undefined;
  htmlSeen = false;
  readonly metadata: Record<string, MetadataValue> = {};

  constructor(private readonly limits: Pick<LoadLimits, 'maxNesting' | 'maxParagraphs'>) {}

  onopentag(name: string, attribs: Record<string, string>): void {
    if (++this.depth > this.limits.maxNesting) {
      throw new LoadLimitError(
        'maxNesting',
        `elements nested more than maxNesting (${this.limits.maxNesting}) deep`,
      );
    }
    if (BLOCK_ELEMENTS.has(name) && ++this.blocks > this.limits.maxParagraphs) {
      throw new LoadLimitError(
        'maxParagraphs',
        `more than maxParagraphs (${this.limits.maxParagraphs}) block elements`,
      );
    }
    const ordinal = ++this.ordinal;
    const visible = this.neverTextFrom === 0;
    if (visible && this.main === undefined) {
      if (name === 'main' || attribs.role?.toLowerCase() === 'main') this.main = ordinal;
    }
    if (name === 'article' && this.articles++ === 0) this.firstArticle = ordinal;
    if (visible && name === 'body') this.body ??= ordinal;
    if (visible && name === 'html' && !this.htmlSeen) {
      this.htmlSeen = true;
      this.lang = attribs.lang?.trim() || undefined;
    }
    if (name === 'meta') {
      const key = attribs.name?.toLowerCase();
      const value = attribs.content?.trim();
      if (value && (key === 'description' || key === 'author' || key === 'keywords')) {
        this.metadata[key] = value;
      }
    }
    // A page's <title> is inside <head>, whose content is otherwise never text.
    const titleVisible = visible || (this.neverTextFrom === this.headFrom && this.headFrom !== 0);
    if (name === 'title' && this.title === undefined && this.titleFrom === 0 && titleVisible) {
      this.titleFrom = this.depth;
    }
    if (this.neverTextFrom === 0 && NEVER_TEXT.has(name)) {
      this.neverTextFrom = this.depth;
      if (name === 'head') this.headFrom = this.depth;
    }
  }

  ontext(data: string): void {
    if (this.titleFrom !== 0) this.titleParts.push(data);
  }

  onclosetag(): void {
    const depth = this.depth--;
    if (depth === this.titleFrom) {
      this.titleFrom = 0;
      this.title = collapse(this.titleParts.join(''));
    }
    if (depth === this.neverTextFrom) {
      this.neverTextFrom = 0;
      this.headFrom = 0;
    }
  }

  /** The main content: `<main>` or `[role=main]`, else the only `<article>`, else `<body>`. */
  region(): Region | undefined {
    if (this.main !== undefined) return { ordinal: this.main, self: true };
    if (this.articles === 1) return { ordinal: this.firstArticle!, self: true };
    if (this.body !== undefined) return { ordinal: this.body, self: false };
    return undefined;
  }
}

function parse(html: string, handler: Partial<Handler>): void {
  new Parser(handler, { decodeEntities: true }).end(html);
}

/**
 * An HTML page's main content as text, with its title and metadata. Two passes of the parser's
 * events, no DOM (memory is the page and its text): the first finds the main content, title
 * and metadata and stops at `limits` (nesting, block elements: `LoadLimitError`), the second
 * renders the main content.
 */
export function parseHtml(
  html: string,
  limits: Pick<LoadLimits, 'maxNesting' | 'maxParagraphs'> = DEFAULT_LOAD_LIMITS,
): HtmlContent {
  const survey = new PageSurvey(limits);
  parse(html, survey);
  const renderer = new StreamRenderer(survey.region());
  parse(html, renderer);
  const metadata: Record<string, MetadataValue> = {};
  if (survey.lang) metadata.lang = survey.lang;
  Object.assign(metadata, survey.metadata);
  const title = renderer.h1Text || survey.title || undefined;
  return { text: renderer.text(), title, metadata };
}

/** Text of an HTML fragment (raw HTML inside markdown): tags removed, entities decoded. */
export function htmlFragmentText(html: string): string {
  // Within the default limits (the parser's cost per tag grows with the depth).
  parse(html, new PageSurvey(DEFAULT_LOAD_LIMITS));
  const renderer = new StreamRenderer(undefined);
  parse(html, renderer);
  return renderer.text();
}
