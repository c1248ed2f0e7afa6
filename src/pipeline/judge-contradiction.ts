/**
 * Offline contradiction checks of the grounding judge: a cited claim that states a quantity
 * the source states differently (another number, or the same number in another unit), or that
 * reverses the polarity of the source sentence it matches ("are never refunded" ↔ "are
 * refunded"). Each finding carries the source span that states it otherwise. Pure.
 *
 * @example
 * ```ts
 * const found = findContradiction(
 *   'Refunds are paid within 45 business days.',
 *   'Refunds are paid within 5 business days of the request.',
 * );
 * found?.kind; // 'number'
 * found?.evidence.text; // 'Refunds are paid within 5 business days of the request.'
 * ```
 * @module
 */
import { splitSentences } from '../text/sentences.js';
import { stem } from '../text/stem.js';
import { STOP_WORDS } from '../text/words.js';

/** How a claim contradicts its source. */
export type ContradictionKind = 'number' | 'unit' | 'entity' | 'negation';

/** A contradiction found between a claim and a source. */
export interface Contradiction {
  /** What differs: a number, the unit of a number, a name, or the polarity. */
  readonly kind: ContradictionKind;
  /** The source sentence that states it otherwise (offsets in the source text). */
  readonly evidence: { readonly start: number; readonly end: number; readonly text: string };
}

/** A number with what it counts. */
interface Quantity {
  /** Lowest value (the value itself unless a range). */
  readonly low: number;
  /** Highest value. */
  readonly high: number;
  /** Normalised unit (`day`, `%`, `€`, …) or ''. */
  readonly unit: string;
  /** Stems of the (up to two) content words after the number: what it counts. */
  readonly heads: readonly string[];
  /** Stems of the (up to two) content words before it ("within", "warranty"). */
  readonly before: readonly string[];
}

// Units, normalised, with the dimension they measure (a changed unit of one dimension
// contradicts; another dimension is another quantity).
const UNIT_DIMENSIONS: Readonly<Record<string, readonly [string, string]>> = {
  second: ['second', 'time'],
  minute: ['minute', 'time'],
  hour: ['hour', 'time'],
  day: ['day', 'time'],
  week: ['week', 'time'],
  month: ['month', 'time'],
  year: ['year', 'time'],
  '%': ['%', 'share'],
  percent: ['%', 'share'],
  percentage: ['%', 'share'],
  point: ['point', 'share'],
  mg: ['mg', 'mass'],
  g: ['g', 'mass'],
  gram: ['g', 'mass'],
  kg: ['kg', 'mass'],
  kilogram: ['kg', 'mass'],
  µg: ['µg', 'mass'],
  ug: ['µg', 'mass'],
  mm: ['mm', 'length'],
  cm: ['cm', 'length'],
  km: ['km', 'length'],
  kilometr: ['km', 'length'],
  kilometer: ['km', 'length'],
  mile: ['mile', 'length'],
  metr: ['m', 'length'],
  meter: ['m', 'length'],
  ml: ['ml', 'volume'],
  liter: ['l', 'volume'],
  litr: ['l', 'volume'],
  euro: ['€', 'money'],
  eur: ['€', 'money'],
  dollar: ['$', 'money'],
  usd: ['$', 'money'],
  cent: ['cent', 'money'],
  pound: ['£', 'money'],
  kb: ['kb', 'data'],
  mb: ['mb', 'data'],
  gb: ['gb', 'data'],
  token: ['token', 'count'],
  character: ['character', 'count'],
};
const ABBREVIATIONS: Readonly<Record<string, string>> = {
  s: 'second',
  sec: 'second',
  secs: 'second',
  min: 'minute',
  mins: 'minute',
  h: 'hour',
  hr: 'hour',
  hrs: 'hour',
  ms: 'millisecond',
  pp: 'point',
};
const CURRENCY: Readonly<Record<string, string>> = { $: '$', '€': '€', '£': '£' };
const MULTIPLIERS: ReadonlySet<string> = new Set([
  'hundred',
  'thousand',
  'million',
  'millions',
  'billion',
  'billions',
  'trillion',
]);

// A number or range with an optional currency before it and a % right after it.
const QUANTITY =
  /([$€£])?\s?(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?:\s?(?:-|–|to)\s?(\d+(?:\.\d+)?))?(\s?%)?/g;
// The next word, past spaces, hyphens, closing brackets and Markdown table or code marks.
const WORD = /^[\s\-|`*)\]]*([\p{L}µ]+)/u;

/** The unit (normalised) and dimension a word names, if any. */
function unitOf(word: string): readonly [string, string] | undefined {
  const lower = word.toLowerCase();
  const expanded = ABBREVIATIONS[lower] ?? lower;
  if (expanded === 'millisecond') return ['ms', 'time'];
  // Plurals: "minutes", "inches" (not "minut").
  return (
    UNIT_DIMENSIONS[expanded] ??
    UNIT_DIMENSIONS[expanded.replace(/s$/, '')] ??
    UNIT_DIMENSIONS[expanded.replace(/es$/, '')] ??
    UNIT_DIMENSIONS[stem(expanded)]
  );
}

/** Quantities of a text: each number with its unit and the words after it. */
function quantitiesOf(raw: string): Quantity[] {
  // A middle dot between digits is a decimal point ("3·0 million"); percentage points are
  // not percent.
  const text = raw.replace(/(\d)·(?=\d)/g, '$1.').replace(/%?\s?percentage[\s-]points?\b/gi, ' pp');
  const quantities: Quantity[] = [];
  for (const match of text.matchAll(QUANTITY)) {
    const index = match.index;
    // Part of a word or identifier ("IL-6", "COVID19"), a version, a date or a time of day:
    // not a quantity.
    const previous = text[index + match[0].indexOf(match[2]!) - 1] ?? ' ';
    if (/[\p{L}\d.\-/:]/u.test(previous) && match[1] === undefined) continue;
    // "BRCA 1", "Figure 2": a number naming the thing before it.
    if (match[1] === undefined && /\b(?:[A-Z]{2,}|[A-Z][a-z]+)\s$/.test(text.slice(0, index + 1))) {
      continue;
    }
    const low = Number(match[2]!.replace(/,/g, ''));
    const high = match[3] === undefined ? low : Number(match[3]);
    if (!Number.isFinite(low) || !Number.isFinite(high)) continue;
    let rest = text.slice(index + match[0].length);
    if (/^[\p{L}\d]/u.test(rest) && match[4] === undefined) continue;
    const heads: string[] = [];
    let unit = match[4] ? '%' : (CURRENCY[match[1] ?? ''] ?? '');
    for (let taken = 0; taken < 3 && heads.length < 2; taken++) {
      const word = WORD.exec(rest);
      if (!word) break;
      rest = rest.slice(word[0].length);
      const lower = word[1]!.toLowerCase();
      // "30 million cases" counts cases.
      if (MULTIPLIERS.has(lower)) continue;
      if (STOP_WORDS.has(lower)) {
        if (taken === 0) break;
        continue;
      }
      const named = unitOf(lower);
      if (named && unit === '') unit = named[0];
      heads.push(stem(lower));
    }
    // Words before the number in its clause.
    const clause =
      text
        .slice(Math.max(0, index - 60), index)
        .split(/[,;:()]/)
        .pop() ?? '';
    const before = (clause.match(/[\p{L}]+/gu) ?? [])
      .map((word) => word.toLowerCase())
      .filter((word) => !STOP_WORDS.has(word))
      .slice(-2)
      .map(stem);
    quantities.push({ low: Math.min(low, high), high: Math.max(low, high), unit, heads, before });
  }
  return quantities;
}

const dimensionOf = (unit: string): string | undefined =>
  Object.values(UNIT_DIMENSIONS).find(([name]) => name === unit)?.[1] ??
  (unit === 'ms' ? 'time' : undefined);

/** A bare whole number from 1800 to 2100 is most likely a year. */
const isYear = (quantity: Quantity): boolean =>
  quantity.unit === '' &&
  quantity.low === quantity.high &&
  Number.isInteger(quantity.low) &&
  quantity.low >= 1800 &&
  quantity.low <= 2100;

const overlaps = (a: Quantity, b: Quantity): boolean => a.low <= b.high && b.low <= a.high;

/**
 * Whether two quantities measure the same thing: the same unit (or none) and a shared word
 * after the number ("within 45 business days" ↔ "within 5 business days"), or, when neither
 * has one, before it.
 */
function sameQuantity(a: Quantity, b: Quantity): boolean {
  if (a.unit !== b.unit || isYear(a) !== isYear(b)) return false;
  // What a number counts decides — the word right after it, or the noun one of them qualifies
  // ("5 business days" ↔ "5 days", not "6 user messages" ↔ "6 recent messages"); the words
  // before it only when neither says.
  if (a.heads.length > 0 || b.heads.length > 0) {
    const [first, second] = a.heads;
    const [otherFirst, otherSecond] = b.heads;
    if (first === undefined || otherFirst === undefined) return false;
    return first === otherFirst || first === otherSecond || second === otherFirst;
  }
  return a.before.some((word) => b.before.includes(word));
}

/** Both have units, different ones, of the same dimension. */
function sameDimension(a: Quantity, b: Quantity): boolean {
  if (a.unit === '' || b.unit === '' || a.unit === b.unit) return false;
  const dimension = dimensionOf(a.unit);
  return dimension !== undefined && dimension === dimensionOf(b.unit);
}

/**
 * Whether the source gives the quantity's value only with other units of its dimension: every
 * mention of the value has a unit, and none the quantity's own.
 */
function otherUnitOnly(quantity: Quantity, sentences: readonly AnalysedSentence[]): boolean {
  if (quantity.unit === '' || dimensionOf(quantity.unit) === undefined) return false;
  let found = false;
  for (const sentence of sentences) {
    for (const other of sentence.quantities) {
      if (!overlaps(quantity, other)) continue;
      if (!sameDimension(quantity, other)) return false;
      found = true;
    }
  }
  return found;
}

/** Same value, another unit of the same dimension ("14 days" ↔ "14 weeks", "5 %" ↔ "5 points"). */
function unitChanged(a: Quantity, b: Quantity): boolean {
  if (a.unit === '' || b.unit === '' || a.unit === b.unit) return false;
  const dimension = dimensionOf(a.unit);
  if (dimension === undefined || dimension !== dimensionOf(b.unit) || !overlaps(a, b)) return false;
  return a.before.some((word) => b.before.includes(word));
}

// Words that negate the statement they stand in.
const NEGATOR = /^(?:not|no|never|none|neither|nor|cannot|without|nothing|nobody)$|n't$/;
// Negators at most this many words before a term negate it.
const NEGATION_REACH = 2;

interface Token {
  readonly word: string;
  readonly stem: string;
  readonly negator: boolean;
}

function tokensOf(text: string): Token[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+(?:'t)?/gu) ?? []).map((word) => ({
    word,
    stem: stem(word),
    negator: NEGATOR.test(word),
  }));
}

const contentStems = (tokens: readonly Token[]): Set<string> =>
  new Set(
    tokens
      .filter((token) => !token.negator && !STOP_WORDS.has(token.word) && !/^\d/.test(token.word))
      .map((token) => token.stem),
  );

/** Whether a negator stands before one of the given terms (within the reach) in the tokens. */
function negates(tokens: readonly Token[], terms: ReadonlySet<string>): boolean {
  return tokens.some(
    (token, index) =>
      token.negator &&
      tokens
        .slice(index + 1, index + 1 + NEGATION_REACH)
        .some((next) => terms.has(next.stem) && !next.negator),
  );
}

const RAW_WORD = /[\p{L}\p{N}][\p{L}\p{N}-]*/gu;
// An acronym or code ("BBB", "Gpr124", "IL-6"): two capitals or digits.
const ACRONYM_LIKE = /^[A-Z](?=(?:[^A-Z0-9]*[A-Z0-9]){1})[A-Za-z0-9-]*$/;
const CAPITALISED = /^[A-Z][a-z]+$/;

/** Whether the word at this position of its sentence names something. */
function isEntity(word: string, position: number): boolean {
  // An all-capital word of six letters or more is a heading ("CONCLUSION"), not a name.
  if (/^[A-Z]{6,}$/.test(word)) return false;
  return (ACRONYM_LIKE.test(word) && word.length >= 2) || (position > 0 && CAPITALISED.test(word));
}

/** Whether the word stands in brackets in the claim: "(BIR)". */
function claimAbbreviation(claim: string, word: string): boolean {
  return claim.includes(`(${word})`);
}

/**
 * A name of the claim the source never mentions, where a sentence about the claim has another
 * name in its place: next to the same content word ("the Berlin office" ↔ "the Utrecht office").
 */
function swappedEntity<T extends SourceSentence & { share: number }>(
  claim: string,
  sourceText: string,
  spans: readonly T[],
): T | undefined {
  const words = claim.match(RAW_WORD) ?? [];
  const lowerSource = sourceText.toLowerCase();
  // Letters and digits only, to find "Th2" in "T(H)2".
  const compactSource = lowerSource.replace(/[^\p{L}\p{N}]+/gu, '');
  const claimWords = new Set(words.map((word) => word.toLowerCase()));
  // The neighbour that anchors the alignment: a content word, not a name itself.
  const anchor = (position: number): string | undefined => {
    const word = words[position];
    if (word === undefined || isEntity(word, position)) return undefined;
    const lower = word.toLowerCase();
    return STOP_WORDS.has(lower) || /^\d/.test(word) ? undefined : lower;
  };
  for (let index = 0; index < words.length; index++) {
    const word = words[index]!;
    if (!isEntity(word, index)) continue;
    // Found as a whole or by a part ("Sf1-expressing" ↔ "SF1"); an abbreviation in brackets
    // only defines the words before it.
    const parts = word.split('-').filter((part) => part.length >= 2);
    if (parts.some((part) => lowerSource.includes(part.toLowerCase()))) continue;
    if (compactSource.includes(word.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ''))) continue;
    if (claimAbbreviation(claim, word)) continue;
    const before = anchor(index - 1);
    const after = anchor(index + 1);
    const lowerWord = word.toLowerCase();
    const acronym = ACRONYM_LIKE.test(word);
    for (const span of spans) {
      if (span.share < ABOUT_SHARE) continue;
      const sentence = span.text.match(RAW_WORD) ?? [];
      // In a title every word is capitalised: no names to align.
      const capitalised = sentence.filter((token) => /^[A-Z]/.test(token)).length;
      if (capitalised > sentence.length / 2) continue;
      const other = (position: number): boolean => {
        const candidate = sentence[position];
        if (candidate === undefined || !isEntity(candidate, position)) return false;
        const lower = candidate.toLowerCase();
        // A variant spelling ("SRI" for "SSRI") is not another name.
        return !claimWords.has(lower) && !lowerWord.includes(lower) && !lower.includes(lowerWord);
      };
      const found = sentence.some((token, position) => {
        const lower = token.toLowerCase();
        return (
          (before !== undefined && lower === before && other(position + 1)) ||
          (after !== undefined && lower === after && other(position - 1)) ||
          // A sentence stating nearly all the rest of the claim, with another name of the same
          // kind (an acronym for an acronym) the claim does not have.
          (span.share >= SWAP_SHARE && other(position) && ACRONYM_LIKE.test(token) === acronym)
        );
      });
      if (found) return span;
    }
  }
  return undefined;
}

/**
 * A sentence stating the rest of the claim (≥ `REPLACED_SHARE` of its content terms besides
 * the names the source never states) with a name of the same kind the claim does not have:
 * "… much weaker than EBI2 (SciFact …)" against "… much weaker than BGE (SciFact …)".
 */
function replacedEntity(
  claim: string,
  claimTerms: ReadonlySet<string>,
  novelNames: readonly string[],
  sentences: readonly AnalysedSentence[],
): AnalysedSentence | undefined {
  if (novelNames.length === 0) return undefined;
  const novelTerms = new Set(tokensOf(novelNames.join(' ')).map((token) => token.stem));
  const rest = [...claimTerms].filter((term) => !novelTerms.has(term));
  if (rest.length < REPLACED_MIN_TERMS) return undefined;
  const kinds = new Set(novelNames.map((name) => ACRONYM_LIKE.test(name)));
  let best: { sentence: AnalysedSentence; share: number } | undefined;
  for (const sentence of sentences) {
    let shared = 0;
    for (const term of rest) if (sentence.terms.has(term)) shared++;
    const share = shared / rest.length;
    if (share >= REPLACED_SHARE && (!best || share > best.share)) best = { sentence, share };
  }
  if (!best) return undefined;
  const words = best.sentence.text.match(RAW_WORD) ?? [];
  // In a title every word is capitalised: no names to align.
  if (words.filter((word) => /^[A-Z]/.test(word)).length > words.length / 2) return undefined;
  // The claim's words around each novel name: the other name must stand between the same ones.
  const claimWords = (claim.match(RAW_WORD) ?? []).map((word) => word.toLowerCase());
  const slots = novelNames.flatMap((name) => {
    const at = claimWords.indexOf(name.toLowerCase());
    return at < 0 ? [] : [{ before: claimWords[at - 1], after: claimWords[at + 1] }];
  });
  const other = words.some((word, position) => {
    if (!isEntity(word, position) || !kinds.has(ACRONYM_LIKE.test(word))) return false;
    // (The other name may appear elsewhere in the claim: "than EBI2 … BM25's best hits".)
    const lower = word.toLowerCase();
    if (novelNames.some((name) => name.toLowerCase().includes(lower))) return false;
    const before = words[position - 1]?.toLowerCase();
    const after = words[position + 1]?.toLowerCase();
    return slots.some(
      (slot) =>
        (slot.before !== undefined && slot.before === before) ||
        (slot.after !== undefined && slot.after === after),
    );
  });
  return other ? best.sentence : undefined;
}

/** Least share of the rest of a claim a sentence states to align a replaced name. */
const REPLACED_SHARE = 0.8;
/** Least number of other content terms a claim needs to align a replaced name. */
const REPLACED_MIN_TERMS = 3;

/** Least share of the claim's content terms a source sentence contains to be about the claim. */
const ABOUT_SHARE = 0.5;
/** Least share of a sentence stating the rest of a claim whose name is swapped. */
const SWAP_SHARE = 0.7;
/** Least share of a sentence about a negated claim. */
const NEGATED_CLAIM_SHARE = 0.5;
// Content words at most this many words after a negator of the claim are what it negates.
const GOVERNED_REACH = 3;
/** Least share of a sentence that states the claim nearly word for word. */
const VERBATIM_SHARE = 0.9;
// A negator of the source at most this many words before a governed term negates it.
const LOCAL_NEGATION_REACH = 4;
/** Least share for a polarity reversal: the sentence must state (nearly) the claim itself. */
const NEGATION_SHARE = 0.75;

interface SourceSentence {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

/** A source sentence analysed once for any number of claims. */
interface AnalysedSentence extends SourceSentence {
  readonly tokens: readonly Token[];
  readonly terms: ReadonlySet<string>;
  readonly quantities: readonly Quantity[];
}

// Analysed sources of recent claims: an answer cites the same few sources sentence after sentence.
const ANALYSED_CACHE_SIZE = 500;
const analysedCache = new Map<string, readonly AnalysedSentence[]>();

function analyse(
  sourceText: string,
  sentences: readonly { readonly start: number; readonly end: number }[],
): readonly AnalysedSentence[] {
  const cached = analysedCache.get(sourceText);
  if (cached && cached.length === sentences.length) return cached;
  const analysed = sentences.map(({ start, end }) => {
    const text = sourceText.slice(start, end);
    const tokens = tokensOf(text);
    return {
      start,
      end,
      text,
      tokens,
      terms: contentStems(tokens),
      quantities: quantitiesOf(text),
    };
  });
  if (analysedCache.size >= ANALYSED_CACHE_SIZE) {
    analysedCache.delete(analysedCache.keys().next().value!);
  }
  analysedCache.set(sourceText, analysed);
  return analysed;
}

/**
 * The first contradiction of a claim by a source, or null: a number of the claim that the
 * source states with another value for the same quantity (same unit, or the same word after
 * it) in a sentence about the claim, while no statement of the source gives the claim's value
 * for it; the claim's number with another unit of the same dimension; or a sentence that states
 * the claim with a negation only one of them has. `sentences` are the source's sentence spans
 * (split here when omitted).
 */
export function findContradiction(
  claim: string,
  sourceText: string,
  sentences: readonly { readonly start: number; readonly end: number }[] = splitSentences(
    sourceText,
  ),
  novelNames: readonly string[] = [],
): Contradiction | null {
  const claimTokens = tokensOf(claim);
  const claimTerms = contentStems(claimTokens);
  if (claimTerms.size === 0) return null;
  const analysed = analyse(sourceText, sentences);
  // Only sentences about the claim can contradict it: keep those, with their share.
  const spans: (AnalysedSentence & { share: number })[] = [];
  for (const sentence of analysed) {
    let shared = 0;
    for (const term of claimTerms) if (sentence.terms.has(term)) shared++;
    const share = shared / claimTerms.size;
    if (share >= ABOUT_SHARE) spans.push({ ...sentence, share });
  }
  if (spans.length === 0) return null;
  const evidence = (span: SourceSentence) => ({
    start: span.start,
    end: span.end,
    text: span.text,
  });

  const claimQuantities = quantitiesOf(claim);
  if (claimQuantities.length > 0) {
    const sourceQuantities = spans.map((span) => span.quantities);
    for (const quantity of claimQuantities) {
      const stated = analysed.some((sentence) =>
        sentence.quantities.some(
          (other) => sameQuantity(quantity, other) && overlaps(quantity, other),
        ),
      );
      if (stated) continue;
      // The claim's value with another unit of the same dimension: after the same word, or
      // the only unit the source ever gives that value ("for 4 hours" against "for 4 days").
      const onlyOtherUnit = otherUnitOnly(quantity, analysed);
      const unitIndex = spans.findIndex(
        (span, index) =>
          span.share >= ABOUT_SHARE &&
          sourceQuantities[index]!.some(
            (other) =>
              unitChanged(quantity, other) ||
              (onlyOtherUnit && sameDimension(quantity, other) && overlaps(quantity, other)),
          ),
      );
      if (unitIndex >= 0) return { kind: 'unit', evidence: evidence(spans[unitIndex]!) };
      // Another value for the same quantity, in a sentence about the claim.
      const valueIndex = spans.findIndex(
        (span, index) =>
          span.share >= ABOUT_SHARE &&
          sourceQuantities[index]!.some(
            (other) => sameQuantity(quantity, other) && !overlaps(quantity, other),
          ),
      );
      if (valueIndex >= 0) return { kind: 'number', evidence: evidence(spans[valueIndex]!) };
    }
  }

  const swapped =
    swappedEntity(claim, sourceText, spans) ??
    replacedEntity(claim, claimTerms, novelNames, analysed);
  if (swapped) return { kind: 'entity', evidence: evidence(swapped) };

  // Polarity. A negated claim ("are not refunded") is contradicted when the sentences about it
  // that contain what it negates never negate anything; an affirmative one when the sentence
  // that states it most fully negates one of its terms.
  // A sentence stating (nearly) the whole claim decides the polarity alone: each negator on
  // either side must be matched on the other ("is not stored …, so no later failure" against
  // "is stored …, so no later failure"; "is cut" against "is never cut").
  let closest: (typeof spans)[number] | undefined;
  for (const span of spans) if (!closest || span.share > closest.share) closest = span;
  if (closest && closest.share >= VERBATIM_SHARE) {
    const unmatched = (tokens: readonly Token[]) => (group: ReadonlySet<string>) =>
      tokens.some((token) => group.has(prefixOf(token.stem))) && !negatesGoverned(tokens, group);
    if (
      governedGroups(claimTokens).some(unmatched(closest.tokens)) ||
      governedGroups(closest.tokens).some(unmatched(claimTokens))
    ) {
      return { kind: 'negation', evidence: evidence(closest) };
    }
    return null;
  }

  const governed = governedTerms(claimTokens);
  if (governed.size > 0) {
    let stating: (typeof spans)[number] | undefined;
    let negatedSomewhere = false;
    for (const span of spans) {
      if (span.share < NEGATED_CLAIM_SHARE) continue;
      if (!span.tokens.some((token) => governed.has(prefixOf(token.stem)))) continue;
      if (span.tokens.some((token) => token.negator || NEGATIVE_WORD.test(token.word))) {
        negatedSomewhere = true;
      }
      if (!stating || span.share > stating.share) stating = span;
    }
    if (stating && !negatedSomewhere) return { kind: 'negation', evidence: evidence(stating) };
    return null;
  }
  let best: (typeof spans)[number] | undefined;
  for (const span of spans) if (!best || span.share > best.share) best = span;
  if (best && best.share >= NEGATION_SHARE && negates(best.tokens, claimTerms)) {
    return { kind: 'negation', evidence: evidence(best) };
  }
  return null;
}

// Words that state an absence or a failure without a negator.
const NEGATIVE_WORD =
  /^(?:lack\w*|fail(?:s|ed|ing)?|absen(?:t|ce)|unable|unaffected|unchanged|insignificant|nonsignificant|non-significant|independent\w*)$/;

const prefixOf = (term: string): string => term.slice(0, 5);

/**
 * Whether a sentence negates what a negator of the claim governs: a negator at most
 * `LOCAL_NEGATION_REACH` words before one of the governed terms ("is not stored"), or a word of
 * absence or failure that close on either side ("stored … failed") — a negation elsewhere in a
 * long sentence ("so no later failure loses it") is about something else.
 */
function negatesGoverned(tokens: readonly Token[], governed: ReadonlySet<string>): boolean {
  return tokens.some((token, index) => {
    if (!governed.has(prefixOf(token.stem))) return false;
    const from = Math.max(0, index - LOCAL_NEGATION_REACH);
    return (
      tokens.slice(from, index).some((other) => other.negator) ||
      tokens
        .slice(from, index + 1 + LOCAL_NEGATION_REACH)
        .some((other) => NEGATIVE_WORD.test(other.word))
    );
  });
}

/** Prefixes of the claim terms each of its negators governs ("not associated" → "assoc"). */
function governedGroups(tokens: readonly Token[]): Set<string>[] {
  const groups: Set<string>[] = [];
  tokens.forEach((token, index) => {
    if (!token.negator) return;
    const group = new Set<string>();
    for (const next of tokens.slice(index + 1, index + 1 + GOVERNED_REACH)) {
      if (next.negator || STOP_WORDS.has(next.word)) continue;
      group.add(prefixOf(next.stem));
    }
    if (group.size > 0) groups.push(group);
  });
  return groups;
}

/** Prefixes of the claim terms its negators govern, all together. */
function governedTerms(tokens: readonly Token[]): Set<string> {
  return new Set(governedGroups(tokens).flatMap((group) => [...group]));
}
