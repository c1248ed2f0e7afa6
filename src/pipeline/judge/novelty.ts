/**
 * Novelty and polarity signals of the grounding judge: what a cited claim says that its source
 * never states in any form — a name (an acronym or code, a capitalised word), a number — and a
 * claim whose negation or direction ("increases" ↔ "reduces") the sentences about it do not
 * share. Each is a feature of the support score (`features.ts`), not a verdict by itself: a claim
 * may legitimately name what its source spells out ("VSMCs" ↔ "vascular smooth muscle cells",
 * checked here) or paraphrase a negation. Pure.
 *
 * @example
 * ```ts
 * const source = prepareSource('Refunds are handled by the Utrecht team within 5 days.');
 * novelName('Refunds are handled by the Berlin team.', source); // 'Berlin'
 * novelNumber('Refunds are handled within 45 days.', source); // '45'
 * ```
 * @module
 */
import { ruleOff } from './rules.js';

/** What the novelty checks need of an analysed source (`PreparedSource` has it). */
export interface NoveltySource {
  /** The source text. */
  readonly text: string;
  /** The text lower-cased. */
  readonly lower: string;
  /** Its sentences: offsets and stemmed content terms. */
  readonly sentences: readonly {
    readonly start: number;
    readonly end: number;
    readonly terms: ReadonlySet<string>;
  }[];
}

/**
 * Facts of a source, each computed on first need, once per analysed source (most claims need
 * none or one of them: a name stated as is needs none, a claim without numbers no values).
 */
interface SourceFacts {
  /** Letters and digits only, lower-cased ("T(H)2" → "th2"). */
  compact?: string;
  /** Initials of its words, in order (to find "vsmc" in "vascular smooth muscle cells"). */
  initials?: string;
  /** Every number it states: digits (each part of "3.5" and "1,000" too) and number words. */
  values?: ReadonlySet<number>;
}

const facts = new WeakMap<NoveltySource, SourceFacts>();

function factsOf(source: NoveltySource): SourceFacts {
  let found = facts.get(source);
  if (found === undefined) {
    found = {};
    facts.set(source, found);
  }
  return found;
}

/** The source's letters and digits, lower-cased. */
function compactFact(source: NoveltySource): string {
  const found = factsOf(source);
  return (found.compact ??= compactOf(source.text));
}

/** The initials of the source's words, in order. */
function initialsFact(source: NoveltySource): string {
  const found = factsOf(source);
  return (found.initials ??= (source.lower.match(/\p{L}+/gu) ?? [])
    .map((word) => word[0])
    .join(''));
}

/** Every number the source states. */
function valuesFact(source: NoveltySource): ReadonlySet<number> {
  const found = factsOf(source);
  const words = !ruleOff['novelty.number-words'];
  if (found.values !== undefined && words) return found.values;
  const values = new Set<number>();
  for (const match of source.text.matchAll(/\d+(?:[.,·]\d+)*/g)) {
    const raw = match[0].replace(/·/g, '.');
    values.add(Number(raw.replace(/,/g, '')));
    for (const part of raw.split(/[.,]/)) values.add(Number(part));
  }
  // The number words among the source's words (whole runs of letters), found without cutting
  // out every word.
  // (Switched off, the digits alone, not kept.)
  if (!words) return values;
  for (const match of source.lower.matchAll(NUMBER_WORD)) values.add(NUMBER_WORDS[match[0]]!);
  return (found.values = values);
}

const NUMBER_WORDS: Readonly<Record<string, number>> = {
  zero: 0,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  fifteen: 15,
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  hundred: 100,
  thousand: 1000,
  half: 50,
  single: 1,
  once: 1,
  twice: 2,
  double: 2,
  i: 1,
  ii: 2,
  iii: 3,
  iv: 4,
};

// Any of the number words as a whole run of letters.
const NUMBER_WORD = new RegExp(
  `(?<!\\p{L})(?:${Object.keys(NUMBER_WORDS).join('|')})(?!\\p{L})`,
  'gu',
);

const compactOf = (text: string): string => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');

// ---------------------------------------------------------------------------------------------
// Names

const TOKEN = /[\p{L}\p{N}][\p{L}\p{N}+\-/]*[\p{L}\p{N}]|[\p{L}\p{N}]/gu;
const SEPARATOR = /[-+/]/;
const NO_NAMES: readonly string[] = [];
const capitalsAndDigits = (token: string): number => token.match(/[A-Z0-9]/g)?.length ?? 0;

/** An acronym or code: letters with two capitals or digits ("BBB", "Gpr124", "IL-6"), not a heading. */
const isAcronym = (token: string): boolean =>
  /[A-Z]/.test(token) && capitalsAndDigits(token) >= 2 && !/^[A-Z]{6,}$/.test(token);
const isCapitalised = (token: string): boolean => /^[A-Z][a-z]{2,}$/.test(token);

/** Lower-case letters of an abbreviation, without a plural s. */
const lettersOf = (token: string): string =>
  token
    .toLowerCase()
    .replace(/[^a-z]/g, '')
    .replace(/s$/, '');

/** An abbreviation in brackets whose letters spell the words before it: "diastolic blood pressure (DBP)". */
function definedBefore(claim: string, token: string): boolean {
  const at = claim.indexOf(`(${token}`);
  if (at < 0) return false;
  const letters = lettersOf(token);
  if (letters.length < 2) return false;
  const before =
    claim
      .slice(Math.max(0, at - 80), at)
      .toLowerCase()
      .match(/[a-z]+/g) ?? [];
  for (let start = Math.max(0, before.length - 8); start < before.length; start++) {
    if (before[start]![0] !== letters[0]) continue;
    const rest = before.slice(start).join(' ');
    let matched = 1;
    for (let index = 1; index < rest.length && matched < letters.length; index++) {
      if (rest[index] === letters[matched]) matched++;
    }
    if (matched === letters.length) return true;
  }
  return false;
}

/** An acronym of three letters or more that the source spells out as consecutive words' initials. */
function spelledOut(token: string, source: NoveltySource): boolean {
  const letters = lettersOf(token);
  if (ruleOff['novelty.spelled-out']) return false;
  return letters.length >= 3 && isAcronym(token) && initialsFact(source).includes(letters);
}

/** Whether the source states a name in any form: as is, without punctuation, or spelled out. */
function stated(name: string, source: NoveltySource): boolean {
  const lower = name.toLowerCase();
  if (
    source.lower.includes(lower) ||
    (!ruleOff['novelty.compact-form'] && compactFact(source).includes(compactOf(name)))
  ) {
    return true;
  }
  return spelledOut(name, source);
}

/**
 * The first name of the claim its source never states in any form, or undefined: an acronym
 * or code, or a capitalised word after the first; in a compound ("PD-1+Eomes+CD8") each
 * acronym part. An abbreviation the claim defines ("diastolic blood pressure (DBP)") and an
 * acronym the source spells out ("VSMCs" ↔ "vascular smooth muscle cells") count as stated.
 */
export function novelName(claim: string, source: NoveltySource): string | undefined {
  return novelNames(claim, source)[0];
}

/** Every name of the claim its source never states in any form (see `novelName`). */
export function novelNames(claim: string, source: NoveltySource): string[] {
  const novel: string[] = [];
  const tokens = claim.match(TOKEN) ?? [];
  for (let index = 0; index < tokens.length; index++) {
    const token = tokens[index]!;
    // Only a token with a separator can be a compound (most are not: no split for them).
    const parts = SEPARATOR.test(token)
      ? token.split(/[-+/]/).filter((part) => part.length >= 2)
      : [];
    const compound = parts.length > 1;
    const names = compound ? parts.filter(isAcronym) : NO_NAMES;
    const isName =
      isAcronym(token) ||
      (index > 0 && !ruleOff['novelty.capitalised-names'] && isCapitalised(token));
    if (!isName && names.length === 0) continue;
    if (stated(token, source)) continue;
    if (!ruleOff['novelty.defined-before'] && definedBefore(claim, token)) continue;
    if (
      !ruleOff['novelty.compound-parts'] &&
      compound &&
      names.every((part) => stated(part, source))
    ) {
      continue;
    }
    novel.push(token);
  }
  return novel;
}

// ---------------------------------------------------------------------------------------------
// Numbers

// A number standing alone (not inside an identifier such as "IL-6" or "BRCA1").
const NUMBER = /(?<![\p{L}\d.,\-·/])(\d+(?:[.,]\d+)?)(?![\p{L}\d]|[.,·]\d)/gu;

/**
 * The first number of the claim its source never states (as digits, or as a word: "three",
 * "twice", "II"); undefined when every number is stated. (A number naming what it follows,
 * "Type 5" where the source has only "Type 1", is a contradiction: `renamedNumber`.)
 */
export function novelNumber(claim: string, source: NoveltySource): string | undefined {
  for (const match of claim.matchAll(NUMBER)) {
    const raw = match[1]!;
    const value = Number(raw.replace(/,(?=\d{3}\b)/g, '').replace(',', '.'));
    if (!valuesFact(source).has(value)) return raw;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Polarity and direction

// Words that negate the statement they stand in.
const NEGATOR = /^(?:not|no|never|none|neither|nor|cannot|without|nothing|nobody)$|n't$/;
// Words of an increase and of a decrease.
const UP =
  /^(?:increas\w*|higher|elevat\w*|enhanc\w*|promot\w*|augment\w*|stimulat\w*|rais(?:e|es|ed|ing)|upregulat\w*|accelerat\w*|boost\w*|greater|positively|gain\w*|ris(?:e|es|ing)|exacerbat\w*|worsen\w*|more)$/;
const DOWN =
  /^(?:decreas\w*|lower\w*|reduc\w*|diminish\w*|inhibit\w*|suppress\w*|attenuat\w*|downregulat\w*|impair\w*|imped\w*|prevent\w*|less|fewer|negatively|loss|los(?:e|es|ing)|declin\w*|protect\w*|abolish\w*|block\w*)$/;
const WORDS = /[\p{L}\p{N}]+(?:'t)?/gu;
/** Least share of the claim's content terms a source sentence has to be about the claim. */
const ABOUT_SHARE = 0.4;
/** Sentences about the claim looked at, best first. */
const ABOUT_COUNT = 3;
// Negators at most this many words before a direction word reverse it.
const REVERSE_REACH = 3;

const wordsOf = (text: string): string[] => text.toLowerCase().match(WORDS) ?? [];

/** The direction a text states: +1 an increase, -1 a decrease, 0 none or both (negators reverse). */
function directionOf(words: readonly string[]): number {
  let sum = 0;
  words.forEach((word, index) => {
    const value = UP.test(word) ? 1 : DOWN.test(word) ? -1 : 0;
    if (value === 0) return;
    const reversed =
      !ruleOff['feature.direction-reversal'] &&
      words.slice(Math.max(0, index - REVERSE_REACH), index).some((other) => NEGATOR.test(other));
    sum += reversed ? -value : value;
  });
  return Math.sign(sum);
}

/** Polarity signals of a claim against its source, each 0 or 1. */
export interface PolaritySignals {
  /** The claim negates ("not", "no", "never", "without", "n't") and no sentence about it negates anything. */
  readonly negationUnmatched: number;
  /** The claim states a direction (an increase or a decrease) and the sentences about it only the opposite one. */
  readonly directionMismatch: number;
}

/**
 * Polarity signals: a negated claim none of whose sentences about it (the best three with
 * ≥ 40 % of its content terms) negates anything — or none of which is about it at all; a claim
 * stating an increase (or a decrease) where the two best sentences about it state only the
 * opposite.
 */
export function polaritySignals(
  claim: string,
  claimTerms: readonly string[],
  source: NoveltySource,
): PolaritySignals {
  const claimWords = wordsOf(claim);
  const negated = claimWords.some((word) => NEGATOR.test(word));
  const direction = directionOf(claimWords);
  if (!negated && direction === 0) return { negationUnmatched: 0, directionMismatch: 0 };
  const terms = [...new Set(claimTerms.filter((term) => !/^\d/.test(term) && !NEGATOR.test(term)))];
  const about: { share: number; start: number; end: number }[] = [];
  if (terms.length > 0) {
    for (const sentence of source.sentences) {
      let shared = 0;
      for (const term of terms) if (sentence.terms.has(term)) shared++;
      const share = shared / terms.length;
      if (share >= ABOUT_SHARE) about.push({ share, start: sentence.start, end: sentence.end });
    }
  }
  about.sort((a, b) => b.share - a.share);
  const best = about
    .slice(0, ABOUT_COUNT)
    .map((sentence) => wordsOf(source.text.slice(sentence.start, sentence.end)));
  const negationUnmatched =
    negated && !best.some((words) => words.some((word) => NEGATOR.test(word))) ? 1 : 0;
  let directionMismatch = 0;
  if (direction !== 0 && best.length > 0 && !ruleOff['feature.direction-mismatch']) {
    const directions = best.slice(0, 2).map(directionOf);
    if (!directions.includes(direction) && directions.includes(-direction)) directionMismatch = 1;
  }
  return { negationUnmatched, directionMismatch };
}
