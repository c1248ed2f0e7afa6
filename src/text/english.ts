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

/** Whether a word has an ASCII digit (`/\d/`). */
function hasDigit(word: string): boolean {
  for (let index = 0; index < word.length; index++) {
    const code = word.charCodeAt(index);
    if (code >= 0x30 && code <= 0x39) return true;
  }
  return false;
}

/** Whether `text` cut at `end` ends with `suffix`. */
function endsAt(text: string, end: number, suffix: string): boolean {
  return text.startsWith(suffix, end - suffix.length);
}

/**
 * Folds plurals, -ed / -ing forms, a final e and a doubled final consonant, so that
 * "refunds", "refunded" and "refund" meet. Words of three letters or fewer and words with
 * digits are kept as they are. Consistency matters here, not linguistics. (The steps move the
 * end of the word and cut it once.)
 */
export function stem(word: string): string {
  if (word.length <= 3 || hasDigit(word)) return word;
  let base = word;
  let end = word.length;
  if (end > 4 && word.endsWith('ies')) {
    base = `${word.slice(0, -3)}y`;
    end = base.length;
  } else if (word.endsWith('sses')) end -= 2;
  else if (word.charCodeAt(end - 1) === 0x73 /* s */) {
    const before = word.charCodeAt(end - 2);
    // Not after s, u or i ("class", "virus", "analysis").
    if (before !== 0x73 && before !== 0x75 && before !== 0x69) end--;
  }
  if (end > 5 && endsAt(base, end, 'ing')) end -= 3;
  else if (end > 4 && endsAt(base, end, 'ed')) end -= 2;
  if (end > 3 && base.charCodeAt(end - 1) === 0x65 /* e */) end--;
  if (end > 3) {
    const last = base.charCodeAt(end - 1);
    // A doubled final consonant, but l, s and z ("fall", "pass", "buzz").
    if (last === base.charCodeAt(end - 2) && last !== 0x6c && last !== 0x73 && last !== 0x7a) end--;
  }
  return end === base.length ? base : base.slice(0, end);
}
