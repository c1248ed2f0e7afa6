/**
 * The words of ASCII text seen so far, one record per distinct word: its language-detection
 * entry, whether it is an English stop word, and its English index term (computed on first
 * need). The analyser and the hashing embedder find a word here once per text instead of once
 * in the detection table, once in the stem cache, once in the stop list and once in the
 * embedder's feature table (issue 27: the same words of a chunk were looked up two or three
 * times per analysis). Pure and runtime-neutral; one table per module instance (per thread).
 * @module
 */
import { stem as englishStem, STOP_WORDS } from './english.js';
import { detectionEntry, detectWords, type LatinLanguage } from './language-detection.js';

/** One distinct lower-cased ASCII word. */
export interface WordEntry {
  /** Dense number of the word within the table's current {@link lexiconGeneration}. */
  readonly id: number;
  readonly word: string;
  /** The Latin languages it is a frequent function word of (language detection), if any. */
  readonly detection: readonly number[] | undefined;
  /** Whether it is an English stop word. */
  readonly stop: boolean;
  /** Its English index term: its stem, `''` for a stop word; `undefined` until first needed. */
  term: string | undefined;
}

/** Distinct words kept; the table is emptied when full (as the stem cache was). */
export const LEXICON_LIMIT = 100_000;

let entries = new Map<string, WordEntry>();
let generation = 0;

/** Changes whenever the table is emptied: ids of an older generation mean nothing. */
export function lexiconGeneration(): number {
  return generation;
}

/** The record of a lower-cased ASCII word, made on first sight. */
export function wordEntry(word: string): WordEntry {
  const found = entries.get(word);
  if (found !== undefined) return found;
  if (entries.size >= LEXICON_LIMIT) {
    entries = new Map();
    generation++;
  }
  const entry: WordEntry = {
    id: entries.size,
    word,
    detection: detectionEntry(word),
    stop: STOP_WORDS.has(word),
    term: undefined,
  };
  entries.set(word, entry);
  return entry;
}

/** The English index term of an entry: its stem, or `''` for a stop word. */
export function englishTermOf(entry: WordEntry): string {
  return (entry.term ??= entry.stop ? '' : englishStem(entry.word));
}

/** Entries of the words of the text being analysed (reused; valid up to the count returned). */
let scratch: WordEntry[] = [];

/** The entries of a text's words, looked up once each, and the text's Latin language. */
export interface LexiconWords {
  readonly entries: readonly WordEntry[];
  readonly language: LatinLanguage;
}

/**
 * The entries of `words` (lower-cased ASCII words of one text) and the language detected
 * from them exactly as `latinLanguage(…, 'auto')` detects it. `entries` is shared scratch
 * space, valid until the next call.
 */
export function lexiconWords(words: readonly string[]): LexiconWords {
  const count = words.length;
  if (scratch.length < count) scratch = new Array<WordEntry>(Math.max(count, 2 * scratch.length));
  const list = scratch;
  for (let index = 0; index < count; index++) list[index] = wordEntry(words[index]!);
  return { entries: list, language: detectWords(list, count) };
}
