/**
 * Source sentences analysed once for the contradiction checks of the grounding judge: their
 * tokens (stems, negators), content stems and quantities, with a bounded cache per source
 * text, and the least share of a claim's content terms that makes a sentence about the claim.
 * Pure.
 * @module
 */
import { englishTerm } from '../../text/analyzer.js';
import { stem } from '../../text/stem.js';
import { STOP_WORDS } from '../../text/words.js';
import { quantitiesOf, type Quantity } from './contradiction-quantities.js';
import { createSecondSightCache } from '../../util/second-sight.js';

// Words that negate the statement they stand in.
const NEGATOR = /^(?:not|no|never|none|neither|nor|cannot|without|nothing|nobody)$|n't$/;

/** A word of a text with its stem, and whether it negates. */
export interface Token {
  /** The word, lower-cased. */
  readonly word: string;
  /** Its stem. */
  readonly stem: string;
  /** Whether it is a negator ("not", "never", "n't", …). */
  readonly negator: boolean;
}

// The words of a text, lower-cased; a word ending in "'t" keeps it ("don't").
const WORD = /[\p{L}\p{N}]+(?:'t)?/gu;

/** The tokens of a text, in order. */
export function tokensOf(text: string): Token[] {
  return (text.toLowerCase().match(WORD) ?? []).map((word) => ({
    word,
    stem: stem(word),
    negator: NEGATOR.test(word),
  }));
}

/** Whether a token's word is a content word: neither a stop word, a number nor a negator. */
export const isContentWord = (word: string): boolean =>
  !STOP_WORDS.has(word) && !/^\d/.test(word) && !NEGATOR.test(word);

/** Stems of the tokens that are neither negators, stop words nor numbers. */
export const contentStems = (tokens: readonly Token[]): Set<string> =>
  new Set(tokens.filter((token) => isContentWord(token.word)).map((token) => token.stem));

/**
 * The content stems of a text, as `contentStems(tokensOf(text))`, without building its tokens
 * (a stop word, a number or a negator is never stemmed).
 */
export function contentStemsOf(text: string): Set<string> {
  const terms = new Set<string>();
  for (const word of text.toLowerCase().match(WORD) ?? []) {
    // A content word's English term is its stem (from the analyser's cache).
    if (isContentWord(word)) terms.add(englishTerm(word));
  }
  return terms;
}

/** Least share of the claim's content terms a source sentence contains to be about the claim. */
export const ABOUT_SHARE = 0.5;

/** A sentence of a source text. */
export interface SourceSentence {
  /** Offset of its first character in the source text. */
  readonly start: number;
  /** Offset after its last character. */
  readonly end: number;
  /** Its text. */
  readonly text: string;
}

/**
 * A source sentence analysed once for any number of claims. Its content stems are computed
 * with it (every claim reads them); its tokens and quantities on first read, since only the
 * sentences about a claim are read for polarity, and quantities only for a claim stating one.
 */
export class AnalysedSentence implements SourceSentence {
  #tokens: readonly Token[] | undefined;
  #quantities: readonly Quantity[] | undefined;
  /** Its content stems (`contentStems` of its tokens). */
  readonly terms: ReadonlySet<string>;

  constructor(
    readonly start: number,
    readonly end: number,
    readonly text: string,
    terms?: ReadonlySet<string>,
  ) {
    this.terms = terms ?? contentStemsOf(text);
  }

  /** Its tokens, in order. */
  get tokens(): readonly Token[] {
    return (this.#tokens ??= tokensOf(this.text));
  }

  /** The quantities it states. */
  get quantities(): readonly Quantity[] {
    return (this.#quantities ??= quantitiesOf(this.text));
  }
}

// Analysed sources of recent claims: an answer cites the same few sources sentence after
// sentence. Kept per sentence list (a prepared source's, for as long as it lives: every claim
// checked against it) and, from a text's second sight on, per text (`second-sight.ts`).
const ANALYSED_CACHE_SIZE = 500;
const analysedCache = createSecondSightCache<readonly AnalysedSentence[]>(ANALYSED_CACHE_SIZE);
const analysedSpans = new WeakMap<
  object,
  { readonly text: string; readonly analysed: readonly AnalysedSentence[] }
>();

/** The sentences of a source text (given as spans), analysed; cached per source text. */
export function analyse(
  sourceText: string,
  sentences: readonly {
    readonly start: number;
    readonly end: number;
    /** Its content stems, when already known (a prepared source's sentence). */
    readonly contentStems?: ReadonlySet<string> | undefined;
  }[],
): readonly AnalysedSentence[] {
  const known = analysedSpans.get(sentences);
  if (known !== undefined && known.text === sourceText) return known.analysed;
  const analysed = analysedCache.get(
    sourceText,
    () =>
      sentences.map(
        ({ start, end, contentStems }) =>
          new AnalysedSentence(start, end, sourceText.slice(start, end), contentStems),
      ),
    (kept) => kept.length === sentences.length,
  );
  analysedSpans.set(sentences, { text: sourceText, analysed });
  return analysed;
}
