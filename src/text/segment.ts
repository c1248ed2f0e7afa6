/**
 * Word segmentation, Unicode normalisation and accent folding. Pure; runtime-neutral (only
 * the standard `Intl.Segmenter`).
 *
 * * Text that is all ASCII takes the fast path: lower-cased runs of letters and digits, exactly
 *   the words cortexis has always produced (stored keyword indexes keep their terms).
 * * Other text is normalised to NFKC first (full-width "ＡＢＣ１２" → "abc12", ligatures "ﬁ" →
 *   "fi", half-width katakana → full-width) and lower-cased; a word is a run of letters, marks
 *   and digits (marks belong to words in Devanagari, Thai and others).
 * * Runs in scripts written without spaces (Han, Hiragana, Katakana, Thai, Lao, Khmer,
 *   Myanmar) are cut into words with `Intl.Segmenter` (ICU's dictionaries): "保証期間は2年です"
 *   → 保証, 期間, は, 2, 年, です. Without `Intl.Segmenter`, Han and kana fall back to single
 *   characters and the other scripts stay whole runs.
 */

const ASCII = /^[\u0000-\u007f]*$/;
/**
 * The fast path's word in lower-cased ASCII text: letters and digits. The same words as
 * `[\p{L}\p{N}]+` (ASCII has no other letters or digits, and no combining marks), matched
 * without Unicode property lookups.
 */
const ASCII_WORD = /[a-z0-9]+/g;
/**
 * A word outside ASCII: a run of letters, combining marks and digits, `[\p{L}\p{M}\p{N}]+`.
 * Written so that runs of ASCII letters and digits (most of a mostly-ASCII text, once
 * lower-cased) skip the Unicode property lookups; the same runs. Nothing can follow the group,
 * so it never backtracks. (`bench/ingest-ab.ts --part segment` times `segmentText` on
 * SciFact's ingest texts against another tree.)
 */
const WORD = /(?:[a-z0-9]+|[\p{L}\p{M}\p{N}])+/gu;
/** Scripts written without spaces between words. */
const NO_SPACE_SCRIPT =
  /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Thai}\p{sc=Lao}\p{sc=Khmer}\p{sc=Myanmar}]/u;
/**
 * UTF-16 blocks holding every character of those scripts (the surrogates: all astral ones), and
 * more: a text without any of them has none of those scripts, found without the script lookups
 * (`test/text/segment.test.ts` checks every code point).
 */
const MAY_BE_NO_SPACE_SCRIPT =
  /[\u0e00-\u0eff\u1000-\u10ff\u1700-\u17ff\u1900-\u19ff\u2e00-\u9fff\ua900-\uaaff\uf900-\ufaff\uff00-\uffff\ud800-\udbff]/;
/** Han, Hiragana and Katakana (Chinese and Japanese). */
const CJK = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}]/u;
const CJK_CHARACTER =
  /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}]|[^\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}]+/gu;

/** Whether a text is all ASCII (the fast path). */
export function isAscii(text: string): boolean {
  return ASCII.test(text);
}

/** Whether a word contains Han, Hiragana or Katakana characters. */
export function isCjkWord(word: string): boolean {
  return CJK.test(word);
}

/** Whether a text contains characters of a script written without spaces. */
export function hasNoSpaceScript(text: string): boolean {
  return MAY_BE_NO_SPACE_SCRIPT.test(text) && NO_SPACE_SCRIPT.test(text);
}

/** The structural part of `Intl.Segmenter` used here. */
interface WordSegmenter {
  segment(text: string): Iterable<{
    readonly segment: string;
    readonly index: number;
    readonly isWordLike?: boolean;
  }>;
}

let segmenter: WordSegmenter | null | undefined;

/** The shared word segmenter, or null where the runtime has no `Intl.Segmenter`. */
function wordSegmenter(): WordSegmenter | null {
  if (segmenter === undefined) {
    const Segmenter = (
      Intl as {
        Segmenter?: new (locale: string, options: { granularity: 'word' }) => WordSegmenter;
      }
    ).Segmenter;
    // ICU's word dictionaries are chosen by script, so one root-locale segmenter serves all.
    segmenter =
      typeof Segmenter === 'function' ? new Segmenter('und', { granularity: 'word' }) : null;
  }
  return segmenter;
}

/**
 * Characters segmented at a time: one long run costs more than linear time in ICU (32,000
 * characters took 166 ms whole, 19 ms in windows of 500), so a long run is cut into windows,
 * each ending before its last two words, which start the next window.
 */
const SEGMENT_WINDOW = 500;

/** Appends the words of a run written without spaces. */
function segmentRun(run: string, into: string[]): void {
  const found = wordSegmenter();
  if (found === null) {
    // No segmenter: Han and kana one character at a time, other scripts whole.
    for (const piece of run.match(CJK_CHARACTER) ?? []) into.push(piece);
    return;
  }
  let offset = 0;
  while (offset < run.length) {
    let end = Math.min(run.length, offset + SEGMENT_WINDOW);
    // Never cut a surrogate pair.
    if (end < run.length && /[\ud800-\udbff]/.test(run[end - 1]!)) end--;
    const parts = [...found.segment(run.slice(offset, end))];
    let next = end;
    if (end < run.length && parts.length > 2) {
      // The last two words may be cut or read without their context: the next window redoes them.
      parts.pop();
      next = offset + parts.pop()!.index;
    }
    for (const part of parts) if (part.isWordLike) into.push(part.segment);
    offset = next;
  }
}

/** A text cut into words, with what the analyser needs to know about its scripts. */
export interface SegmentedText {
  /** Lower-cased words, in order, not accent-folded. */
  readonly words: string[];
  /** Whether the text is all ASCII (the fast path was taken). */
  readonly ascii: boolean;
  /** Whether the text has characters of a script written without spaces. */
  readonly spaceless: boolean;
}

/**
 * Lower-cased words of a text, in order, NOT accent-folded (what stemmers want): the ASCII
 * fast path, else NFKC normalisation and segmentation of scripts written without spaces.
 */
export function segmentText(text: string): SegmentedText {
  if (ASCII.test(text)) {
    return { words: text.toLowerCase().match(ASCII_WORD) ?? [], ascii: true, spaceless: false };
  }
  const normal = text.normalize('NFKC').toLowerCase();
  const runs = normal.match(WORD) ?? [];
  if (!hasNoSpaceScript(normal)) return { words: runs, ascii: false, spaceless: false };
  const words: string[] = [];
  for (const run of runs) {
    if (hasNoSpaceScript(run)) segmentRun(run, words);
    else words.push(run);
  }
  return { words, ascii: false, spaceless: true };
}

/** The words of lower-cased ASCII text: exactly `segmentText`'s words of it (the fast path). */
export function asciiWords(lowered: string): string[] {
  return lowered.match(ASCII_WORD) ?? [];
}

/** The words of {@link segmentText}. */
export function surfaceWords(text: string): string[] {
  return segmentText(text).words;
}

/** Letters folded to more than their base letter. */
const SPECIAL_FOLDS: Readonly<Record<string, string>> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ł: 'l',
  ı: 'i',
};
/** Latin letters with diacritics (Latin-1 Supplement to Extended-B, Latin Extended Additional). */
const FOLDABLE = /[\u00c0-\u024f\u1e00-\u1eff\u0300-\u036f]/;
const DIACRITICS = /[\u0300-\u036f]/g;
const SPECIAL = /[ßæœøđðþłı]/g;

/** Whether a word has a character that folding may change (a fast scan: most words are ASCII). */
function mayFold(word: string): boolean {
  for (let index = 0; index < word.length; index++) {
    const code = word.charCodeAt(index);
    if (code >= 0xc0) return FOLDABLE.test(word);
  }
  return false;
}

/**
 * A copy of a word that holds its own characters. V8 cuts a substring of 13 characters or more
 * as a view into the string it came from, so a cache that keeps a word cut from a chunk's text
 * as a key would keep the whole text alive: a cache copies its keys (on a miss only).
 */
export function flatCopy(word: string): string {
  // A slice of a concatenation: V8 flattens the concatenation into the word and a space, and
  // the slice is a view of that (a shorter slice is a copy of its own).
  return word.length < 13 ? word : (' ' + word).slice(1);
}

const FOLD_CACHE_SIZE = 10_000;
const foldCache = new Map<string, string>();

/** Forgets the accent folds remembered (`clearAnalysisCaches`). */
export function clearFoldCache(): void {
  foldCache.clear();
}

/**
 * Folds the Latin diacritics of a lower-cased word: "é" → "e", "ü" → "u", "ñ" → "n", "ß" →
 * "ss", "æ" → "ae", "ø" → "o". Other scripts are left alone (a Japanese "が" keeps its
 * voicing mark, a Cyrillic "й" its breve).
 */
export function foldAccents(word: string): string {
  if (!mayFold(word)) return word;
  let folded = foldCache.get(word);
  if (folded === undefined) {
    const key = flatCopy(word);
    folded = key
      .replace(SPECIAL, (letter) => SPECIAL_FOLDS[letter] ?? letter)
      .normalize('NFD')
      .replace(DIACRITICS, '')
      .normalize('NFC');
    if (foldCache.size >= FOLD_CACHE_SIZE) foldCache.clear();
    foldCache.set(key, folded);
  }
  return folded;
}

/** Lower-cased, accent-folded words of a text, in order (see the module header). */
export function foldedWords(text: string): string[] {
  const { words, ascii } = segmentText(text);
  if (!ascii)
    for (let index = 0; index < words.length; index++) words[index] = foldAccents(words[index]!);
  return words;
}
