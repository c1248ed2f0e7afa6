/**
 * The words of ASCII text seen so far, one number per distinct word and, per number, its
 * language-detection entry, whether it is an English stop word and its English index term
 * (computed on first need), in flat arrays. The analyser and the hashing embedder find a word
 * here once per text instead of once in the detection table and once in the stem cache (the
 * analyser), or once in the stop list and once in their own table (the embedder). Pure and
 * runtime-neutral; one table per module instance (per thread).
 * @module
 */
import { stem as englishStem, STOP_WORDS } from './english.js';
import { detectionMask, detectMasked, type LatinLanguage } from './language-detection.js';

/** Distinct words kept; the table is emptied when full (as the stem cache was). */
export const LEXICON_LIMIT = 100_000;

/** `flags` bit of an English stop word (bits 0–6: the detection languages). */
const STOP = 0x80;

let numbers = new Map<string, number>();
const words: string[] = [];
const terms: (string | undefined)[] = [];
let flags = new Uint8Array(1024);
let generation = 0;

/** Changes whenever the table is emptied: numbers of an older generation mean nothing. */
export function lexiconGeneration(): number {
  return generation;
}

/** Forgets every word (a new generation). */
export function clearLexicon(): void {
  numbers = new Map();
  words.length = 0;
  terms.length = 0;
  generation++;
}

/** The number of a lower-cased ASCII word, given on first sight. */
function numberOf(word: string): number {
  const found = numbers.get(word);
  if (found !== undefined) return found;
  if (numbers.size >= LEXICON_LIMIT) clearLexicon();
  const number = numbers.size;
  numbers.set(word, number);
  words.push(word);
  terms.push(undefined);
  if (number >= flags.length) {
    const grown = new Uint8Array(flags.length * 2);
    grown.set(flags);
    flags = grown;
  }
  flags[number] = detectionMask(word) | (STOP_WORDS.has(word) ? STOP : 0);
  return number;
}

/** The word of a number. */
export function lexiconWord(number: number): string {
  return words[number]!;
}

/** Whether the word of a number is an English stop word. */
export function isStopNumber(number: number): boolean {
  return (flags[number]! & STOP) !== 0;
}

/** The English index term of a word's number: its stem, or `''` for a stop word. */
export function englishTermOf(number: number): string {
  let term = terms[number];
  if (term === undefined) {
    term = flags[number]! & STOP ? '' : englishStem(words[number]!);
    terms[number] = term;
  }
  return term;
}

/** Numbers of the words of the text being analysed (reused; valid up to the count given). */
let scratch = new Int32Array(1024);

/** The numbers of a text's words, each looked up once, and the text's Latin language. */
export interface LexiconWords {
  /** Shared scratch space, valid until the next call: the first `words.length` are the text's. */
  readonly numbers: Int32Array;
  readonly language: LatinLanguage;
}

/**
 * The numbers of `words` (lower-cased ASCII words of one text) and the language detected from
 * them exactly as `latinLanguage(…, 'auto')` detects it.
 */
export function lexiconWords(text: readonly string[]): LexiconWords {
  const count = text.length;
  if (scratch.length < count) scratch = new Int32Array(Math.max(count, 2 * scratch.length));
  const list = scratch;
  for (let index = 0; index < count; index++) list[index] = numberOf(text[index]!);
  return { numbers: list, language: detectMasked(flags, list, count) };
}
