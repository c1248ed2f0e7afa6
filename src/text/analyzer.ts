/**
 * The text analyser: one function from text to index terms, used for documents and queries
 * alike (the keyword indexes, the guard, graph extraction), so that matching stays symmetric.
 *
 * 1. **Words** (`segment.ts`): the ASCII fast path, else NFKC, lower case and `Intl.Segmenter`
 *    for scripts written without spaces (Chinese, Japanese, Thai, Lao, Khmer, Myanmar).
 * 2. **Language** of the Latin-script words: configured, or detected per text (`'auto'`) by
 *    counting frequent function words of English, German, French, Spanish, Italian,
 *    Portuguese and Dutch in the first 200 words (a letter only one of them uses, ß/ä/ö/ü,
 *    ñ or ã/õ, counts twice). A language other than English needs at least two hits and
 *    more than English; anything else, including a short query without function words, is
 *    English.
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
 * stop lists add about 16 kB gzipped to a bundle.
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
  foldAccents,
  hasNoSpaceScript,
  isAscii,
  isCjkWord,
  segmentText,
  type SegmentedText,
} from './segment.js';

/** Languages the analyser knows (ISO 639-1). */
export const TEXT_LANGUAGES = [
  'en',
  'de',
  'fr',
  'es',
  'it',
  'pt',
  'nl',
  'ja',
  'zh',
  'ko',
  'th',
] as const;

/** A language the analyser knows. */
export type TextLanguage = (typeof TEXT_LANGUAGES)[number];

/** The analyser's language: one language for every text, or `'auto'` (detected per text). */
export type LanguageSetting = 'auto' | TextLanguage;

/** Latin-script languages with their own stemmer and stop words. */
type LatinLanguage = 'en' | 'de' | 'fr' | 'es' | 'it' | 'pt' | 'nl';

const STEM_CACHE_SIZE = 50_000;

/** A stemmer with a bounded cache (a corpus repeats its vocabulary, so most lookups hit). */
function cached(stemmer: (word: string) => string): (word: string) => string {
  const cache = new Map<string, string>();
  return (word) => {
    let found = cache.get(word);
    if (found === undefined) {
      if (cache.size >= STEM_CACHE_SIZE) cache.clear();
      found = stemmer(word);
      cache.set(word, found);
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

const englishStemCached = cached(englishStem);

/**
 * Question words the Snowball lists lack, stop words as "how", "when", "why" and "can" are in
 * English (the guard counts the share of query terms a source contains: "Wann …?" must not
 * count against a source as "When …?" does not).
 */
const PACKS: Readonly<Record<Exclude<LatinLanguage, 'en'>, LatinPack>> = {
  de: snowball(germanStemmer, germanStopWords, 'wann warum wieso weshalb wer gibt'),
  fr: snowball(frenchStemmer, frenchStopWords, 'combien quand comment pourquoi où peut'),
  es: snowball(spanishStemmer, spanishStopWords, 'cuándo'),
  it: snowball(italianStemmer, italianStopWords, 'quando'),
  pt: snowball(portugueseStemmer, portugueseStopWords, 'quanto quando onde posso'),
  nl: snowball(dutchStemmer, dutchStopWords, 'wanneer welke waarom waar hoelang'),
};

/**
 * Question words the Japanese and Chinese lists lack ("how long", "how much", "need"): like
 * "how" and "when" in English, they frame a question and say nothing about its topic.
 */
const CJK_QUESTION_WORDS =
  'どれ どれくらい どのくらい くらい ぐらい どう どうして なぜ いつ かかる かかり かかります ' +
  '多久 多长 多少 几 需要 怎样 如何 哪里 哪些 吗 呢';

/** Japanese and Chinese stop words, merged (applied to Han and kana words only). */
const CJK_STOP_WORDS: ReadonlySet<string> = new Set([
  ...japaneseStopWords,
  ...chineseStopWords,
  ...CJK_QUESTION_WORDS.split(' '),
]);

/**
 * Frequent function words per language for detection. The other languages' lists leave out
 * the words most frequent in English ("a", "in", "is", "no", "was", "will", "also"…).
 */
const DETECTION_WORDS: Readonly<Record<LatinLanguage, string>> = {
  en:
    'the of and to that for it with as on are be by this what how which does do can from at ' +
    'or an has have not my we you there when why who were would should these those their its ' +
    'than been is in was will a',
  de:
    'der die das und ist nicht mit sich des dem den ein eine einer eines einem auf für ich sie ' +
    'wir wie auch nach bei oder wird werden kann können nur noch zum zur vom über sind hat ' +
    'haben aus wenn welche welcher wann warum wer gibt lange mein meine bitte man wo wieso',
  fr:
    'le la les des du et est une un dans pour pas que qui sur avec ce cette sont au aux par ' +
    'nous vous ne il elle ou mais être été quelle quel quels quelles comment combien quand ' +
    'pourquoi où sa ses leur mon peut je votre vos notre nos mes ma suis après très sans chez',
  es:
    'el la los las de del y es en una un que por para con se su sus al lo como más pero está ' +
    'están cuál cuánto cuánta cómo qué cuándo dónde hay puedo mi yo hasta desde muy también',
  it:
    'il lo gli di del della delle dei e è un una che per non con sono da nel nella come quale ' +
    'quanto quanta quando perché dove ha ci si la le al alla mio questo questa anche dopo ancora',
  pt:
    'o os do da dos das e é um uma que para com não em na por se mais como qual quanto quanta ' +
    'são ao à quando onde posso de meu minha você também depois muito',
  nl:
    'de het een en van dat niet op te voor met zijn er aan ook als maar bij wat hoe welke ' +
    'worden wordt naar kan ik je mijn deze die waar wanneer waarom uw hoelang',
};

const LATIN_ORDER: readonly LatinLanguage[] = ['en', 'de', 'fr', 'es', 'it', 'pt', 'nl'];

/** Function word → the languages (indexes into LATIN_ORDER) it is frequent in. */
const DETECTION: ReadonlyMap<string, readonly number[]> = (() => {
  const map = new Map<string, number[]>();
  LATIN_ORDER.forEach((language, index) => {
    for (const word of DETECTION_WORDS[language].split(' ')) {
      const languages = map.get(word) ?? [];
      languages.push(index);
      map.set(word, languages);
    }
  });
  return map;
})();

/** Letters only one of the languages uses; each gives that language two hits. */
const LETTER_HINTS: readonly (readonly [number, RegExp])[] = [
  [LATIN_ORDER.indexOf('de'), /[äöüß]/],
  [LATIN_ORDER.indexOf('es'), /[ñ¿¡]/],
  [LATIN_ORDER.indexOf('pt'), /[ãõ]/],
];

/** Words read for detection (a text's language shows in its first sentences). */
const DETECTION_WINDOW = 200;
/** English hits after which a text is English when no other language has a third as many. */
const CLEARLY_ENGLISH = 12;

/** The Latin-script language of a segmented text (`text`: as written, for letter hints). */
function detectLatin({ words, ascii }: SegmentedText, text: string): LatinLanguage {
  const hits = [0, 0, 0, 0, 0, 0, 0];
  const end = Math.min(words.length, DETECTION_WINDOW);
  let any = false;
  for (let index = 0; index < end; index++) {
    const languages = DETECTION.get(words[index]!);
    if (languages === undefined) continue;
    any = true;
    for (const language of languages) hits[language]!++;
    // Most texts are English: stop reading once that is clear.
    if (
      hits[0]! >= CLEARLY_ENGLISH &&
      (index & 15) === 0 &&
      hits[0]! > 3 * Math.max(...hits.slice(1))
    ) {
      return 'en';
    }
  }
  if (!ascii) {
    const head = text.length > 4000 ? text.slice(0, 4000).toLowerCase() : text.toLowerCase();
    for (const [language, letters] of LETTER_HINTS) {
      if (letters.test(head)) {
        hits[language]! += 2;
        any = true;
      }
    }
  }
  if (!any) return 'en';
  let best = 0;
  for (let index = 1; index < LATIN_ORDER.length; index++) {
    if (hits[index]! > hits[best]!) best = index;
  }
  return best > 0 && hits[best]! >= 2 ? LATIN_ORDER[best]! : 'en';
}

/** The language whose stemmer and stop words the Latin-script words of a text get. */
function latinLanguage(
  segmented: SegmentedText,
  text: string,
  setting: LanguageSetting,
): LatinLanguage {
  if (setting === 'auto') return detectLatin(segmented, text);
  return (LATIN_ORDER as readonly string[]).includes(setting) ? (setting as LatinLanguage) : 'en';
}

const SCRIPTS = {
  kana: /[\p{sc=Hiragana}\p{sc=Katakana}]/gu,
  han: /\p{sc=Han}/gu,
  hangul: /\p{sc=Hangul}/gu,
  thai: /\p{sc=Thai}/gu,
  latin: /\p{sc=Latin}/gu,
} as const;

/**
 * The language of a text: by script for Japanese (any kana), Chinese (Han without kana),
 * Korean and Thai when that script has at least as many letters as the Latin script, else by
 * function words among English, German, French, Spanish, Italian, Portuguese and Dutch
 * (English when nothing says otherwise).
 *
 * @example
 * ```ts
 * detectLanguage('保証期間はどのくらいですか？'); // 'ja'
 * detectLanguage('Wie lange gilt die Garantie?'); // 'de'
 * detectLanguage('refund policy');               // 'en'
 * ```
 */
export function detectLanguage(text: string): TextLanguage {
  if (typeof text !== 'string') return 'en';
  if (!isAscii(text)) {
    const head = text.length > 4000 ? text.slice(0, 4000) : text;
    const count = (pattern: RegExp): number => head.match(pattern)?.length ?? 0;
    const latin = count(SCRIPTS.latin);
    const kana = count(SCRIPTS.kana);
    const han = count(SCRIPTS.han);
    if (kana > 0 && kana + han >= latin) return 'ja';
    if (han > 0 && han >= latin) return 'zh';
    const hangul = count(SCRIPTS.hangul);
    if (hangul > 0 && hangul >= latin) return 'ko';
    const thai = count(SCRIPTS.thai);
    if (thai > 0 && thai >= latin) return 'th';
  }
  return detectLatin(segmentText(text), text);
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
  const terms: string[] = [];
  if (ascii) {
    if (latin === 'en') {
      for (const word of words) if (!STOP_WORDS.has(word)) terms.push(englishStemCached(word));
    } else {
      const pack = PACKS[latin];
      for (const word of words) if (!pack.stopWords.has(word)) terms.push(pack.stem(word));
    }
    return terms;
  }
  const pack = latin === 'en' ? undefined : PACKS[latin];
  for (const word of words) {
    if (spaceless && hasNoSpaceScript(word)) {
      if (!(isCjkWord(word) && CJK_STOP_WORDS.has(word))) terms.push(word);
      continue;
    }
    const folded = foldAccents(word);
    if (pack === undefined) {
      if (!STOP_WORDS.has(folded)) terms.push(englishStemCached(folded));
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
  const segmented = segmentText(text);
  const { words, ascii, spaceless } = segmented;
  const latin = latinLanguage(segmented, text, language);
  const pack = latin === 'en' ? undefined : PACKS[latin];
  const content: string[] = [];
  for (let index = 0; index < words.length; index++) {
    const word = words[index]!;
    const folded = ascii ? word : foldAccents(word);
    words[index] = folded;
    if (spaceless && hasNoSpaceScript(word)) {
      if (!(isCjkWord(word) && CJK_STOP_WORDS.has(word))) content.push(word);
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
