/**
 * Sentence splitting that reads technical text the way its readers do: a sentence ends at
 * `.` `!` `?` `…` followed by white space, or at a line structure (a blank line, a list item, a
 * heading, a table row); never inside inline code (`` `a. b` ``), an identifier (`a.b()`), a
 * version range (`>=0.2.3 <0.3.0-0`), a URL, an abbreviation (`e.g.`, `f.ex.`) or an ellipsis
 * that the sentence goes on after (`appending ... to`). One left-to-right scan: linear in the
 * text, whatever it holds (runs of punctuation included).
 */

/** A sentence with its character offsets in the source text. */
export interface SentenceSpan {
  /** The sentence, trimmed. */
  readonly text: string;
  /** Offset of its first character. */
  readonly start: number;
  /** Offset after its last character. */
  readonly end: number;
}

// Abbreviations after which a period does not end a sentence.
const ABBREVIATIONS = new Set([
  'e.g',
  'i.e',
  'vs',
  'mr',
  'mrs',
  'ms',
  'dr',
  'prof',
  'fig',
  'al',
  'approx',
  'cf',
  'st',
  'jr',
  'sr',
  'inc',
  'ltd',
  'co',
  'eq',
  'ref',
  'vol',
  'p',
  'pp',
  'f.ex',
  'resp',
  'incl',
  'esp',
]);

// Look-behind and look-ahead windows are bounded, so each boundary costs constant time.
const LOOK_BEHIND = 48;

const BACKTICK = 96;
const FULL_STOPS = new Set(['。', '！', '？']);
const CLOSERS = new Set(['"', "'", '”', '’', ')', ']']);
// Brackets an ellipsis right after stands for elided content (`(…|…)`), not a sentence's end.
const OPENERS = new Set(['(', '[', '{']);
const CJK_CLOSERS = new Set(['」', '』', '）', '”', '’']);
const CITATION_TAG = /^\s*\[source:\s*[A-Za-z0-9_-]+\]/;

function isSpace(char: string | undefined): boolean {
  return (
    char === ' ' ||
    char === '\t' ||
    char === '\n' ||
    char === '\r' ||
    char === '\f' ||
    char === '\v' ||
    char === '\u00a0' ||
    char === '\u2028' ||
    char === '\u2029' ||
    char === '\u3000' ||
    char === '\ufeff'
  );
}

/**
 * Whether a UTF-16 code unit is one the scan stops at: a backtick, a line feed, a terminal
 * (`.` `!` `?` `…`) or a full stop (`。` `！` `？`).
 */
function mayStartBoundary(code: number): boolean {
  if (code < 0x80)
    return code === 0x2e || code === 0x0a || code === 0x60 || code === 0x21 || code === 0x3f;
  return code === 0x2026 || code === 0x3002 || code === 0xff01 || code === 0xff1f;
}

function isTerminal(char: string | undefined): boolean {
  return char === '.' || char === '!' || char === '?' || char === '…';
}

/**
 * The inline code spans of a text, as a map from the offset of an opening backtick run to the
 * offset after its closing run (a run of the same length, before the next blank line). A run
 * with no partner is literal. Linear: each run is looked at a constant number of times.
 */
function inlineCodeSpans(text: string): Map<number, number> {
  const spans = new Map<number, number>();
  if (!text.includes('`')) return spans;
  const runs: { start: number; length: number }[] = [];
  for (let index = text.indexOf('`'); index !== -1;) {
    let end = index;
    while (text.charCodeAt(end) === BACKTICK) end++;
    runs.push({ start: index, length: end - index });
    index = text.indexOf('`', end);
  }
  // The next run of the same length, found in one backward pass.
  const next = new Int32Array(runs.length).fill(-1);
  const latest = new Map<number, number>();
  for (let index = runs.length - 1; index >= 0; index--) {
    const run = runs[index]!;
    next[index] = latest.get(run.length) ?? -1;
    latest.set(run.length, index);
  }
  const blankLine = /\n[ \t]*\r?\n/g;
  let blank = -1;
  for (let index = 0; index < runs.length; index++) {
    const open = runs[index]!;
    const partner = next[index]!;
    if (partner === -1) continue;
    const close = runs[partner]!;
    if (blank < open.start) {
      blankLine.lastIndex = open.start;
      blank = blankLine.exec(text)?.index ?? text.length;
    }
    if (close.start > blank) continue;
    spans.set(open.start, close.start + close.length);
    index = partner;
  }
  return spans;
}

/** What a line starts with, as far as sentence boundaries care. */
function lineKind(text: string, start: number): 'list' | 'heading' | 'pipe' | 'text' | 'blank' {
  let index = start;
  while (text[index] === ' ' || text[index] === '\t') index++;
  const char = text[index];
  if (char === undefined || char === '\n' || (char === '\r' && text[index + 1] === '\n')) {
    return 'blank';
  }
  if (char === '|') return 'pipe';
  if ((char === '-' || char === '*' || char === '+' || char === '•') && isSpace(text[index + 1])) {
    return 'list';
  }
  if (char === '#') {
    let level = 0;
    while (text[index + level] === '#' && level < 7) level++;
    if (level <= 6 && isSpace(text[index + level])) return 'heading';
    return 'text';
  }
  if (char !== undefined && char >= '0' && char <= '9') {
    let digits = 0;
    while (text[index + digits]! >= '0' && text[index + digits]! <= '9' && digits < 4) digits++;
    const after = text[index + digits];
    if (digits <= 3 && (after === '.' || after === ')') && isSpace(text[index + digits + 1])) {
      return 'list';
    }
  }
  return 'text';
}

/** Whether the line from `start` holds a cell separator (` | `): a row of a table without pipes at its edges. */
function hasCellSeparator(text: string, start: number): boolean {
  const end = text.indexOf('\n', start);
  const line = text.slice(start, end === -1 ? text.length : end);
  return / \| /.test(line);
}

/**
 * Whether the period ending at `at` belongs to an abbreviation rather than ending the
 * sentence; `next` is the first character after the white space that follows. Exported for
 * tests.
 */
export function endsWithAbbreviation(
  text: string,
  sentenceStart: number,
  at: number,
  next: string,
): boolean {
  const from = Math.max(sentenceStart, at - LOOK_BEHIND);
  // Every form the expression below takes ends with a letter before the period, and none is a
  // run of seven letters or more (in the window it reads).
  let letters = 0;
  while (
    letters < 7 &&
    at - letters - 1 >= from &&
    isAsciiLetter(text.charCodeAt(at - letters - 1))
  )
    letters++;
  if (letters === 0 || letters === 7) return false;
  const before = text.slice(from, at + 1);
  const match = /(?:^|[\s(])([A-Za-z](?:\.[A-Za-z])*|[A-Za-z]{1,6}|f\.ex)\.$/.exec(before);
  if (!match?.[1]) return false;
  const word = match[1];
  const lower = word.toLowerCase();
  // "No. 5", "etc. and": abbreviations only when what follows says so.
  if (lower === 'no') return next >= '0' && next <= '9';
  if (lower === 'etc') return !(next >= 'A' && next <= 'Z');
  if (ABBREVIATIONS.has(lower) || /^[a-z](\.[a-z])+$/.test(lower)) return true;
  if (/^[A-Z]$/.test(word)) {
    // An initial ("John F. Kennedy") follows a capitalised word or starts the text;
    // "vitamin D. It helped." ends a sentence.
    const previous = previousWord(before.slice(0, before.length - 2));
    return previous === '' || /^[A-Z]/.test(previous);
  }
  return false;
}

/** Whether a UTF-16 code unit is an ASCII letter (`[A-Za-z]`). */
function isAsciiLetter(code: number): boolean {
  return (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a);
}

/** The word before the last one of `text` (`/(\S+)\s+\S*$/`, as a loop: linear). */
function previousWord(text: string): string {
  let end = text.length;
  while (end > 0 && !isSpace(text[end - 1])) end--;
  const spaceEnd = end;
  while (end > 0 && isSpace(text[end - 1])) end--;
  if (end === spaceEnd) return '';
  let start = end;
  while (start > 0 && !isSpace(text[start - 1])) start--;
  return text.slice(start, end);
}

/**
 * Whether a period or an ellipsis is part of a sentence that goes on: an ellipsis followed by a
 * lower-case word (`appending ... to the name`), or a period after a word with a dot inside it
 * (`f.ex. iconv.decode`) followed by one; an ellipsis right after an opening bracket (`(… —
 * any characters)`, `[…]`: elided content, the bracket still open); a list marker's period
 * (`1. Install`); a period standing alone between spaces before a lower-case word (`a . can be
 * used`: inline code whose backticks the loader removed, a literal, not a sentence's end).
 */
function continues(text: string, run: string, runStart: number, next: string): boolean {
  const lower = next.toLowerCase() === next && next.toUpperCase() !== next;
  if (run === '…' || /^\.{2,}$/.test(run)) return lower || OPENERS.has(text[runStart - 1] ?? '');
  if (run !== '.') return false;
  if (lower && runStart > 0 && isSpace(text[runStart - 1])) return true;
  // A list marker at the start of a line: "1. Install".
  let index = runStart - 1;
  let digits = 0;
  while (index >= 0 && text[index]! >= '0' && text[index]! <= '9' && digits < 4) {
    index--;
    digits++;
  }
  if (digits > 0 && digits <= 3) {
    let lineStart = index;
    while (lineStart >= 0 && (text[lineStart] === ' ' || text[lineStart] === '\t')) lineStart--;
    if (lineStart < 0 || text[lineStart] === '\n') return true;
  }
  if (!lower) return false;
  const before = text.slice(Math.max(0, runStart - LOOK_BEHIND), runStart);
  return /[A-Za-z0-9_]\.[A-Za-z0-9_]+$/.test(before);
}

/** Splits text into sentences with offsets; empty input gives no sentences. */
export function splitSentences(text: string): SentenceSpan[] {
  const spans: SentenceSpan[] = [];
  const code = inlineCodeSpans(text);
  let start = 0;
  const push = (end: number): void => {
    let from = start;
    let to = end;
    while (from < to && isSpace(text[from])) from++;
    while (to > from && isSpace(text[to - 1])) to--;
    if (to > from) spans.push({ text: text.slice(from, to), start: from, end: to });
  };
  let lineKindNow = lineKind(text, 0);
  let linePipes = lineKindNow === 'text' && hasCellSeparator(text, 0);
  let index = 0;
  while (index < text.length) {
    // Most characters are none of those a boundary starts at: passed by their code.
    if (!mayStartBoundary(text.charCodeAt(index))) {
      index++;
      continue;
    }
    const char = text[index]!;
    if (char === '`') {
      const close = code.get(index);
      if (close !== undefined) {
        index = close;
        continue;
      }
      while (text[index] === '`') index++;
      continue;
    }
    if (char === '\n') {
      const nextStart = index + 1;
      const nextKind = lineKind(text, nextStart);
      const nextPipes = nextKind === 'text' && hasCellSeparator(text, nextStart);
      const breaks =
        nextKind === 'blank' ||
        nextKind === 'list' ||
        nextKind === 'heading' ||
        nextKind === 'pipe' ||
        lineKindNow === 'heading' ||
        lineKindNow === 'pipe' ||
        (linePipes && nextPipes);
      if (breaks) {
        push(index);
        start = nextStart;
      }
      lineKindNow = nextKind;
      linePipes = nextPipes;
      index = nextStart;
      continue;
    }
    if (FULL_STOPS.has(char)) {
      let end = index;
      while (FULL_STOPS.has(text[end] ?? '')) end++;
      while (CJK_CLOSERS.has(text[end] ?? '')) end++;
      end = afterCitations(text, end);
      push(end);
      start = end;
      index = end;
      continue;
    }
    if (!isTerminal(char)) {
      index++;
      continue;
    }
    let runEnd = index;
    while (isTerminal(text[runEnd])) runEnd++;
    let end = runEnd;
    while (CLOSERS.has(text[end] ?? '')) end++;
    end = afterCitations(text, end);
    if (end >= text.length || !isSpace(text[end])) {
      // No white space after: inside a number, a version, an identifier or a URL.
      index = end > runEnd ? end : runEnd;
      continue;
    }
    let after = end;
    while (after < text.length && (text[after] === ' ' || text[after] === '\t')) after++;
    const next = text[after] ?? '';
    const run = text.slice(index, runEnd);
    if (
      (run === '.' && endsWithAbbreviation(text, start, index, next)) ||
      continues(text, run, index, next)
    ) {
      index = end;
      continue;
    }
    push(end);
    start = end;
    index = end;
  }
  push(text.length);
  return spans;
}

/** The offset after the citation tags (`[source: S1]`) that start at `from`, if any. */
function afterCitations(text: string, from: number): number {
  let end = from;
  for (;;) {
    let at = end;
    while (at < text.length && isSpace(text[at])) at++;
    if (!text.startsWith('[source:', at)) return end;
    // A bounded look: an id is short, and a run of id characters is scanned once.
    const window = text.slice(at, Math.min(text.length, at + 80));
    const tag = CITATION_TAG.exec(window);
    if (!tag) return end;
    end = at + tag[0].length;
  }
}
