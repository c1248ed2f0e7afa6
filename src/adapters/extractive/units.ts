/**
 * Reading a source the way a reader of technical documentation does: its headings, paragraphs,
 * fenced code blocks, lists and tables. The quotable units are a paragraph's sentences, a list
 * item (whole when it is short: an option's "name — type — Default: x — what it does" is one
 * fact), a table row, and a code block; a sentence that introduces a code block, list or table
 * carries that block, so the answer can quote both.
 */
import { splitSentences } from '../../text/sentences.js';
import { trimEnds } from '../../util/trim-trailing.js';

/** What a quotable unit is. */
export type UnitKind = 'sentence' | 'item' | 'row' | 'code';

/** One quotable unit of a source, before it is cleaned and stemmed. */
export interface SourceUnit {
  readonly kind: UnitKind;
  /** The unit's raw text (a list item without its marker, a row's cells joined with ` — `). */
  readonly text: string;
  /** The code block, list or table this sentence introduces, as it stands in the source. */
  readonly block?: string | undefined;
  /** What kind of block `block` is. */
  readonly blockKind?: 'code' | 'list' | 'table' | undefined;
  /** The nearest heading above the unit (its text), or '' when none. */
  readonly heading: string;
  /** Whether it is the first unit under its heading. */
  readonly firstUnderHeading: boolean;
  /** A table row's column names (its table's header row). */
  readonly columns?: string | undefined;
}

type BlockKind = 'heading' | 'code' | 'list' | 'table' | 'prose';

interface Block {
  readonly kind: BlockKind;
  readonly lines: string[];
  /** A code block's info string (its language). */
  readonly info?: string | undefined;
}

const FENCE = /^[ \t]*(`{3,}|~{3,})/;
// One space or tab after the hashes, then the rest of the line (trimmed by `headingText`): a
// lazy capture before `[ \t#]*$` backtracked quadratically on a long run of tabs.
const HEADING = /^[ \t]{0,3}#{1,6}[ \t]([^\n]*)$/;
const LIST_ITEM = /^[ \t]*(?:[-*+•]|\d{1,3}[.)])[ \t]+/;
const EDGE_PIPE_ROW = /^[ \t]*\|/;
const CELL_SEPARATOR = / \| /;
// Longer list items are read sentence by sentence; longer blocks are not carried whole.
const MAX_ITEM_LENGTH = 600;
const MAX_BLOCK_LENGTH = 1500;

/**
 * Where a source chunk starts inside a code block (it was cut from a longer one): an odd number
 * of fences whose first is bare (no info string) with code-like lines before it.
 */
function startsInsideCode(lines: readonly string[]): boolean {
  const fences = lines.flatMap((line, index) => (FENCE.test(line) ? [index] : []));
  const first = fences[0];
  if (first === undefined || fences.length % 2 === 0) return false;
  const bare = /^[ \t]*(?:`{3,}|~{3,})[ \t]*$/.test(lines[first]!);
  return bare && lines.slice(0, first).some((line) => /[;{}()=]\s*$/.test(line));
}

/** The source's blocks, in order: headings, code blocks, lists, tables and prose paragraphs. */
function readBlocks(text: string): Block[] {
  const lines = text.split('\n').map((line) => line.replace(/\r$/, ''));
  const blocks: Block[] = [];
  let paragraph: string[] = [];
  const close = (): void => {
    if (paragraph.length > 0) blocks.push({ kind: paragraphKind(paragraph), lines: paragraph });
    paragraph = [];
  };
  let fence: { marker: string; info: string; lines: string[] } | undefined;
  if (startsInsideCode(lines)) fence = { marker: '`', info: '', lines: [] };
  for (const line of lines) {
    if (fence) {
      const marker = FENCE.exec(line)?.[1];
      if (marker !== undefined && marker[0] === fence.marker[0] && line.trim() === marker) {
        blocks.push({ kind: 'code', lines: fence.lines, info: fence.info });
        fence = undefined;
      } else fence.lines.push(line);
      continue;
    }
    const marker = FENCE.exec(line)?.[1];
    if (marker !== undefined) {
      close();
      const info = /^[\w+-]{1,20}$/.exec(line.trim().slice(marker.length).trim())?.[0] ?? '';
      fence = { marker, info, lines: [] };
    } else if (line.trim() === '') {
      close();
    } else if (HEADING.test(line)) {
      close();
      blocks.push({ kind: 'heading', lines: [trimEnds(HEADING.exec(line)![1]!, ' \t', ' \t#')] });
    } else {
      // A list or table right under a lead-in line without a blank line between starts a block.
      const opensBlock = LIST_ITEM.test(line) || EDGE_PIPE_ROW.test(line);
      if (opensBlock && paragraph.length > 0 && paragraphKind(paragraph) === 'prose') close();
      paragraph.push(line);
    }
  }
  if (fence) blocks.push({ kind: 'code', lines: fence.lines, info: fence.info });
  close();
  return blocks.filter((block) => block.lines.some((line) => line.trim() !== ''));
}

function paragraphKind(lines: readonly string[]): BlockKind {
  const first = lines[0] ?? '';
  if (LIST_ITEM.test(first)) return 'list';
  if (EDGE_PIPE_ROW.test(first)) return 'table';
  if (lines.length >= 2 && lines.every((line) => CELL_SEPARATOR.test(line))) return 'table';
  return 'prose';
}

/** A list's items, each with its continuation lines, without markers. */
function listItems(lines: readonly string[]): string[] {
  const items: string[] = [];
  for (const line of lines) {
    if (LIST_ITEM.test(line) || items.length === 0) items.push(line.replace(LIST_ITEM, ''));
    else items[items.length - 1] += `\n${line.trim()}`;
  }
  return items;
}

// A field of an option's description: a short label, a colon, a value ("Default: `true`").
const FIELD = /^[A-Z][A-Za-z]{1,15}(?: [a-z]{1,15})?:[ \t]+\S[^\n]{0,100}$/;
const MAX_FIELDS = 6;

/** Whether a list's items are all "Label: value" fields (an option's type, default, …). */
function isFieldList(items: readonly string[]): boolean {
  return items.length <= MAX_FIELDS && items.every((item) => FIELD.test(item.trim()));
}

/** A table's rows as their cells joined with ` — ` (separator rows left out). */
function tableRows(lines: readonly string[]): string[] {
  const rows: string[] = [];
  for (const line of lines) {
    const cells = line
      .split(/(?<!\\)\|/)
      .map((cell) => cell.replace(/\\\|/g, '|').trim())
      .filter((cell) => cell.length > 0);
    if (cells.length === 0 || cells.every((cell) => /^:?-+:?$/.test(cell))) continue;
    rows.push(cells.join(' — '));
  }
  return rows;
}

/** Sentences of a prose paragraph; a "Default: x" fragment stays with the sentence before it. */
function proseSentences(text: string): string[] {
  const sentences: string[] = [];
  for (const sentence of splitSentences(text)) {
    const previous = sentences.length - 1;
    if (previous >= 0 && /^(?:defaults?\b|default value\b)/i.test(sentence.text)) {
      sentences[previous] += ` ${sentence.text}`;
    } else sentences.push(sentence.text);
  }
  return sentences;
}

/** The quotable units of a source text, in order. */
export function sourceUnits(text: string): SourceUnit[] {
  const blocks = readBlocks(text);
  const units: SourceUnit[] = [];
  let heading = '';
  let first = true;
  // Every unit has the same fields in one order (one object shape; a spread of the optional
  // fields made as many shapes as combinations).
  const push = (unit: Omit<SourceUnit, 'heading' | 'firstUnderHeading'>): void => {
    units.push({
      kind: unit.kind,
      text: unit.text,
      block: unit.block,
      blockKind: unit.blockKind,
      heading,
      firstUnderHeading: first,
      columns: unit.columns,
    });
    first = false;
  };
  blocks.forEach((block, index) => {
    if (block.kind === 'heading') {
      heading = block.lines[0]!.trim();
      first = true;
      return;
    }
    if (block.kind === 'code') {
      push({ kind: 'code', text: block.lines.join('\n') });
      // A command's help text lists its options: each is a fact of its own.
      for (const option of helpOptions(block.lines)) push({ kind: 'item', text: option });
      return;
    }
    if (block.kind === 'list') {
      const items = listItems(block.lines);
      // "Type: `number`", "Default: `4`" under an option's heading: one fact about the option,
      // quoted whole and named by its heading (alone, "Default: `4`" says nothing).
      if (heading !== '' && isFieldList(items)) {
        push({ kind: 'item', text: `${heading}: ${items.map((item) => item.trim()).join('; ')}` });
        // It names its heading itself: the description below it still opens the section.
        first = true;
        return;
      }
      for (const item of items) {
        if (item.length <= MAX_ITEM_LENGTH) push({ kind: 'item', text: item });
        else
          for (const sentence of proseSentences(item)) push({ kind: 'sentence', text: sentence });
      }
      return;
    }
    if (block.kind === 'table') {
      // The header row names the columns: it is quoted with the table, never alone.
      const [header, ...rows] = tableRows(block.lines);
      for (const row of rows) push({ kind: 'row', text: row, columns: header });
      return;
    }
    const sentences = proseSentences(block.lines.join('\n'));
    const next = blocks[index + 1];
    const carried = next && next.kind !== 'heading' && next.kind !== 'prose' ? next : undefined;
    const blockText = carried ? blockSource(carried) : undefined;
    sentences.forEach((sentence, position) => {
      const last = position === sentences.length - 1;
      if (last && carried && blockText !== undefined && blockText.length <= MAX_BLOCK_LENGTH) {
        push({
          kind: 'sentence',
          text: sentence,
          block: blockText,
          blockKind: carried.kind as 'code' | 'list' | 'table',
        });
      } else push({ kind: 'sentence', text: sentence });
    });
  });
  return units;
}

/** A block as it is quoted: code fenced, a list or table line by line. */
function blockSource(block: Block): string {
  if (block.kind !== 'code') return block.lines.map((line) => line.trimEnd()).join('\n');
  const body = trimEnds(block.lines.join('\n'), '\n', '').trimEnd();
  const fence = body.includes('```') ? '~~~' : '```';
  return `${fence}${block.info ?? ''}\n${body}\n${fence}`;
}

// An option line of a command's help text: a flag (`-l`, `--loose`, `-n <0|1>`) at the start of
// a line indented at most six spaces, then its description after two blanks or on the lines
// below, indented deeper. Split by hand: one pattern for the whole line backtracks cubically.
const OPTION_START = /^[ \t]{0,6}--?[A-Za-z]/;
const GAP = /[ \t]{2,}/;

/** The flags and same-line description of an option line, or undefined. */
function optionLine(
  line: string,
): { indent: number; flags: string; description?: string } | undefined {
  if (!OPTION_START.test(line)) return undefined;
  const indent = /^[ \t]*/.exec(line)![0].length;
  const body = line.slice(indent).trimEnd();
  const gap = GAP.exec(body);
  if (!gap) return { indent, flags: body };
  return {
    indent,
    flags: body.slice(0, gap.index).trim(),
    description: body.slice(gap.index + gap[0].length).trim(),
  };
}

/**
 * The options of a code block that is a command's help text (two option lines at least), each
 * as "flags: description" ("-l --loose: Interpret versions and ranges loosely").
 */
export function helpOptions(lines: readonly string[]): string[] {
  const options: { flags: string; indent: number; description: string[] }[] = [];
  let open: (typeof options)[number] | undefined;
  for (const line of lines) {
    const option = optionLine(line);
    if (option) {
      open = { flags: option.flags, indent: option.indent, description: [] };
      if (option.description !== undefined) open.description.push(option.description);
      options.push(open);
      continue;
    }
    const indent = /^[ \t]*/.exec(line)![0].length;
    if (open && line.trim() !== '' && indent > open.indent) open.description.push(line.trim());
    else open = undefined;
  }
  if (options.length < 2) return [];
  return options
    .filter((option) => option.description.length > 0)
    .map((option) => `${option.flags}: ${option.description.join(' ')}`)
    .filter((text) => text.length <= MAX_ITEM_LENGTH);
}
