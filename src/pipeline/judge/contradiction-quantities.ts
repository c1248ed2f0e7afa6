/**
 * Quantities for the contradiction checks of the grounding judge: each number of a text with
 * its unit (normalised, with the dimension it measures), the words it counts and the words
 * before it, and the comparisons between two quantities — the same thing measured, the same
 * dimension, the same value in another unit. Pure.
 * @module
 */
import { stem } from '../../text/stem.js';
import { STOP_WORDS } from '../../text/words.js';
import { ruleOff } from './rules.js';

/** A number with what it counts. */
export interface Quantity {
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

const HAS_DIGIT = /\d/;

/** Quantities of a text: each number with its unit and the words after it. */
export function quantitiesOf(raw: string): Quantity[] {
  // Every quantity has a digit (the rewrites below add none): most sentences state none.
  if (!HAS_DIGIT.test(raw)) return [];
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

/** The dimension of a normalised unit (`time`, `share`, `money`, …), if known. */
export const dimensionOf = (unit: string): string | undefined =>
  Object.values(UNIT_DIMENSIONS).find(([name]) => name === unit)?.[1] ??
  (unit === 'ms' ? 'time' : undefined);

/** Whether two quantities' value ranges overlap. */
export const overlaps = (a: Quantity, b: Quantity): boolean => a.low <= b.high && b.low <= a.high;

/**
 * Whether two quantities measure the same thing: the same unit (or none) and a shared word
 * after the number ("within 45 business days" ↔ "within 5 business days"), or, when neither
 * has one, before it.
 */
export function sameQuantity(a: Quantity, b: Quantity): boolean {
  if (a.unit !== b.unit) return false;
  // What a number counts decides — the word right after it, or the noun one of them qualifies
  // ("5 business days" ↔ "5 days", not "6 user messages" ↔ "6 recent messages"); the words
  // before it only when neither says.
  if (a.heads.length > 0 || b.heads.length > 0) {
    const [first, second] = a.heads;
    const [otherFirst, otherSecond] = b.heads;
    if (first === undefined || otherFirst === undefined) return false;
    return first === otherFirst || first === otherSecond || second === otherFirst;
  }
  if (ruleOff['contradiction.words-before']) return false;
  return a.before.some((word) => b.before.includes(word));
}

/** Both have units, different ones, of the same dimension. */
export function sameDimension(a: Quantity, b: Quantity): boolean {
  if (a.unit === '' || b.unit === '' || a.unit === b.unit) return false;
  const dimension = dimensionOf(a.unit);
  return dimension !== undefined && dimension === dimensionOf(b.unit);
}

// A number standing alone (not inside an identifier such as "IL-6" or "BRCA1").
const NAMED_NUMBER = /(?<![\p{L}\d.,\-·/])(\d+(?:\.\d+)?)(?![\p{L}\d]|[.,·]\d)/gu;

/**
 * A number that names what it follows ("Type 5", "kinase 3", "BRCA 2"), where the source
 * gives that word only other numbers: the offset of the source's first "word number", or -1.
 * Each such number of the claim must be stated after its word somewhere in the source.
 */
export function renamedNumber(claim: string, sourceText: string): number {
  for (const match of claim.matchAll(NAMED_NUMBER)) {
    const word = /(?<!\p{L})(\p{L}{2,})[\s-]$/u.exec(
      claim.slice(Math.max(0, match.index - 30), match.index),
    );
    if (!word || STOP_WORDS.has(word[1]!.toLowerCase())) continue;
    const value = Number(match[1]);
    const named = new RegExp(
      `(?<![\\p{L}])${word[1]!}[\\s-](\\d+(?:\\.\\d+)?)(?![\\d.]?\\d)`,
      'giu',
    );
    let first = -1;
    let same = false;
    for (const found of sourceText.matchAll(named)) {
      if (first < 0) first = found.index;
      if (Number(found[1]) === value) same = true;
    }
    if (first >= 0 && !same) return first;
  }
  return -1;
}
