/** A sentence with its character offsets in the source text. */
export interface SentenceSpan {
  /** The sentence, trimmed. */
  readonly text: string;
  /** Offset of its first character. */
  readonly start: number;
  /** Offset after its last character. */
  readonly end: number;
}

// A sentence ends at . ! ? (optionally followed by closing quotes/brackets and a citation tag)
// followed by whitespace; a blank line, a line break before a list item, heading or table row,
// or the line break after a heading or table row also ends one. (The look-behind comes
// after the `\n`, so it only runs at line breaks: before it, it made splitting quadratic.)
// Chinese and Japanese end a sentence at the full-width 。！？, with or without whitespace after.
// A run of end punctuation is tried from its first character only (the look-behinds): tried from
// each of its characters, 30,000 periods took seconds (issue 28).
const BOUNDARY =
  /((?<![.!?…])[.!?…]+["'”’)\]]*(?:\s*\[source:\s*[A-Za-z0-9_-]+\])*)(\s+)|(\n\s*\n+|\n(?=[ \t]*(?:(?:[-*+]|\d+[.)]|#{1,6})\s|\|))|\n(?<=^[ \t]*(?:#{1,6}\s|\|)[^\n]*\n))|((?<![。！？])[。！？]+[」』）”’]*(?:\s*\[source:\s*[A-Za-z0-9_-]+\])*)(\s*)/gm;

/** Characters around a period looked at to decide whether it ends an abbreviation. */
const ABBREVIATION_WINDOW = 64;

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
]);

/**
 * Whether the period ending `before` belongs to an abbreviation rather than ending the
 * sentence; `after` is the text that follows.
 */
function endsWithAbbreviation(before: string, after: string): boolean {
  const match = /(?:^|[\s(])([A-Za-z](?:\.[A-Za-z])*|[A-Za-z]{1,6})\.$/.exec(before);
  if (!match?.[1]) return false;
  const word = match[1];
  const lower = word.toLowerCase();
  const next = after.trimStart();
  // "No. 5", "etc. and": abbreviations only when what follows says so.
  if (lower === 'no') return /^\d/.test(next);
  if (lower === 'etc') return !/^[A-Z]/.test(next);
  if (ABBREVIATIONS.has(lower) || /^[a-z](\.[a-z])+$/.test(lower)) return true;
  if (/^[A-Z]$/.test(word)) {
    // An initial ("John F. Kennedy") follows a capitalised word or starts the text;
    // "vitamin D. It helped." ends a sentence.
    // The word before the last run of whitespace (a split rather than /(\S+)\s+\S*$/,
    // which backtracks).
    const words = before.slice(0, before.length - 2).split(/\s+/);
    const previous = words.length > 1 ? words[words.length - 2]! : '';
    return previous === '' || /^[A-Z]/.test(previous);
  }
  return false;
}

/** Splits text into sentences with offsets; empty input gives no sentences. */
export function splitSentences(text: string): SentenceSpan[] {
  const spans: SentenceSpan[] = [];
  let start = 0;
  const push = (end: number): void => {
    const raw = text.slice(start, end);
    const lead = raw.length - raw.trimStart().length;
    const trimmed = raw.trim();
    if (trimmed.length > 0) {
      spans.push({ text: trimmed, start: start + lead, end: start + lead + trimmed.length });
    }
  };
  for (const match of text.matchAll(BOUNDARY)) {
    const index = match.index;
    if (match[4] !== undefined) {
      const end = index + match[4].length;
      push(end);
      start = end;
    } else if (match[1] !== undefined) {
      const end = index + match[1].length;
      if (
        match[1].startsWith('.') &&
        // The last characters are enough to see an abbreviation, and keep this step's cost
        // from growing with the sentence ("e.g. e.g. e.g. …" never ends one).
        endsWithAbbreviation(
          text.slice(Math.max(start, index + 1 - ABBREVIATION_WINDOW), index + 1),
          text.slice(end, end + ABBREVIATION_WINDOW),
        )
      ) {
        continue;
      }
      // A decimal number or version ("3.5") never matches: the boundary needs whitespace.
      push(end);
      start = end;
    } else {
      push(index);
      start = index + match[0].length;
    }
  }
  push(text.length);
  return spans;
}
