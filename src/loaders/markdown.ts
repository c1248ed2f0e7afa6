import { Lexer, type Token, type Tokens } from 'marked';
import { parse as parseYaml } from 'yaml';
import type { MetadataValue } from '../ports/common.js';
import { escapeHeadingLines } from '../ingest/chunk-structure.js';
import { RESERVED_METADATA_KEYS, firstHeading, tidyText } from './text.js';
import { htmlFragmentText } from './html.js';
import { DEFAULT_LOAD_LIMITS, LoadLimitError, type LoadLimits } from './limits.js';
import { parseFlatFrontMatter } from './front-matter-flat.js';

/** A parsed markdown file. */
export interface MarkdownContent {
  /** The text without markup: headings kept as `#` lines, code fences kept, inline markup removed. */
  readonly text: string;
  /** `title` from the front matter, else the first heading. */
  readonly title: string | undefined;
  /** The other front matter fields, as metadata values. */
  readonly metadata: Record<string, MetadataValue>;
}

const FRONT_MATTER = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/;

/** Thrown for front matter that is not a YAML mapping. */
export class FrontMatterError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'FrontMatterError';
  }
}

/** Top-level keys of a YAML block mapping: lines that start with neither space, `#` nor `-`. */
function countBlockKeys(yaml: string, stopAfter: number): number {
  let count = 0;
  for (let start = 0; start < yaml.length && count <= stopAfter;) {
    let end = yaml.indexOf('\n', start);
    if (end === -1) end = yaml.length;
    const first = yaml.charCodeAt(start);
    // space, tab, #, -, newline, carriage return
    if (end > start && ![32, 9, 35, 45, 10, 13].includes(first)) {
      const colon = yaml.indexOf(':', start);
      if (colon !== -1 && colon < end) count++;
    }
    start = end + 1;
  }
  return count;
}

function tooManyKeys(count: number, limit: number): LoadLimitError {
  return new LoadLimitError(
    'maxFrontMatterKeys',
    `front matter has ${count} keys, more than maxFrontMatterKeys (${limit})`,
  );
}

/**
 * Splits YAML front matter (between `---` lines at the very start) from the body. Front matter
 * with more keys than `limits.maxFrontMatterKeys` throws `LoadLimitError`, counted before the
 * YAML is parsed; a repeated key keeps its last value.
 */
export function splitFrontMatter(
  source: string,
  limits: Pick<LoadLimits, 'maxFrontMatterKeys'> = DEFAULT_LOAD_LIMITS,
): {
  data: Record<string, unknown>;
  body: string;
} {
  const match = FRONT_MATTER.exec(source);
  if (!match) return { data: {}, body: source.replace(/^\uFEFF/, '') };
  const limit = limits.maxFrontMatterKeys;
  const lines = countBlockKeys(match[1]!, limit);
  if (lines > limit) throw tooManyKeys(lines, limit);
  // `key: value` lines are read directly (the same result, without the YAML parser's cost).
  let data: unknown = parseFlatFrontMatter(match[1]!);
  if (data === undefined) {
    try {
      // uniqueKeys: the check for repeated keys is quadratic in the number of keys.
      data = parseYaml(match[1]!, { uniqueKeys: false });
    } catch (error) {
      throw new FrontMatterError(`invalid YAML front matter: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
  if (data !== null && data !== undefined && (typeof data !== 'object' || Array.isArray(data))) {
    throw new FrontMatterError('front matter must be a YAML mapping of keys to values');
  }
  // A flow mapping (`{a: 1, b: 2, …}`) has its keys on one line.
  const keys = data ? Object.keys(data).length : 0;
  if (keys > limit) throw tooManyKeys(keys, limit);
  return { data: (data ?? {}) as Record<string, unknown>, body: source.slice(match[0].length) };
}

/** A front matter value as a metadata value: lists joined with `, `, dates as ISO strings. */
function metadataValue(value: unknown): MetadataValue | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (Array.isArray(value)) {
    const items = value.map(metadataValue).filter((item) => item !== undefined && item !== null);
    return items.join(', ');
  }
  if (typeof value === 'object') return JSON.stringify(value);
  return undefined;
}

/** Front matter as document metadata; reserved keys are left out (`title` becomes the title). */
export function frontMatterMetadata(data: Record<string, unknown>): Record<string, MetadataValue> {
  const metadata: Record<string, MetadataValue> = {};
  for (const [key, value] of Object.entries(data)) {
    if (RESERVED_METADATA_KEYS.has(key)) continue;
    const converted = metadataValue(value);
    if (converted !== undefined) metadata[key] = converted;
  }
  return metadata;
}

/** Markdown with front matter → plain text that keeps headings, lists and code fences. */
export function parseMarkdown(
  source: string,
  limits: LoadLimits = DEFAULT_LOAD_LIMITS,
): MarkdownContent {
  const { data, body } = splitFrontMatter(source, limits);
  const tokens = boundedLexer().lex(body);
  if (tokens.length > limits.maxParagraphs) {
    throw new LoadLimitError(
      'maxParagraphs',
      `${tokens.length} blocks, more than maxParagraphs (${limits.maxParagraphs})`,
    );
  }
  const text = tidyText(blocksText(tokens, ''));
  const declared = typeof data.title === 'string' ? data.title.trim() : undefined;
  return {
    text,
    title: declared || firstHeading(text),
    metadata: frontMatterMetadata(data),
  };
}

/**
 * A GFM lexer whose inline text rule looks ahead for an e-mail address's `@` over at most 64
 * characters (the longest local part an address may have). marked's own rule looks over the whole
 * run, from every character of it: 20,000 `!` took seconds, quadratic (issue 28). The rules are
 * copied, never changed for other users of marked.
 */
function boundedLexer(): Lexer {
  const lexer = new Lexer({ gfm: true });
  const { tokenizer } = lexer as unknown as {
    tokenizer: { rules: { inline: Record<string, unknown> } };
  };
  const { rules } = tokenizer;
  const text = rules.inline['text'];
  if (text instanceof RegExp) {
    const bounded = new RegExp(text.source.replaceAll(']+@)', ']{1,64}@)'), text.flags);
    tokenizer.rules = { ...rules, inline: { ...rules.inline, text: bounded } };
  }
  return lexer;
}

function blocksText(tokens: readonly Token[], indent: string): string {
  const parts: string[] = [];
  for (const token of tokens) {
    const part = blockText(token as Tokens.Generic, indent);
    if (part.trim() !== '') parts.push(part);
  }
  return parts.join('\n\n');
}

function blockText(token: Tokens.Generic, indent: string): string {
  switch (token.type) {
    case 'heading': {
      // A heading names its section: badges and images in it are no part of the name.
      const title = inlineText(token.tokens ?? [], false)
        .replace(/\s+/g, ' ')
        .trim();
      return title === '' ? '' : `${'#'.repeat(token.depth as number)} ${title}`;
    }
    case 'paragraph':
    case 'text':
      return indentLines(
        escapeHeadingLines(token.tokens ? inlineText(token.tokens) : String(token.text)),
        indent,
      );
    case 'code': {
      const fence = (token.text as string).includes('```') ? '~~~~' : '```';
      return `${fence}${(token.lang as string | undefined) ?? ''}\n${token.text as string}\n${fence}`;
    }
    case 'blockquote':
      return blocksText(token.tokens ?? [], indent);
    case 'list':
      return listText(token as unknown as Tokens.List, indent);
    case 'table':
      return tableText(token as unknown as Tokens.Table, indent);
    case 'html':
      return indentLines(escapeHeadingLines(htmlFragmentText(token.text as string)), indent);
    default:
      // space, hr, def (link definitions) carry no text.
      return '';
  }
}

function listText(list: Tokens.List, indent: string): string {
  const start = typeof list.start === 'number' ? list.start : 1;
  return list.items
    .map((item, index) => {
      const marker = list.ordered ? `${start + index}. ` : '- ';
      const body = blocksText(item.tokens, `${indent}  `).replace(/^\s+/, '');
      return `${indent}${marker}${body}`;
    })
    .join('\n');
}

function tableText(table: Tokens.Table, indent: string): string {
  const row = (cells: readonly Tokens.TableCell[]) =>
    `${indent}${escapeHeadingLines(cells.map((cell) => inlineText(cell.tokens)).join(' | '))}`;
  return [row(table.header), ...table.rows.map(row)].join('\n');
}

function indentLines(text: string, indent: string): string {
  return indent ? text.replace(/\n/g, `\n${indent}`) : text;
}

/**
 * Inline tokens as text: emphasis and links keep their text, images their alt text (with
 * `images` false, none). A link made only of images is a badge (`[![build](…)](…)`): no text.
 */
function inlineText(tokens: readonly Token[], images = true): string {
  let text = '';
  for (const token of tokens as readonly Tokens.Generic[]) {
    switch (token.type) {
      case 'br':
        text += '\n';
        break;
      case 'image':
        if (images) text += token.text as string;
        break;
      case 'link':
        if (!isBadge(token)) text += inlineText(token.tokens ?? [], images);
        break;
      case 'html':
        text += htmlFragmentText(token.text as string);
        break;
      case 'codespan':
      case 'escape':
        text += token.text as string;
        break;
      default:
        text += token.tokens
          ? inlineText(token.tokens, images)
          : ((token.text as string | undefined) ?? '');
    }
  }
  return text;
}

/** A link whose content is images and whitespace only (a badge). */
function isBadge(link: Tokens.Generic): boolean {
  const inner = (link.tokens ?? []) as readonly Tokens.Generic[];
  return (
    inner.some((token) => token.type === 'image') &&
    inner.every(
      (token) =>
        token.type === 'image' || (token.type === 'text' && !/\S/.test(String(token.text))),
    )
  );
}
