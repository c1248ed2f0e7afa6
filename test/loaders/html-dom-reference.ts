/**
 * The HTML loader as it was before it rendered from the parser's events: a DOM built with
 * `DomHandler`, then walked. Kept as the reference the streaming renderer is compared against
 * (`html-stream.test.ts`).
 */
import { DomHandler, Parser } from 'htmlparser2';
import type { ChildNode, Element } from 'domhandler';
import type { MetadataValue } from '../../src/ports/common.js';
import { BLOCK_ELEMENTS } from '../../src/ingest/html.js';
import { tidyText } from '../../src/loaders/text.js';
import { DEFAULT_LOAD_LIMITS, LoadLimitError, type LoadLimits } from '../../src/loaders/limits.js';

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

const HEADING = /^h([1-6])$/;

function isElement(node: ChildNode): node is Element {
  return node.type === 'tag' || node.type === 'script' || node.type === 'style';
}

/** Depth-first search for the first element matching `test`, not descending into dropped ones. */
function find(
  nodes: readonly ChildNode[],
  test: (element: Element) => boolean,
): Element | undefined {
  for (const node of nodes) {
    if (!isElement(node)) continue;
    if (test(node)) return node;
    if (NEVER_TEXT.has(node.name)) continue;
    const found = find(node.children, test);
    if (found) return found;
  }
  return undefined;
}

function findAll(nodes: readonly ChildNode[], test: (element: Element) => boolean): Element[] {
  const found: Element[] = [];
  const visit = (list: readonly ChildNode[]) => {
    for (const node of list) {
      if (!isElement(node)) continue;
      if (test(node)) found.push(node);
      visit(node.children);
    }
  };
  visit(nodes);
  return found;
}

function plainText(nodes: readonly ChildNode[]): string {
  let text = '';
  for (const node of nodes) {
    if (node.type === 'text') text += node.data;
    else if (isElement(node) && !NEVER_TEXT.has(node.name)) text += plainText(node.children);
  }
  return text;
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function isChrome(element: Element, insideArticle: boolean): boolean {
  if (CHROME.has(element.name)) return true;
  if (PAGE_FRAME.has(element.name) && !insideArticle) return true;
  const role = element.attribs.role?.toLowerCase();
  if (role && CHROME_ROLES.has(role)) return true;
  return 'hidden' in element.attribs || element.attribs['aria-hidden'] === 'true';
}

/** The main content: `<main>` or `[role=main]`, else the only `<article>`, else `<body>`. */
function mainContent(nodes: readonly ChildNode[]): readonly ChildNode[] {
  const main = find(nodes, (e) => e.name === 'main' || e.attribs.role?.toLowerCase() === 'main');
  if (main) return [main];
  const articles = findAll(nodes, (e) => e.name === 'article');
  if (articles.length === 1) return articles;
  const body = find(nodes, (e) => e.name === 'body');
  return body ? body.children : nodes;
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

/** Renders elements as markdown-like text; the state tracks lists and article nesting. */
class Renderer {
  private readonly out = new TextBuffer();

  render(nodes: readonly ChildNode[], insideArticle: boolean, listDepth: number): void {
    for (const node of nodes) {
      if (node.type === 'text') {
        this.inline(node.data);
        continue;
      }
      if (!isElement(node) || NEVER_TEXT.has(node.name)) continue;
      if (isChrome(node, insideArticle)) continue;
      this.element(
        node,
        insideArticle || node.name === 'article' || node.name === 'main',
        listDepth,
      );
    }
  }

  private element(element: Element, insideArticle: boolean, listDepth: number): void {
    const { name } = element;
    const heading = HEADING.exec(name);
    if (heading) {
      const title = collapse(plainText(element.children));
      if (title) this.block(`${'#'.repeat(Number(heading[1]))} ${title}`);
      return;
    }
    if (name === 'pre') {
      const code = plainText(element.children).replace(/^\n/, '').trimEnd();
      if (code) this.block(`\`\`\`\n${code}\n\`\`\``);
      return;
    }
    if (name === 'br') {
      this.out.trimSpaces();
      this.out.append('\n');
      return;
    }
    if (name === 'li') {
      this.lineBreak();
      this.out.append(`${'  '.repeat(Math.max(0, listDepth - 1))}- `);
      this.render(element.children, insideArticle, listDepth);
      this.lineBreak();
      return;
    }
    if (name === 'ul' || name === 'ol') {
      this.paragraphBreak(listDepth === 0);
      this.render(element.children, insideArticle, listDepth + 1);
      this.paragraphBreak(listDepth === 0);
      return;
    }
    if (name === 'td' || name === 'th') {
      if (!this.out.empty && !this.out.tail(1).endsWith('\n')) {
        this.out.trimSpaces();
        this.out.append(' | ');
      }
      this.render(element.children, insideArticle, listDepth);
      return;
    }
    if (name === 'tr') {
      this.lineBreak();
      this.render(element.children, insideArticle, listDepth);
      this.lineBreak();
      return;
    }
    if (name === 'img') {
      const alt = element.attribs.alt?.trim();
      if (alt) this.inline(` ${alt} `);
      return;
    }
    const block = BLOCK_ELEMENTS.has(name);
    if (block) this.paragraphBreak(listDepth === 0);
    this.render(element.children, insideArticle, listDepth);
    if (block) this.paragraphBreak(listDepth === 0);
  }

  private inline(text: string): void {
    const collapsed = text.replace(/\s+/g, ' ');
    const last = this.out.tail(1);
    if ((last === '' || last === '\n' || last === ' ') && collapsed.startsWith(' ')) {
      this.out.append(collapsed.slice(1));
    } else {
      this.out.append(collapsed);
    }
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

function renderText(nodes: readonly ChildNode[]): string {
  const renderer = new Renderer();
  renderer.render(nodes, false, 0);
  return renderer.text();
}

/**
 * A DOM builder that stops the parser at the limits, while it parses: an element nested deeper
 * than `maxNesting` (the parser's own cost per tag grows with the depth), or more block elements
 * than `maxParagraphs`, throws `LoadLimitError`. The DOM it builds is never deeper than the
 * limit, so walking it recursively is safe.
 */
class BoundedHandler extends DomHandler {
  private depth = 0;
  private blocks = 0;

  constructor(private readonly limits: Pick<LoadLimits, 'maxNesting' | 'maxParagraphs'>) {
    super(undefined, {});
  }

  override onopentag(name: string, attribs: Record<string, string>): void {
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
    super.onopentag(name, attribs);
  }

  override onclosetag(): void {
    this.depth--;
    super.onclosetag();
  }
}

/** Parses HTML into a DOM within the limits (see `BoundedHandler`). */
function parseBounded(
  html: string,
  limits: Pick<LoadLimits, 'maxNesting' | 'maxParagraphs'>,
): ChildNode[] {
  const handler = new BoundedHandler(limits);
  new Parser(handler, { decodeEntities: true }).end(html);
  return handler.root.children;
}

/**
 * An HTML page's main content as text, with its title and metadata. A page past `limits`
 * (nesting, block elements) throws `LoadLimitError`.
 */
export function parseHtml(
  html: string,
  limits: Pick<LoadLimits, 'maxNesting' | 'maxParagraphs'> = DEFAULT_LOAD_LIMITS,
): HtmlContent {
  const nodes = parseBounded(html, limits);
  const content = mainContent(nodes);
  const text = renderText(content);
  const h1 = find(content, (e) => e.name === 'h1');
  const titleElement = find(nodes, (e) => e.name === 'title');
  const title =
    (h1 && collapse(plainText(h1.children))) ||
    (titleElement && collapse(plainText(titleElement.children))) ||
    undefined;
  const metadata: Record<string, MetadataValue> = {};
  const lang = find(nodes, (e) => e.name === 'html')?.attribs.lang?.trim();
  if (lang) metadata.lang = lang;
  for (const meta of findAll(nodes, (e) => e.name === 'meta')) {
    const name = meta.attribs.name?.toLowerCase();
    const value = meta.attribs.content?.trim();
    if (value && (name === 'description' || name === 'author' || name === 'keywords')) {
      metadata[name] = value;
    }
  }
  return { text, title, metadata };
}

/** Text of an HTML fragment (raw HTML inside markdown): tags removed, entities decoded. */
export function htmlFragmentText(html: string): string {
  return renderText(parseBounded(html, DEFAULT_LOAD_LIMITS));
}
