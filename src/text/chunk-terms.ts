/**
 * One analysis of a retrieved chunk's text, shared by every stage of a turn that reads its
 * index terms: the guard (the chunk's text) and the focus check (the text under its document
 * id, title and headings, `focusText` in `src/pipeline/guard-focus.ts`). A chunk is segmented,
 * its language detected and its words stemmed once; the focus check adds only its short header.
 *
 * The terms of a header and a body joined by a line break are the terms `analyzeTerms` gives
 * the joined text: for ASCII texts the joined words are the header's then the body's, and each
 * word's term depends on the word and the language only, so the language is detected on the
 * joined words (the header's and the first `DETECTION_WINDOW` of the body's) and the body's
 * terms are reused when it is the body's own. Any other text is analysed joined, as before.
 *
 * The analyses of the last `RECENT` chunks are kept (a turn's chunks are read by the guard and
 * then the focus check), and those of chunks seen again in a bounded second-sight cache.
 * @module
 */
import { createSecondSightCache, registerTextCache } from '../util/second-sight.js';
import { analyzeTerms, asciiTerms } from './analyzer.js';
import { DETECTION_WINDOW, latinLanguage, type LatinLanguage } from './language-detection.js';
import { segmentText } from './segment.js';

/** Terms of a text, as far as a stage asks: whether it contains one. */
export interface TermLookup {
  has(term: string): boolean;
}

/** What is kept of a chunk's text. */
interface ChunkAnalysis {
  /** Its distinct index terms (`analyzeTerms`, language detected). */
  readonly terms: ReadonlySet<string>;
  /** Its words when the text is ASCII (else undefined: joined texts are analysed whole). */
  readonly words: readonly string[] | undefined;
  /** The language its ASCII words were stemmed in. */
  readonly language: LatinLanguage;
}

/** Chunks whose analyses are kept whatever their count of sights (more than a turn reads). */
const RECENT = 64;

const recent = new Map<string, ChunkAnalysis>();
registerTextCache(recent);
const kept = createSecondSightCache<ChunkAnalysis>(4096);

function analyse(text: string): ChunkAnalysis {
  const segmented = segmentText(text);
  if (!segmented.ascii)
    return { terms: new Set(analyzeTerms(text)), words: undefined, language: 'en' };
  const language = latinLanguage(segmented, text, 'auto');
  return {
    terms: new Set(asciiTerms(segmented.words, language)),
    words: segmented.words,
    language,
  };
}

/** The kept analysis of a chunk text, computed on its first sight. */
function chunkAnalysis(text: string): ChunkAnalysis {
  let found = recent.get(text);
  if (found === undefined) {
    found = kept.get(text, () => analyse(text));
    recent.set(text, found);
    if (recent.size > RECENT) recent.delete(recent.keys().next().value!);
  }
  return found;
}

/** The distinct index terms of a chunk's text (`analyzeTerms`, language detected), shared. */
export function chunkTerms(text: string): ReadonlySet<string> {
  return chunkAnalysis(text).terms;
}

/**
 * The index terms of `header + '\n' + text` (exactly what `analyzeTerms` gives the joined
 * text), from the chunk's shared analysis and the header's words.
 */
export function headedChunkTerms(header: string, text: string): TermLookup {
  const body = chunkAnalysis(text);
  const head = segmentText(header);
  if (body.words === undefined || !head.ascii) return new Set(analyzeTerms(`${header}\n${text}`));
  const window = head.words.concat(body.words.slice(0, DETECTION_WINDOW));
  const language = latinLanguage({ words: window, ascii: true, spaceless: false }, '', 'auto');
  const headTerms = new Set(asciiTerms(head.words, language));
  const bodyTerms =
    language === body.language ? body.terms : new Set(asciiTerms(body.words, language));
  return { has: (term) => headTerms.has(term) || bodyTerms.has(term) };
}
