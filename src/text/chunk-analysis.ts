/**
 * One analysis of a chunk's text at ingest, shared by the hashing embedder, the default keyword
 * index and the graph, which otherwise analyse three overlapping texts of the chunk each on its
 * own: the embedded text (header, then body), the keyword text (the header three times, then
 * the body) and the embedded text's first characters (the graph's terms). Each would segment,
 * lower-case and split into fresh words, and look every word's stem up again.
 *
 * Here the embedded text is segmented once, each word's English term looked up once, and the
 * three consumers' outputs read from that: exactly what `splitContent` of the embedded text,
 * `analyzeTerms` of the keyword text and `analyzeTerms` of the prefix give. Only text without
 * a script written without spaces whose views are all detected as English takes this path
 * (`analyzeChunk` answers `undefined` for any other: each consumer then analyses its own text
 * as before), and the graph's terms only for all-ASCII text.
 */
import { englishTerm, type SplitText } from './analyzer.js';
import { latinLanguage } from './language-detection.js';
import { asciiWords, foldAccents, isAscii, segmentText } from './segment.js';

/** What `analyzeChunk` derives from a chunk's texts. */
export interface ChunkAnalysis {
  /** The embedded text the analysis is of (the hashing embedder checks it is given this text). */
  readonly text: string;
  /** `splitContent(text)`: its words and content words. */
  readonly split: SplitText;
  /**
   * `analyzeTerms(keywordText)` with each term's occurrences in the header together (the
   * keyword index counts them alike), when asked for.
   */
  readonly keywordTerms: string[] | undefined;
  /** The graph's terms of the text's first `characters` characters and their counts. */
  readonly graphTerms: Map<string, number> | undefined;
}

/** What to compute besides the embedder's words. */
export interface ChunkAnalysisOptions {
  /** Also the keyword terms of the keyword text (`header\n` three times, then the body). */
  readonly keyword: boolean;
  /** Also the graph's term counts of the first `characters` characters of the embedded text. */
  readonly graph?: { readonly characters: number; readonly minLength: number } | undefined;
}

const ALL_DIGITS = /^\d+$/;

/**
 * Whether a term counts for the knowledge graph: at least `minLength` characters and not only
 * digits (the graph's rule, `ingest/graph-terms.ts`, read here for the shared analysis).
 */
export function isGraphTerm(term: string, minLength: number): boolean {
  return term.length >= minLength && !ALL_DIGITS.test(term);
}

/** Words read for language detection (`language-detection.ts`'s window). */
const DETECTION_WINDOW = 200;

/**
 * Whether `auto` detection reads a text's words as English (`text`: for non-ASCII letter
 * hints; `repeated`: the first words counted three times, as in a keyword text).
 */
function english(words: string[], ascii: boolean, text: string, repeated = 0): boolean {
  return latinLanguage({ words, ascii, spaceless: false }, text, 'auto', repeated) === 'en';
}

/** Where the graph's prefix of a lower-cased ASCII text ends among its words. */
interface Prefix {
  /** Words wholly inside the prefix. */
  readonly words: number;
  /** The part inside it of the word the prefix cuts, if it cuts one. */
  readonly cut: string | undefined;
}

/**
 * How many of the words of lower-cased ASCII text start before `headerLength`, and the words of
 * its first `characters` characters (`characters` < 0: none asked).
 */
function asciiBounds(
  lowered: string,
  words: readonly string[],
  headerLength: number,
  characters: number,
): { headerWords: number; prefix: Prefix } {
  const reach = Math.max(headerLength, characters);
  let headerWords = 0;
  let prefixWords = words.length;
  let cut: string | undefined;
  for (let index = 0, at = 0; index < words.length; index++) {
    const word = words[index]!;
    // A word starts at the first letter or digit from `at`: found by its own text.
    const start = lowered.indexOf(word, at);
    if (start >= reach) {
      // This word and the later ones are past the header and the prefix.
      if (prefixWords === words.length) prefixWords = index;
      break;
    }
    const end = start + word.length;
    if (start < headerLength) headerWords = index + 1;
    if (prefixWords === words.length && end > characters) {
      prefixWords = index;
      if (start < characters) cut = lowered.slice(start, characters);
    }
    at = end;
  }
  return { headerWords, prefix: { words: prefixWords, cut } };
}

/**
 * The shared analysis of a chunk whose embedded text is `text`: a header (`headerLength`
 * characters, then a line break) and its body, or only the body (`headerLength` 0); its keyword
 * text `keywordText` is the header and a line break three times, then the body. `undefined`
 * when the text has a script written without spaces or a view of it is not detected as
 * English. The graph's terms are computed for all-ASCII text only (otherwise `undefined`: the
 * graph reads its prefix itself, whose normalisation may differ at the cut).
 */
export function analyzeChunk(
  text: string,
  keywordText: string,
  headerLength: number,
  options: ChunkAnalysisOptions,
): ChunkAnalysis | undefined {
  const ascii = isAscii(text);
  let words: string[];
  let headerWords: number;
  let prefix: Prefix | undefined;
  if (ascii) {
    const lowered = text.toLowerCase();
    words = asciiWords(lowered);
    if (!english(words, true, text)) return undefined;
    const bounds = asciiBounds(lowered, words, headerLength, options.graph?.characters ?? -1);
    headerWords = bounds.headerWords;
    if (options.graph !== undefined) prefix = bounds.prefix;
  } else {
    // The header and the body are cut apart by a line break, which NFKC, lower-casing and the
    // word pattern all stop at: the text's words are the header's, then the body's.
    const segmented = segmentText(text);
    if (segmented.spaceless || !english(segmented.words, false, text)) return undefined;
    words = segmented.words;
    headerWords = headerLength > 0 ? segmentText(text.slice(0, headerLength)).words.length : 0;
  }
  if (options.keyword && headerWords > 0) {
    if (!english(words, ascii, keywordText, headerWords)) return undefined;
  }
  if (prefix !== undefined && (prefix.words < words.length || prefix.cut !== undefined)) {
    const view = words.slice(0, Math.min(prefix.words, DETECTION_WINDOW));
    if (prefix.cut !== undefined && view.length < DETECTION_WINDOW) view.push(prefix.cut);
    if (!english(view, true, '')) return undefined;
  }
  const graph = prefix !== undefined ? options.graph : undefined;
  const graphTerms = graph !== undefined ? new Map<string, number>() : undefined;
  const count = (term: string): void => {
    if (isGraphTerm(term, graph!.minLength))
      graphTerms!.set(term, (graphTerms!.get(term) ?? 0) + 1);
  };
  const prefixWords = graph !== undefined ? prefix!.words : 0;
  // Arrays of their largest length, cut to size at the end (in place): no copies as they grow.
  const keywordTerms = options.keyword ? new Array<string>(words.length + 2 * headerWords) : [];
  const content = new Array<string>(words.length);
  let contentLength = 0;
  let keywordLength = 0;
  // One stem lookup per word: a stop word's term is '' (`englishTerm`).
  for (let index = 0; index < words.length; index++) {
    const word = ascii ? words[index]! : foldAccents(words[index]!);
    words[index] = word;
    const term = englishTerm(word);
    if (term === '') continue;
    content[contentLength++] = word;
    if (options.keyword) {
      keywordTerms[keywordLength++] = term;
      if (index < headerWords) {
        keywordTerms[keywordLength++] = term;
        keywordTerms[keywordLength++] = term;
      }
    }
    if (index < prefixWords) count(term);
  }
  content.length = contentLength;
  keywordTerms.length = keywordLength;
  if (graph !== undefined && prefix!.cut !== undefined) {
    const term = englishTerm(prefix!.cut);
    if (term !== '') count(term);
  }
  return {
    text,
    split: { words, content },
    keywordTerms: options.keyword ? keywordTerms : undefined,
    graphTerms,
  };
}

/**
 * The key of the shared analysis in an `embed` call's options: a function from a text's place
 * in the call to its analysis (or `undefined`), read only by the engine's own hashing embedder;
 * any other embedder gets the texts alone.
 */
export const CHUNK_ANALYSES: unique symbol = Symbol('cortexis.chunkAnalyses');

/**
 * The settings an embedder was made from, as plain data: an ingest worker builds the same
 * embedder from them (the hashing embedder's resolved settings, `adapters/hashing/`).
 */
export type EmbedderRecipe = Readonly<Record<string, number>>;

/** Embedders that read `CHUNK_ANALYSES` (the hashing embedder registers itself). */
const readers = new WeakMap<object, { readonly embed: unknown; readonly recipe: EmbedderRecipe }>();

/**
 * Registers an embedder that reads the shared analyses of its texts, made from `recipe`: an
 * ingest worker may build the same embedder from it and embed there.
 */
export function readsChunkAnalyses(
  embedder: { readonly embed: unknown },
  recipe: EmbedderRecipe,
): void {
  readers.set(embedder, { embed: embedder.embed, recipe });
}

/**
 * Whether an embedder (or the one a wrapper's `inner` names, as the engine's resilient wrapper
 * does) is one that reads the shared analyses.
 */
export function takesChunkAnalyses(embedder: object): boolean {
  if (readers.has(embedder)) return true;
  const inner = (embedder as { inner?: unknown }).inner;
  return typeof inner === 'object' && inner !== null && readers.has(inner);
}

/**
 * The settings to build this very embedder from elsewhere (an ingest worker): only for the
 * object its factory registered, its `embed` still its own. Any other object (a host's
 * embedder, a spread copy, a wrapper, one whose `embed` was replaced) gets `undefined` and is
 * called where it is.
 */
export function embedderRecipe(embedder: object): EmbedderRecipe | undefined {
  const entry = readers.get(embedder);
  if (entry === undefined || (embedder as { embed?: unknown }).embed !== entry.embed) {
    return undefined;
  }
  return entry.recipe;
}
