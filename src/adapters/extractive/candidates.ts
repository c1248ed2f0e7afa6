/**
 * The quotable sentences: each sentence of the sources (or of the conversation, for a summary)
 * cleaned of markup and citation tags, with its stemmed terms, the heading it is filed under,
 * its source's label and rank. Code blocks, table separators and fragments are left out.
 */
import type { LLMMessage, PromptSource } from '../../ports/llm-provider.js';
import { hasNoSpaceScript } from '../../text/segment.js';
import { splitSentences } from '../../text/sentences.js';
import { sourceUnits, type UnitKind } from './units.js';
import { contentStems } from '../../text/analyzer.js';
import { CITATION, SUMMARY_REQUEST, lastUserMessage } from './prompt.js';
import { createSecondSightCache } from '../../util/second-sight.js';
import { isSpace } from './tokens.js';

/** A quotable sentence with its normalised terms. */
export interface Candidate {
  /** The sentence as it is quoted (cleaned of markup and citation tags). */
  readonly text: string;
  /** Stemmed content terms. */
  readonly terms: ReadonlySet<string>;
  /** The same terms in sentence order (for phrase matches). */
  readonly sequence: readonly string[];
  /** Label cited for it, when it comes from a source. */
  readonly label: string | undefined;
  /** Rank of its source among the request's sources (best first); 0 outside sources. */
  readonly rank: number;
  /**
   * The document its source is a chunk of (the source's title, else its label): chunks of one
   * document are quoted together as one source.
   */
  readonly document?: string | undefined;
  /** Order of appearance over all inputs: its index in `sourceSentences`' list. */
  readonly order: number;
  /** Whether it is a table row (its cells joined): prose is preferred over it. */
  readonly tableRow: boolean;
  /**
   * Stemmed terms of what the sentence is filed under: the nearest heading above it in its
   * source (the document title when none) and, for a table row, its first cell (the key the
   * row describes).
   */
  readonly heading: ReadonlySet<string>;
  /** What the unit is: a sentence, a list item, a table row or a code block. */
  readonly unit?: UnitKind | undefined;
  /** The code block, list or table the sentence introduces, quoted after it. */
  readonly block?: string | undefined;
  /** What kind of block `block` is. */
  readonly blockKind?: 'code' | 'list' | 'table' | undefined;
  /** Stemmed terms of `block`. */
  readonly blockTerms?: ReadonlySet<string> | undefined;
  /** The text of the heading the unit sits under ('' when none). */
  readonly headingText?: string | undefined;
  /** Whether it is the first unit under its heading. */
  readonly firstUnderHeading?: boolean | undefined;
  /** A table row's column names, its table's header cells joined with ` — `. */
  readonly columns?: string | undefined;
  /** Stemmed terms of a table row's column names. */
  readonly columnTerms?: ReadonlySet<string> | undefined;
  /** Stemmed terms of a table row's key, its first cell. */
  readonly keyTerms?: ReadonlySet<string> | undefined;
  /** Stemmed terms of the headings its source sits under (its `section`), outermost first. */
  readonly pathTerms?: ReadonlySet<string> | undefined;
}

/** The quotable sentences of the sources, in order, each with its source's label and rank. */
export function sourceSentences(sources: readonly PromptSource[]): Candidate[] {
  const candidates: Candidate[] = [];
  sources.forEach((source, rank) => {
    const document = source.title ?? source.label;
    const title = source.section?.split(' › ').pop() || source.title || '';
    const pathTerms = pathTermsOf(source.section ?? source.title ?? '');
    for (const sentence of analysedSource(title, source.text)) {
      candidates.push(
        inSource(sentence, source.label, rank, candidates.length, document, pathTerms),
      );
    }
  });
  return candidates;
}

/**
 * A source's sentence as a candidate of one request. Every field is written, in one order: the
 * candidates of a turn share one object shape (spreading the analysed sentences, whose optional
 * fields vary, cost a tenth of the model's time).
 */
function inSource(
  sentence: AnalysedSentence,
  label: string,
  rank: number,
  order: number,
  document: string,
  pathTerms: ReadonlySet<string>,
): Candidate {
  return {
    text: sentence.text,
    terms: sentence.terms,
    sequence: sentence.sequence,
    label,
    rank,
    document,
    order,
    tableRow: sentence.tableRow,
    heading: sentence.heading,
    unit: sentence.unit,
    block: sentence.block,
    blockKind: sentence.blockKind,
    blockTerms: sentence.blockTerms,
    headingText: sentence.headingText,
    firstUnderHeading: sentence.firstUnderHeading,
    columns: sentence.columns,
    columnTerms: sentence.columnTerms,
    keyTerms: sentence.keyTerms,
    pathTerms,
  };
}

const pathTermsCache = new Map<string, ReadonlySet<string>>();
/** Most section paths kept: the cache is emptied when it holds this many. */
const MAX_PATHS = 4096;

/** The stemmed terms of a section path (kept by text: the same paths come back turn after turn). */
function pathTermsOf(path: string): ReadonlySet<string> {
  let terms = pathTermsCache.get(path);
  if (terms === undefined) {
    terms = termSet(path);
    if (pathTermsCache.size >= MAX_PATHS) pathTermsCache.clear();
    pathTermsCache.set(path, terms);
  }
  return terms;
}

/** What a source's sentence is, whatever the request it is quoted in. */
type AnalysedSentence = Omit<Candidate, 'label' | 'rank' | 'order' | 'document' | 'pathTerms'>;

// The sources of a turn are chunks that come back turn after turn, and splitting and stemming
// them is most of the model's work: the sentences of sources seen at least twice are kept, by
// text, with the title they were analysed under.
const keptSources = createSecondSightCache<{
  readonly title: string;
  readonly sentences: readonly AnalysedSentence[];
}>(1024);

/** The quotable sentences of one source text under its title. */
function analysedSource(title: string, text: string): readonly AnalysedSentence[] {
  return keptSources.get(
    text,
    () => ({ title, sentences: analyseSource(title, text) }),
    (kept) => kept.title === title,
  ).sentences;
}

function analyseSource(title: string, text: string): AnalysedSentence[] {
  const sentences: AnalysedSentence[] = [];
  const titleTerms = termSet(title);
  const headings = new Map<string, Set<string>>();
  for (const unit of sourceUnits(text)) {
    let heading = headings.get(unit.heading);
    if (!heading) {
      heading = unit.heading === '' ? titleTerms : termSet(unit.heading);
      headings.set(unit.heading, heading);
    }
    const headingText = unit.heading === '' ? title : unit.heading;
    // Every field is written, in one order: one object shape for every sentence.
    if (unit.kind === 'code') {
      const body = unit.text.trim();
      if (body.length === 0 || body.length > MAX_CODE_LENGTH) continue;
      const sequence = contentStems(body);
      if (sequence.length === 0) continue;
      const fence = body.includes('```') ? '~~~' : '```';
      sentences.push({
        text: `${fence}\n${body}\n${fence}`,
        terms: new Set(sequence),
        sequence,
        tableRow: false,
        heading,
        unit: unit.kind,
        block: undefined,
        blockKind: undefined,
        blockTerms: undefined,
        headingText,
        firstUnderHeading: unit.firstUnderHeading,
        columns: undefined,
        columnTerms: undefined,
        keyTerms: undefined,
      });
      continue;
    }
    // A row is filed under its table's column names too ("Status Code — Error Type").
    const columnTerms = unit.columns === undefined ? undefined : termSet(unit.columns);
    const filed = columnTerms !== undefined ? new Set([...heading, ...columnTerms]) : heading;
    const hasBlock = unit.block !== undefined;
    const candidate = toCandidate(unit.text, undefined, 0, 0, filed, unit.kind === 'row', hasBlock);
    if (!candidate) continue;
    const hasColumns = unit.columns !== undefined;
    sentences.push({
      text: candidate.text,
      terms: candidate.terms,
      sequence: candidate.sequence,
      tableRow: candidate.tableRow,
      heading: candidate.heading,
      unit: unit.kind,
      block: unit.block,
      blockKind: hasBlock ? unit.blockKind : undefined,
      blockTerms: hasBlock ? new Set(contentStems(unit.block!)) : undefined,
      headingText,
      firstUnderHeading: unit.firstUnderHeading,
      columns: unit.columns,
      columnTerms,
      keyTerms: hasColumns ? termSet(unit.text.split(' — ')[0]!) : undefined,
    });
  }
  return sentences;
}

function termSet(text: string): Set<string> {
  return new Set(contentStems(text));
}

// A longer code block is an example too long to quote as an answer.
const MAX_CODE_LENGTH = 1500;

/** The statements among the sentences (questions make poor summary lines), if there are any. */
export function withoutQuestions(candidates: Candidate[]): Candidate[] {
  const statements = candidates.filter((candidate) => !endsWithQuestionMark(candidate.text));
  return statements.length > 0 ? statements : candidates;
}

/**
 * Whether a sentence ends with a question mark (unlike `isQuestion` of
 * `text/question-intent.ts`, an interrogative opening alone does not count).
 */
function endsWithQuestionMark(text: string): boolean {
  return /[?？]["'”’)\]]*$/.test(text);
}

/** Sentences of the conversation, without the summary request itself. */
export function conversationSentences(
  messages: readonly LLMMessage[],
  question: string,
): Candidate[] {
  const last = lastUserMessage(messages);
  const isInstruction =
    last !== undefined && SUMMARY_REQUEST.test(question) && question.split(/\s+/).length <= 40;
  const candidates: Candidate[] = [];
  for (const message of messages) {
    if (isInstruction && message === last) continue;
    for (const sentence of splitSentences(message.content)) {
      const candidate = toCandidate(sentence.text, undefined, candidates.length);
      if (candidate) candidates.push(candidate);
    }
  }
  return candidates;
}

// Longer spans are blocks the sentence splitter could not break, not sentences.
const MAX_QUOTE_LENGTH = 600;

/** A sentence cleaned for quoting, or undefined when it is markup or too short to quote. */
function toCandidate(
  raw: string,
  label: string | undefined,
  order: number,
  rank = 0,
  heading: ReadonlySet<string> = new Set(),
  row = false,
  caption = false,
): Candidate | undefined {
  // Code and run-on blocks are not sentences to quote.
  if (raw.includes('```') || raw.includes('~~~')) return undefined;
  if (raw.length > MAX_QUOTE_LENGTH) return undefined;
  // A table row is quoted as its cells ("`retries` — 2 — retries after the first attempt").
  const tableRow = row || /^\s*\|/.test(raw);
  if (row) heading = new Set([...heading, ...termSet(raw.split(' — ')[0]!)]);
  else if (tableRow) {
    const cells = raw
      .split(/(?<!\\)\|/)
      .map((cell) => cell.replace(/\\\|/g, '|').trim())
      .filter((cell) => cell.length > 0);
    if (cells.length === 0 || cells.every((cell) => /^:?-+:?$/.test(cell))) return undefined;
    raw = cells.join(' — ');
    heading = new Set([...heading, ...termSet(cells[0]!)]);
  }
  const text = cleanQuote(raw);
  const sequence = contentStems(text);
  // Scripts without spaces (Chinese, Japanese, Thai) count segmented words, not spaces.
  // A caption over the block it introduces ("Quiz Options" over the options table) is short but
  // says what the block is: it is quoted with it.
  if (sequence.length < 2 || (!caption && spacesIn(text) < 2 && !hasNoSpaceScript(text))) {
    return undefined;
  }
  return { text, terms: new Set(sequence), sequence, label, rank, order, tableRow, heading };
}

const HEADING_LINE = /^\s*#{1,6}(?:\s|$)/;
const LEAD_MARKER = /^\s*(?:>\s*)*(?:[-*+•]|\d{1,3}[.)])\s+/;

/**
 * A sentence as it is quoted: without the heading lines glued above it, its citation tags and
 * its list or quote marker, its white space collapsed to single spaces and trimmed. Each step
 * runs only when the text holds what it removes (most sentences are one plain line).
 */
export function cleanQuote(raw: string): string {
  let text = raw;
  if (HEADING_LINE.test(text)) {
    // A heading line glued to the text under it is not part of the sentence.
    const lines = text.split('\n');
    while (lines.length > 0 && HEADING_LINE.test(lines[0]!)) lines.shift();
    text = lines.join(' ');
  }
  if (text.includes('[')) text = text.replace(CITATION, '');
  if (mayOpenWithMarker(text)) text = text.replace(LEAD_MARKER, '');
  return needsCollapse(text) ? text.replace(/\s+/g, ' ').trim() : text.trim();
}

/** Whether the first character after leading white space may open a list or quote marker. */
function mayOpenWithMarker(text: string): boolean {
  let index = 0;
  while (index < text.length && isSpace(text.charCodeAt(index))) index++;
  const code = text.charCodeAt(index);
  // `>`, `-`, `*`, `+`, `•` or a digit.
  return (
    code === 0x3e ||
    code === 0x2d ||
    code === 0x2a ||
    code === 0x2b ||
    code === 0x2022 ||
    (code >= 0x30 && code <= 0x39)
  );
}

/** Whether a text holds white space other than single spaces (a line break, a tab, a run). */
function needsCollapse(text: string): boolean {
  let previousSpace = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x20) {
      if (previousSpace) return true;
      previousSpace = true;
    } else if (isSpace(code)) return true;
    else previousSpace = false;
  }
  return false;
}

/** How many spaces a text holds. */
function spacesIn(text: string): number {
  let spaces = 0;
  for (let index = text.indexOf(' '); index >= 0; index = text.indexOf(' ', index + 1)) spaces++;
  return spaces;
}
