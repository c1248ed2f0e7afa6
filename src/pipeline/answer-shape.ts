/**
 * Whether an answer holds what its question asks for, whatever model wrote it: a how-to
 * answered without a command, code or identifier, a default asked for and no value given, or
 * an answer that only restates the question ("You can specify a default value for an
 * option." to "How do I give an option a default value?"), or one that leads with a quote from
 * a source below the top one. The confidence score reads it: an answer that lacks what was
 * asked is never `high`, one that restates the question is `low`. Pure; looks only at the two
 * texts (and the top source's label).
 */
import { answerHolds, definedSubject, intentsOf, type Intent } from '../text/question-intent.js';
import { isRefusalText } from '../text/refusal.js';
import { citedLabels } from './judge/claims.js';
import { stem, stemmedTerms } from '../text/stem.js';
import { asks, focusTerms } from './guard-focus.js';
import { contentWords } from '../text/words.js';
import { trimEnds } from '../util/trim-trailing.js';

/** What the check found. */
export interface AnswerShape {
  /** What the question asks for (empty when it names nothing particular). */
  readonly intents: readonly Intent[];
  /** Whether the answer holds what the question asks for (true when it asks nothing particular). */
  readonly holds: boolean;
  /**
   * Whether the answer's first citation names a source other than the top one (the best
   * retrieved chunk): the unit that best matched the question lies outside the chunk retrieval
   * ranked first. On the tune half of `bench:docs` it held for the one wrong answer rated
   * `high` and for 3 of the 48 right ones; it keeps the answer below `high` (the cap
   * `answer-below-top-source`).
   */
  readonly belowTop: boolean;
  /** Whether the answer adds fewer than two content words to the question's. */
  readonly restates: boolean;
  /**
   * Whether a word the question is about is in none of the sources while the best is weak
   * (set by the turn from `weakFocus` of `src/pipeline/guard-focus.ts`).
   */
  readonly focusMissing?: boolean | undefined;
  /** Focus words of the question (`focusTerms`) the answer does not contain. */
  readonly lacksFocus: readonly string[];
}

// Fewer new content words than this, and no code block: the answer restates the question.
const MIN_ADDED_TERMS = 2;
// No leading `\s*`: on a run of white space it would make the replace quadratic.
const TAG = /\[\s{0,8}source\s{0,8}:[^\]\n]{0,100}\]/gi;
// Longest text read: the check is for an answer, not a document.
const MAX_LENGTH = 20_000;

// A name or value as documentation writes one: camelCase or PascalCase with an inner capital, a
// dotted path, SCREAMING_CASE, or a number (tested on one token at a time: no backtracking).
const NAME_OR_VALUE = [
  /[a-z][A-Z]/,
  /^[A-Za-z_$][\w$]*\.[A-Za-z_$]/,
  /^[A-Z][A-Z\d]*_[A-Z\d_]*$/,
  /^\d/,
] as const;

/**
 * Whether an answer names something the question does not (`AuthenticationError` for "Which
 * error type corresponds to a 401 status code?"): a one-word answer that is a name or a value
 * answers, it does not restate.
 */
function namesNew(answer: string, question: string): boolean {
  const asked = question.toLowerCase();
  for (const token of answer.split(/[^\w$.]+/)) {
    const word = trimEnds(token, '.', '.');
    if (word === '' || !NAME_OR_VALUE.some((pattern) => pattern.test(word))) continue;
    if (!asked.includes(word.toLowerCase())) return true;
  }
  return false;
}

/**
 * The shape of an answer to a question; undefined for a refusal or an empty answer.
 * `filedUnder`: the document and headings of the sources the answer cites; `topLabel`: the
 * label of the top source (`S1`), when the answer was written from ranked sources.
 */
export function checkAnswerShape(
  question: string,
  answer: string,
  filedUnder = '',
  topLabel?: string,
): AnswerShape | undefined {
  const text = answer.slice(0, MAX_LENGTH).replace(TAG, '');
  if (text.trim() === '' || isRefusalText(answer)) return undefined;
  const asked = question.slice(0, MAX_LENGTH);
  const intents = intentsOf(asked);
  const subject = definedSubject(asked);
  const lead = topLabel === undefined ? undefined : citedLabels(answer.slice(0, MAX_LENGTH))[0];
  const belowTop = lead !== undefined && lead !== topLabel;
  const holds =
    intents.length === 0 || intents.some((intent) => answerHolds(text, intent, subject));
  const questionTerms = new Set(contentWords(asked).map(stem));
  let added = 0;
  for (const term of new Set(contentWords(text).map(stem))) {
    if (!questionTerms.has(term) && ++added >= MIN_ADDED_TERMS) break;
  }
  const restates =
    added < MIN_ADDED_TERMS && !/^[ \t]*(?:```|~~~)/m.test(text) && !namesNew(text, asked);
  return { intents, holds, belowTop, restates, lacksFocus: lackedFocus(asked, text, filedUnder) };
}

/**
 * Focus words of a question that asks (`asks`) which the answer and what its sources are filed
 * under do not contain; none for a text that asks nothing (a claim), whose answer is then not
 * analysed at all.
 */
function lackedFocus(asked: string, text: string, filedUnder: string): string[] {
  if (!asks(asked)) return [];
  // The document and headings the cited sources are filed under name what the answer is about.
  const answerTerms = new Set(stemmedTerms(`${text}\n${filedUnder.slice(0, MAX_LENGTH)}`));
  return focusTerms(asked).filter((term) => !answerTerms.has(term));
}
