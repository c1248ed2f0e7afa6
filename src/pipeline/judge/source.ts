/**
 * Lexical analysis of the grounding judge: a source text prepared once (its sentences with
 * their stemmed terms and five-letter prefixes, numbers with units, acronyms) to check any
 * number of claims against it, and the helpers that analyse a claim the same way (terms,
 * numbers, named entities). Pure; stems come from the analyser's bounded cache.
 * @module
 */
import { splitSentences } from '../../text/sentences.js';
import { englishTerm } from '../../text/analyzer.js';
import { words } from '../../text/words.js';
import { isContentWord } from './contradiction-analysis.js';

/** A number mentioned in a text, with the unit after it (normalised), if any. */
export interface NumberMention {
  /** The value. */
  readonly value: number;
  /** The unit (`%`, `day`, `mg`, …) or '' when none follows. */
  readonly unit: string;
}

/** A source sentence prepared for matching. */
export interface PreparedSentence {
  readonly start: number;
  readonly end: number;
  /** Stemmed content terms, in order (for proximity). */
  readonly sequence: readonly string[];
  /** The same terms as a set. */
  readonly terms: ReadonlySet<string>;
  /** Five-letter prefixes of the terms (for derived forms: "deletion" / "deleted"). */
  readonly prefixes: ReadonlySet<string>;
  /**
   * The contradiction checks' content stems of the sentence (`contentStemsOf` of its text),
   * when they came from the same pass over its words; else computed by those checks.
   */
  readonly contentStems?: ReadonlySet<string> | undefined;
}

/** A source text analysed once, to check any number of claims against it. */
export interface PreparedSource {
  /** The source text offsets refer to. */
  readonly text: string;
  /** Its sentences. */
  readonly sentences: readonly PreparedSentence[];
  /** Every stemmed term of the text. */
  readonly terms: ReadonlySet<string>;
  /** Every five-letter prefix of its terms. */
  readonly prefixes: ReadonlySet<string>;
  /** Numbers mentioned in it. */
  readonly numbers: readonly NumberMention[];
  /** The text lower-cased, for entity look-ups. */
  readonly lower: string;
  /** Its acronyms (exact case). */
  readonly acronyms: ReadonlySet<string>;
}

const PREFIX_LENGTH = 5;

const UNITS: Readonly<Record<string, string>> = {
  '%': '%',
  percent: '%',
  'per cent': '%',
  mg: 'mg',
  g: 'g',
  kg: 'kg',
  ml: 'ml',
  l: 'l',
  mm: 'mm',
  cm: 'cm',
  m: 'm',
  km: 'km',
  h: 'hour',
  hr: 'hour',
  hrs: 'hour',
  hour: 'hour',
  hours: 'hour',
  min: 'minute',
  mins: 'minute',
  minute: 'minute',
  minutes: 'minute',
  s: 'second',
  sec: 'second',
  second: 'second',
  seconds: 'second',
  day: 'day',
  days: 'day',
  week: 'week',
  weeks: 'week',
  month: 'month',
  months: 'month',
  year: 'year',
  years: 'year',
  usd: '$',
  dollars: '$',
  eur: '€',
  euros: '€',
  times: 'x',
  fold: 'x',
  x: 'x',
};
// A number or a range ("76-85%", "3 to 5 days") with an optional currency before it and unit after it.
const NUMBER =
  /([$€£])?\s?(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?:\s?(?:-|–|to)\s?(\d+(?:\.\d+)?))?(?:[\s-]?(%|per cent|percent|[A-Za-z]{1,7})\b|%)?/g;
const CURRENCIES: Readonly<Record<string, string>> = { $: '$', '€': '€', '£': '£' };

/** Numbers with their units (both ends of a range). Years and list markers count too. */
export function numbersOf(text: string): NumberMention[] {
  const mentions: NumberMention[] = [];
  for (const match of text.matchAll(NUMBER)) {
    const after = match[0].endsWith('%') ? '%' : (match[4]?.toLowerCase() ?? '');
    const unit = CURRENCIES[match[1] ?? ''] ?? UNITS[after] ?? '';
    for (const raw of [match[2], match[3]]) {
      if (raw === undefined) continue;
      const value = Number(raw.replace(/,/g, ''));
      if (Number.isFinite(value)) mentions.push({ value, unit });
    }
  }
  return mentions;
}

const HAS_DIGIT = /\d/;

/** Stemmed content terms of a text, in order (numbers are kept: "14" is a term). */
export function termsOf(text: string): string[] {
  const terms: string[] = [];
  for (const word of words(text)) {
    const term = englishTerm(word);
    if (term !== '') terms.push(term);
  }
  return terms;
}

/** The five-letter prefix of a long term without digits; other terms as they are. */
export const prefixOf = (term: string): string =>
  term.length > PREFIX_LENGTH + 1 && !HAS_DIGIT.test(term) ? term.slice(0, PREFIX_LENGTH) : term;

const ACRONYM = /\b[A-Z](?=[A-Za-z0-9]*[A-Z0-9])[A-Za-z0-9]*\b/g;

/** Acronyms and other mixed-case tokens with two capitals or digits ("BBB", "Gpr124", "IL-6"). */
function acronymsOf(text: string): string[] {
  return (text.match(ACRONYM) ?? []).filter(
    (token) => token.length >= 2 && (token.match(/[A-Z0-9]/g)?.length ?? 0) >= 2,
  );
}

// Two or more capitalised words in a row ("San Francisco", "Kaplan Meier").
const NAME = /\b[A-Z][a-z]+(?:\s+(?:of\s+|de\s+|van\s+)?[A-Z][a-z]+)+\b/g;

/** Named entities of a claim: acronyms and capitalised multiword names (not at its start). */
export function entitiesOf(text: string): { acronyms: string[]; names: string[] } {
  const names: string[] = [];
  for (const match of text.matchAll(NAME)) {
    let name = match[0];
    // The sentence's first word is capitalised anyway: only what follows it is a name.
    if (match.index === 0) name = name.replace(/^\S+\s+(?:(?:of|de|van)\s+)?/, '');
    if (/\s/.test(name)) names.push(name.toLowerCase());
  }
  return { acronyms: [...new Set(acronymsOf(text))], names: [...new Set(names)] };
}

/** Analyses a source text once; pass the result to `checkSupport` for each claim. */
export function prepareSource(text: string): PreparedSource {
  const sentences: PreparedSentence[] = [];
  const terms = new Set<string>();
  const prefixes = new Set<string>();
  for (const span of splitSentences(text)) {
    let sequence: string[];
    let contentStems: Set<string> | undefined;
    if (ASCII_TEXT.test(span.text)) {
      // An ASCII sentence's words are the ASCII words of its lower-cased text (as `words` gives
      // them); without "'t" they are the contradiction checks' words too (`contentStemsOf`),
      // so their content stems come from this pass.
      const lowered = span.text.toLowerCase();
      sequence = [];
      contentStems = lowered.includes("'t") ? undefined : new Set<string>();
      for (const word of lowered.match(ASCII_WORD) ?? []) {
        const term = englishTerm(word);
        if (term === '') continue;
        sequence.push(term);
        if (contentStems !== undefined && isContentWord(word)) contentStems.add(term);
      }
    } else sequence = termsOf(span.text);
    const sentencePrefixes = new Set(sequence.map(prefixOf));
    for (const term of sequence) terms.add(term);
    for (const prefix of sentencePrefixes) prefixes.add(prefix);
    sentences.push({
      start: span.start,
      end: span.end,
      sequence,
      terms: new Set(sequence),
      prefixes: sentencePrefixes,
      contentStems,
    });
  }
  return {
    text,
    sentences,
    terms,
    prefixes,
    numbers: numbersOf(text),
    lower: text.toLowerCase(),
    acronyms: new Set(acronymsOf(text)),
  };
}

const ASCII_TEXT = /^[\u0000-\u007f]*$/;
const ASCII_WORD = /[a-z0-9]+/g;
