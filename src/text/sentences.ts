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
// followed by whitespace, or at a blank line / list-item line break.
const BOUNDARY =
  /([.!?…]+["'”’)\]]*(?:\s*\[source:\s*[A-Za-z0-9_-]+\])*)(\s+)|(\n\s*\n+|\n(?=\s*(?:[-*+]|\d+[.)]|#{1,6})\s))/g;

// Abbreviations after which a period does not end a sentence.
const ABBREVIATIONS = new Set([
  'e.g',
  'i.e',
  'etc',
  'vs',
  'mr',
  'mrs',
  'ms',
  'dr',
  'prof',
  'fig',
  'al',
  'no',
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

function endsWithAbbreviation(text: string): boolean {
  const match = /(?:^|[\s(])([A-Za-z](?:\.[A-Za-z])*|[A-Za-z]{1,6})\.$/.exec(text);
  if (!match?.[1]) return false;
  const word = match[1].toLowerCase();
  return ABBREVIATIONS.has(word) || /^[a-z](\.[a-z])+$/.test(word) || /^[A-Z]$/.test(match[1]);
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
    if (match[1] !== undefined) {
      const end = index + match[1].length;
      if (match[1].startsWith('.') && endsWithAbbreviation(text.slice(start, index + 1))) continue;
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
