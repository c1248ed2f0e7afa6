/**
 * English analysis: the light stemmer and the short stop-word list the keyword index has
 * always used. Pure, no dependencies. Kept rather than Snowball English: on SciFact (train
 * split) BM25 with it scores nDCG@10 0.692 against 0.668 unstemmed, and stored indexes keep
 * their terms.
 */

/** A short English stop-word list (function words that carry no topic). */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an and are as at be been being but by can could did do does doing for from had has have ' +
    'having he her hers him his how i if in into is it its itself me my no nor not of on or our ' +
    'ours she should so than that the their theirs them then there these they this those to too ' +
    'us was we were what when where which while who whom why will with would you your yours ' +
    'about above after again against all am any because before below between both down during ' +
    'each few further here just more most off once only other out over own same some such ' +
    'under until up very s t'
  ).split(' '),
);

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
