/**
 * The guard's focus check: a question whose own subject the retrieved chunks never mention is
 * not answered by them, however close they are otherwise ("How do I set the passphrase of a
 * client certificate?" retrieves the TLS pages, none of which says "passphrase"). The focus is
 * the question's content words without the words that say what kind of answer is wanted
 * ("which *function*", "the *default*", "*how* do I"), without words that carry no topic
 * ("whether", "another") and without a verb that asks whether ("*check* whether", "*find out*
 * if"). The check refuses when
 *
 * - the text asks a question (ends with "?"; a claim to check is left to the guard's model), and
 * - a literal the question writes as code (a version `1.3`, a call `parse()`, a dotted path
 *   `a.b`, a flag) occurs in no retrieved chunk, or `MISSING_TERMS` focus terms occur in
 *   no retrieved chunk (a price or time-of-day word counts as present where an amount or a
 *   clock time is stated, a word of five letters or more where a chunk writes it inside a
 *   longer word: "unordered" in `unorderedList`) and the best chunk's score is below
 *   `MISSING_TERM_TOP_SCORE`: strong retrieval evidence speaks for a chunk that says the same
 *   thing in other words.
 *
 * Measured on the tune half of `npm run bench:docs` (docs/benchmarks.md, "issue 26, answers
 * round 3"). Pure; looks only at the texts and the score.
 */
import { questionLiterals } from '../text/question-intent.js';
import { createSecondSightCache } from '../util/second-sight.js';
import { answeredByType } from './guard-answer-type.js';
import { indexTerms } from './guard.js';
import { stem, stemmedTerms } from '../text/stem.js';

/**
 * Below this best-chunk score, `MISSING_TERMS` focus terms no chunk contains refuse. Chosen on
 * the tune parts of `bench:docs` and `bench:trust` together: one missing term, or a bound of
 * 0.75, refused paraphrased questions the trust benchmark answers ("What does a call that
 * failed after several attempts reject with?").
 */
export const MISSING_TERM_TOP_SCORE = 0.6;
/** Focus terms missing from every chunk that, with a weak best chunk, refuse. */
export const MISSING_TERMS = 2;

/**
 * Whether a text asks a question (ends with "?"): a statement to check (a claim) is matched
 * against the sources whatever words it uses.
 */
export function asks(text: string): boolean {
  return /\?[\s"'”’)]*$/.test(text);
}

// Words that say what kind of answer is wanted, not what it is about: the docs name the
// thing asked for without them ("Which function parses …" ↔ "`parse(header)` parses …").
const ANSWER_KIND_WORDS =
  'function functions method methods class classes option options flag flags command commands ' +
  'event events property properties hook hooks api setting settings field fields helper ' +
  'helpers utility constructor call default defaults value values name type kind way ' +
  'maximum minimum max min limit example';
// Words that carry no topic of their own, words that ask rather than name (what a thing
// *answers* or *replies*, what *turns* it on or off), and the quantity words of "how many / much
// / often". The framing words of round 12 ("put", "hold", "pass", "unless", "change", "user",
// "several") and "wins" gained on the tune half only and were removed (docs/benchmarks.md,
// "ablate14").
const GENERIC_WORDS =
  'whether another one ones let make makes get gets use using used set sets do does thing ' +
  'things something anything possible able need want explain describe tell please list give ' +
  'show know mean means happen happens work works many much often long soon far big old fast ' +
  'quickly really actually exactly whose answer answers reply replies respond responds turn turns';

// A verb that governs "whether" or "if" asks a yes/no question about what follows; the docs
// state the answer without it ("How do I check whether a version satisfies a range?" ↔
// "`satisfies(version, range)`: Return true if the version satisfies the range"). Only before
// "whether"/"if": "a health check", "the --check flag" and "which tests run" keep their word.
const YES_NO_VERBS =
  /\b(?:check|checks|checking|verify|verifies|verifying|determine|determines|confirm|confirms|test|tests|testing|detect|detects|find out|see)\s+(?=(?:whether|if)\b)/gi;

let builtIgnored: ReadonlySet<string> | undefined;

/** Stemmed words that are never a question's focus (stemmed on the first call). */
function ignoredTerms(): ReadonlySet<string> {
  return (builtIgnored ??= new Set(`${ANSWER_KIND_WORDS} ${GENERIC_WORDS}`.split(' ').map(stem)));
}

// The chunks of a turn come back turn after turn, and the guard and the confidence both read
// them: the terms of texts seen at least twice are kept (shared, never mutated).
const keptTerms = createSecondSightCache<ReadonlySet<string>>(4096);

/**
 * The text the focus check reads for a chunk: its document id, title and heading path, then its
 * text (a README's package name is often only in the first three).
 */
export function focusText(
  documentId: string,
  title: string | null | undefined,
  section: string | undefined,
  text: string,
): string {
  return [documentId, title ?? '', section ?? '', text].join('\n');
}

/** The index terms of a chunk's text (with its document id, title and headings), cached. */
export function focusChunkTerms(text: string): ReadonlySet<string> {
  return keptTerms.get(text, () => indexTerms(text));
}

/** The stemmed focus terms of a question (see the module comment). */
export function focusTerms(question: string): string[] {
  const ignored = ignoredTerms();
  const terms = stemmedTerms(question.replace(YES_NO_VERBS, ' '));
  return [...new Set(terms)].filter((term) => !ignored.has(term));
}

/**
 * Whether a literal of the question (lower-cased) is written as code is: a version `1.3`, a
 * range `^0.2`, a call `parse()`, a dotted path `a.b`, a flag `--watch`; not a hyphenated
 * compound ("end-to-end", "built-in", "Set-Cookie") that docs may spell apart. A camelCase name
 * missing from every chunk is a missing focus term.
 */
function isCodeLiteral(literal: string): boolean {
  return /\d|[\^~<>=]|[a-z]\.[a-z]|\(\)|^--?[a-z]/.test(literal);
}

/**
 * Below this best-chunk score, one focus term no chunk contains makes an answer `low`
 * (`weakFocus`). On the tune half of `bench:docs` the answered questions missing a focus term
 * scored 0.45–0.69 when unanswerable or answered wrongly, 0.82–0.96 when answered right.
 */
export const WEAK_FOCUS_TOP_SCORE = 0.75;

/**
 * The words of `question` (as written) whose focus terms are in none of `chunks`, when the
 * answer from them stands on weak evidence: the question asks, a focus term is in no chunk,
 * and the best chunk scores below `WEAK_FOCUS_TOP_SCORE`; else none. Not a refusal by itself
 * (`missingFocus` decides that before generation): the turn lowers the confidence, and refuses
 * when the model's own certainty is low too or the best chunk is below `MISSING_TERM_TOP_SCORE`
 * (`focusMissingRefuses` in `src/pipeline/score.ts`, called from
 * `src/pipeline/turn/grounding.ts`).
 */
export function weakFocus(
  question: string,
  chunks: readonly string[],
  topScore: number,
  termsOf: (text: string) => ReadonlySet<string>,
): readonly string[] {
  if (chunks.length === 0 || !mayBeWeakFocus(question, topScore)) return [];
  const missing = new Set(missingFocus(question, chunks, topScore, termsOf).terms);
  if (missing.size === 0) return [];
  const written = new Map<string, string>();
  for (const word of question.split(/[^\p{L}\p{N}_-]+/u)) {
    const term = stemmedTerms(word)[0];
    if (term !== undefined && missing.has(term) && !written.has(term)) written.set(term, word);
  }
  return [...missing].map((term) => written.get(term) ?? term);
}

/**
 * Whether `weakFocus` can find a word missing, whatever the chunks: the question asks and the
 * best chunk scores below `WEAK_FOCUS_TOP_SCORE` (a turn builds the chunks' texts only then).
 */
export function mayBeWeakFocus(question: string, topScore: number): boolean {
  return topScore < WEAK_FOCUS_TOP_SCORE && asks(question);
}

/** What the focus check found missing from every chunk. */
export interface MissingFocus {
  /** Focus terms no chunk contains (stemmed). */
  readonly terms: readonly string[];
  /** Literals of the question no chunk contains (lower-cased). */
  readonly literals: readonly string[];
  /** Whether the check refuses (see the module comment). */
  readonly refuse: boolean;
}

/**
 * The focus terms and literals of `question` that none of `chunks` contains, and whether that
 * refuses given the best chunk's `topScore`. `termsOf` gives a chunk's stemmed terms (the
 * guard's cache of them).
 */
export function missingFocus(
  question: string,
  chunks: readonly string[],
  topScore: number,
  termsOf: (text: string) => ReadonlySet<string>,
): MissingFocus {
  const terms = missingTerms(question, focusTerms(question), chunks, termsOf);
  const literals = missingLiterals(question, chunks);
  const refuse =
    chunks.length > 0 &&
    asks(question) &&
    (literals.length > 0 || (terms.length >= MISSING_TERMS && topScore < MISSING_TERM_TOP_SCORE));
  return { terms, literals, refuse };
}

/**
 * `missingFocus(…).refuse`, doing only the work that can change it: nothing for a text that
 * does not ask (a claim to check), and no chunk analysis when no code literal is missing and
 * the best chunk scores at least `MISSING_TERM_TOP_SCORE` or the question has fewer than
 * `MISSING_TERMS` focus terms. The turn's guard asks only this.
 */
export function focusRefuses(
  question: string,
  chunks: readonly string[],
  topScore: number,
  termsOf: (text: string) => ReadonlySet<string>,
): boolean {
  if (chunks.length === 0 || !asks(question)) return false;
  if (missingLiterals(question, chunks).length > 0) return true;
  if (topScore >= MISSING_TERM_TOP_SCORE) return false;
  const focus = focusTerms(question);
  return (
    focus.length >= MISSING_TERMS &&
    missingTerms(question, focus, chunks, termsOf).length >= MISSING_TERMS
  );
}

/**
 * The focus terms in none of `chunks`: in no chunk's terms, not written inside a longer word of
 * a chunk (`writtenInside`), and not a price or time-of-day word a chunk answers with an amount
 * or a clock time.
 */
function missingTerms(
  question: string,
  focus: readonly string[],
  chunks: readonly string[],
  termsOf: (text: string) => ReadonlySet<string>,
): string[] {
  if (focus.length === 0) return [];
  const chunkTerms = chunks.map(termsOf);
  let absent = focus.filter((term) => !chunkTerms.some((set) => set.has(term)));
  if (absent.length === 0) return absent;
  const inside = writtenInside(question, absent, chunks);
  if (inside.size > 0) absent = absent.filter((term) => !inside.has(term));
  if (absent.length === 0) return absent;
  // A price or time-of-day word: a chunk stating an amount or a time.
  const typed = new Set<string>();
  for (const text of chunks) for (const term of answeredByType(absent, text)) typed.add(term);
  return absent.filter((term) => !typed.has(term));
}

/** The question's code literals (lower-cased) that none of `chunks` contains. */
function missingLiterals(question: string, chunks: readonly string[]): string[] {
  const code = questionLiterals(question).filter(isCodeLiteral);
  if (code.length === 0) return code;
  const lower = chunks.map((text) => text.toLowerCase());
  return code.filter((literal) => !lower.some((text) => text.includes(literal)));
}

/** The shortest question word looked for inside a chunk's longer words (`writtenInside`). */
export const INSIDE_WORD_LETTERS = 5;
/**
 * The most question words looked for inside the chunks' longer words: each is a scan of every
 * chunk, and a question has far fewer focus words (a 100,000-character text of distinct words
 * would otherwise cost half a second); the words after these stay missing.
 */
const INSIDE_WORD_LOOKUPS = 32;

/**
 * Of the `absent` focus terms, those whose question word (`INSIDE_WORD_LETTERS` letters or
 * more) a chunk writes inside a longer word: a compound or an identifier the stemmer keeps
 * whole ("unordered" in `unorderedList`, "prefix" in `itemPrefix`, "timeout" in
 * `headersTimeout`). Shorter words are left out: "read" is in "already" and "thread".
 */
function writtenInside(
  question: string,
  absent: readonly string[],
  chunks: readonly string[],
): Set<string> {
  const found = new Set<string>();
  const wanted = new Set(absent);
  let lower: string[] | undefined;
  let lookups = 0;
  for (const word of question.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (word.length < INSIDE_WORD_LETTERS || !/^[a-z0-9]+$/.test(word)) continue;
    const term = stemmedTerms(word)[0];
    if (term === undefined || !wanted.has(term) || found.has(term)) continue;
    if (++lookups > INSIDE_WORD_LOOKUPS) break;
    lower ??= chunks.map((text) => text.toLowerCase());
    const inside = new RegExp(`[a-z0-9]${word}|${word}[a-z0-9]`);
    if (lower.some((text) => inside.test(text))) found.add(term);
  }
  return found;
}
