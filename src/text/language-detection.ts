/**
 * Language detection of the text analyser (`analyzer.ts`): the languages it knows, the script
 * of a text (Japanese, Chinese, Korean, Thai) and, for Latin-script text, the language whose
 * frequent function words it uses most among English, German, French, Spanish, Italian,
 * Portuguese and Dutch (English when nothing says otherwise). The function-word table is built
 * the first time a text is detected. Pure and runtime-neutral.
 */
import { isAscii, segmentText, type SegmentedText } from './segment.js';

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
export type LatinLanguage = 'en' | 'de' | 'fr' | 'es' | 'it' | 'pt' | 'nl';

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

let builtDetection: ReadonlyMap<string, readonly number[]> | undefined;

/** Function word → the languages (indexes into LATIN_ORDER) it is frequent in; built on first use. */
function detectionTable(): ReadonlyMap<string, readonly number[]> {
  return (builtDetection ??= (() => {
    const map = new Map<string, number[]>();
    LATIN_ORDER.forEach((language, index) => {
      for (const word of DETECTION_WORDS[language].split(' ')) {
        const languages = map.get(word) ?? [];
        languages.push(index);
        map.set(word, languages);
      }
    });
    return map;
  })());
}

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

/**
 * The Latin-script language of a segmented text (`text`: as written, for letter hints). With
 * `repeated` > 0, of the words read as if the first `repeated` came three times, then the rest
 * (a chunk's keyword text, its header weighted: `text/chunk-analysis.ts`).
 */
function detectLatin({ words, ascii }: SegmentedText, text: string, repeated = 0): LatinLanguage {
  const detection = detectionTable();
  const hits = [0, 0, 0, 0, 0, 0, 0];
  const end = Math.min(words.length + 2 * repeated, DETECTION_WINDOW);
  let any = false;
  for (let index = 0; index < end; index++) {
    const word = index < 3 * repeated ? words[index % repeated]! : words[index - 2 * repeated]!;
    const languages = detection.get(word);
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

/**
 * The language whose stemmer and stop words the Latin-script words of a text get (`repeated`:
 * as `detectLatin`'s).
 */
export function latinLanguage(
  segmented: SegmentedText,
  text: string,
  setting: LanguageSetting,
  repeated = 0,
): LatinLanguage {
  if (setting === 'auto') return detectLatin(segmented, text, repeated);
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
