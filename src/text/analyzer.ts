/**
 * The text analyser: one function from text to index terms, used for documents and queries
 * alike (the keyword indexes, the guard, graph extraction), so that matching stays symmetric.
 *
 * 1. **Words** (`segment.ts`): the ASCII fast path, else NFKC, lower case and `Intl.Segmenter`
 *    for scripts written without spaces (Chinese, Japanese, Thai, Lao, Khmer, Myanmar).
 * 2. **Language** of the Latin-script words (`language-detection.ts`): configured, or
 *    detected per text (`'auto'`) by counting frequent function words of English, German,
 *    French, Spanish, Italian, Portuguese and Dutch in the first 200 words (a letter only one
 *    of them uses, ß/ä/ö/ü, ñ or ã/õ, counts twice). A language other than English needs at
 *    least two hits and more than English; anything else, including a short query without
 *    function words, is English.
 * 3. **Stop words and stems**: English keeps the light stemmer and short stop list cortexis
 *    has always used (ASCII English text gives exactly the terms it always gave); German,
 *    French, Spanish, Italian, Portuguese and Dutch use the Snowball stemmers and stop lists
 *    of `@orama/stemmers` and `@orama/stopwords`. Han and kana words are not stemmed; the
 *    Japanese and Chinese stop lists (merged, so a Japanese query written in kanji only is
 *    analysed like Japanese text) drop particles and function words. Thai, Korean and other
 *    scripts are kept as words.
 * 4. **Accent folding** last: "é" → "e", "ü" → "u", "ß" → "ss" (after stemming, since the
 *    Snowball stemmers read accents), so "Café" and "cafe" meet.
 *
 * Pure and runtime-neutral. The six Snowball stemmers (small generated functions) and eight
 * stop lists add about 16 kB gzipped to a bundle. A language's stop-word set is built the
 * first time a text in that language is analysed, not when the module loads.
 */
import { stemmer as dutchStemmer } from '@orama/stemmers/dutch';
import { stemmer as frenchStemmer } from '@orama/stemmers/french';
import { stemmer as germanStemmer } from '@orama/stemmers/german';
import { stemmer as italianStemmer } from '@orama/stemmers/italian';
import { stemmer as portugueseStemmer } from '@orama/stemmers/portuguese';
import { stemmer as spanishStemmer } from '@orama/stemmers/spanish';
import { stopwords as dutchStopWords } from '@orama/stopwords/dutch';
import { stopwords as frenchStopWords } from '@orama/stopwords/french';
import { stopwords as germanStopWords } from '@orama/stopwords/german';
import { stopwords as italianStopWords } from '@orama/stopwords/italian';
import { stopwords as japaneseStopWords } from '@orama/stopwords/japanese';
import { stopwords as chineseStopWords } from '@orama/stopwords/mandarin';
import { stopwords as portugueseStopWords } from '@orama/stopwords/portuguese';
import { stopwords as spanishStopWords } from '@orama/stopwords/spanish';
import { ValidationError } from '../errors/index.js';
import { stem as englishStem, STOP_WORDS } from './english.js';
import {
  latinLanguage,
  TEXT_LANGUAGES,
  type LanguageSetting,
  type LatinLanguage,
} from './language-detection.js';
import {
  clearFoldCache,
  flatCopy,
  foldAccents,
  hasNoSpaceScript,
  isCjkWord,
  segmentText,
  type SegmentedText,
} from './segment.js';

const STEM_CACHE_SIZE = 50_000;

/** Every stem cache made by `cached`. */
const stemCaches: Map<string, string>[] = [];

/**
 * Forgets every word the analysis remembers (stems, accent folds), as in a fresh process: for
 * benchmarks that measure what a process's first sight of a corpus costs
 * (`bench/ingest-cpu.ts --cold`).
 */
export function clearAnalysisCaches(): void {
  for (const cache of stemCaches) cache.clear();
  clearFoldCache();
}

/** A stemmer with a bounded cache (a corpus repeats its vocabulary, so most lookups hit). */
function cached(stemmer: (word: string) => string): (word: string) => string {
  const cache = new Map<string, string>();
  stemCaches.push(cache);
  return (word) => {
    let found = cache.get(word);
    if (found === undefined) {
      if (cache.size >= STEM_CACHE_SIZE) cache.clear();
      // The key is kept: a copy, not a view of the text the word was cut from.
      const key = flatCopy(word);
      found = stemmer(key);
      cache.set(key, found);
    }
    return found;
  };
}

/** A stop list with the folded form of each word as well ("été" and "ete"). */
function stopList(list: readonly string[]): ReadonlySet<string> {
  const set = new Set<string>();
  for (const word of list) {
    if (word.length === 0) continue;
    set.add(word);
    set.add(foldAccents(word));
  }
  return set;
}

interface LatinPack {
  /** Stop words (as written and folded). */
  readonly stopWords: ReadonlySet<string>;
  /** Stems a lower-cased word as written; the result is accent-folded. */
  readonly stem: (word: string) => string;
}

function snowball(
  stemmer: (word: string) => string,
  stopWords: readonly string[],
  questionWords: string,
): LatinPack {
  return {
    stopWords: stopList([...stopWords, ...questionWords.split(' ')]),
    stem: cached((word) => foldAccents(/\d/.test(word) ? word : stemmer(word))),
  };
}

/**
 * The English term of a lower-cased word: its stem, or `''` for a stop word (a word is never
 * empty, nor is its stem), so one lookup of a cache shared by every stage answers both (the
 * judge reads the words the extractive model has just looked up).
 */
export const englishTerm = cached((word) => (STOP_WORDS.has(word) ? '' : englishStem(word)));

/** The English terms of words (stop words left out). */
function englishTerms(words: readonly string[]): string[] {
  const terms: string[] = [];
  for (const word of words) {
    const term = englishTerm(word);
    if (term !== '') terms.push(term);
  }
  return terms;
}

type SnowballLanguage = Exclude<LatinLanguage, 'en'>;

/**
 * Question words the Snowball lists lack, stop words as "how", "when", "why" and "can" are in
 * English (the guard counts the share of query terms a source contains: "Wann …?" must not
 * count against a source as "When …?" does not).
 */
const PACK_SOURCES: Readonly<
  Record<SnowballLanguage, readonly [(word: string) => string, readonly string[], string]>
> = {
  de: [germanStemmer, germanStopWords, 'wann warum wieso weshalb wer gibt'],
  fr: [frenchStemmer, frenchStopWords, 'combien quand comment pourquoi où peut'],
  es: [spanishStemmer, spanishStopWords, 'cuándo'],
  it: [italianStemmer, italianStopWords, 'quando'],
  pt: [portugueseStemmer, portugueseStopWords, 'quanto quando onde posso'],
  nl: [dutchStemmer, dutchStopWords, 'wanneer welke waarom waar hoelang'],
};

const builtPacks = new Map<SnowballLanguage, LatinPack>();

/** A language's stemmer and stop words, built the first time the language is analysed. */
function latinPack(language: SnowballLanguage): LatinPack {
  let pack = builtPacks.get(language);
  if (pack === undefined) {
    pack = snowball(...PACK_SOURCES[language]);
    builtPacks.set(language, pack);
  }
  return pack;
}

/**
 * Question words the Japanese and Chinese lists lack ("how long", "how much", "need"): like
 * "how" and "when" in English, they frame a question and say nothing about its topic.
 */
const CJK_QUESTION_WORDS =
  'どれ どれくらい どのくらい くらい ぐらい どう どうして なぜ いつ かかる かかり かかります ' +
  '多久 多长 多少 几 需要 怎样 如何 哪里 哪些 吗 呢';

let builtCjkStopWords: ReadonlySet<string> | undefined;

/**
 * Japanese and Chinese stop words, merged (applied to Han and kana words only); built on the
 * first call.
 */
function cjkStopWords(): ReadonlySet<string> {
  return (builtCjkStopWords ??= new Set([
    ...japaneseStopWords,
    ...chineseStopWords,
    ...CJK_QUESTION_WORDS.split(' '),
  ]));
}

/**
 * Index terms of a text: words (segmented where the script has no spaces), stop words of
 * the text's language removed, stemmed, accent-folded. ASCII English text gives exactly the
 * terms of earlier versions.
 */
export function analyzeTerms(text: string, language: LanguageSetting = 'auto'): string[] {
  const segmented = segmentText(text);
  const { words, ascii, spaceless } = segmented;
  const latin = latinLanguage(segmented, text, language);
  if (ascii) {
    if (latin === 'en') return englishTerms(words);
    const pack = latinPack(latin);
    const terms: string[] = [];
    for (const word of words) if (!pack.stopWords.has(word)) terms.push(pack.stem(word));
    return terms;
  }
  const terms: string[] = [];
  const pack = latin === 'en' ? undefined : latinPack(latin);
  for (const word of words) {
    if (spaceless && hasNoSpaceScript(word)) {
      if (!(isCjkWord(word) && cjkStopWords().has(word))) terms.push(word);
      continue;
    }
    const folded = foldAccents(word);
    if (pack === undefined) {
      const term = englishTerm(folded);
      if (term !== '') terms.push(term);
    } else if (!pack.stopWords.has(word) && !pack.stopWords.has(folded)) {
      terms.push(pack.stem(word));
    }
  }
  return terms;
}

/** A text's words and, among them, the content words (both lower-cased and accent-folded). */
export interface SplitText {
  /** Every word, in order. */
  readonly words: string[];
  /** The words that are not stop words of the text's language, in order. */
  readonly content: string[];
}

/**
 * Words and content words of a text (stop words of its language removed, not stemmed). ASCII
 * English text gives the words and content words of earlier versions.
 */
export function splitContent(text: string, language: LanguageSetting = 'auto'): SplitText {
  return splitSegmented(segmentText(text), text, language);
}

/**
 * The content words of a text, each stemmed with the English stemmer whatever the text's
 * language: exactly `contentWords(text).map(stem)`; for English ASCII text, one cached lookup
 * per word (the stems `analyzeTerms` remembers) instead of a stop-word test and a stemming.
 */
export function contentStems(text: string): string[] {
  const segmented = segmentText(text);
  if (segmented.ascii && latinLanguage(segmented, text, 'auto') === 'en') {
    return englishTerms(segmented.words);
  }
  return splitSegmented(segmented, text, 'auto').content.map(englishStem);
}

function splitSegmented(
  segmented: SegmentedText,
  text: string,
  language: LanguageSetting,
): SplitText {
  const { words, ascii, spaceless } = segmented;
  const latin = latinLanguage(segmented, text, language);
  const pack = latin === 'en' ? undefined : latinPack(latin);
  const content: string[] = [];
  for (let index = 0; index < words.length; index++) {
    const word = words[index]!;
    const folded = ascii ? word : foldAccents(word);
    words[index] = folded;
    if (spaceless && hasNoSpaceScript(word)) {
      if (!(isCjkWord(word) && cjkStopWords().has(word))) content.push(word);
    } else if (
      pack === undefined
        ? !STOP_WORDS.has(folded)
        : !pack.stopWords.has(word) && !pack.stopWords.has(folded)
    ) {
      content.push(folded);
    }
  }
  return { words, content };
}

/** Settings of {@link createTextAnalyzer}. */
export interface TextAnalyzerSettings {
  /** One language for every text, or `'auto'` (default): detected per text. */
  readonly language?: LanguageSetting | undefined;
}

/** A text analyser bound to a language setting. */
export interface TextAnalyzer {
  /** The language setting. */
  readonly language: LanguageSetting;
  /** Index terms of a text (see `analyzeTerms`). */
  terms(text: string): string[];
  /** Words and content words of a text (see `splitContent`). */
  split(text: string): SplitText;
}

/**
 * A text analyser with a fixed language setting: give its `terms` as the `tokenize` of a
 * keyword index so that documents and queries are analysed alike.
 *
 * @example
 * ```ts
 * const analyzer = createTextAnalyzer({ language: 'de' });
 * analyzer.terms('Die Garantie gilt für alle Fahrräder'); // ['garanti', 'gilt', 'fahrrad']
 * createMemoryKeywordIndex({ tokenize: analyzer.terms });
 * ```
 */
export function createTextAnalyzer(settings: TextAnalyzerSettings = {}): TextAnalyzer {
  const language = settings.language ?? 'auto';
  if (language !== 'auto' && !(TEXT_LANGUAGES as readonly string[]).includes(language)) {
    const message = `must be 'auto' or one of ${TEXT_LANGUAGES.join(', ')}`;
    throw new ValidationError(`language ${message}`, [{ path: 'language', message }]);
  }
  return {
    language,
    terms: (text) => analyzeTerms(text, language),
    split: (text) => splitContent(text, language),
  };
}
