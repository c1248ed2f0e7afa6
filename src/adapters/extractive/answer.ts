/**
 * What the extractive model answers: the answer-shaping options and their defaults, the answer
 * before `maxTokens` is applied, the fixed replies when nothing can be quoted, and how a quoted
 * sentence is cited and a certainty rounded.
 */

/** How answers are composed (the answer-shaping subset of the settings). */
export interface ExtractiveAnswerOptions {
  /** Most source sentences quoted. Default 3. */
  readonly maxSentences?: number | undefined;
  /** Most sentences in a summary. Default 5. */
  readonly maxSummarySentences?: number | undefined;
  /** Least share of the question's term weight a quoted sentence contains. Default 0.2. */
  readonly minCoverage?: number | undefined;
}

/** The answer-shaping options with their defaults applied. */
export type AnswerOptions = { readonly [K in keyof ExtractiveAnswerOptions]-?: number };

/** Applies the defaults to the answer-shaping options. */
export function answerOptions(options: ExtractiveAnswerOptions): AnswerOptions {
  return {
    maxSentences: options.maxSentences ?? 3,
    maxSummarySentences: options.maxSummarySentences ?? 5,
    minCoverage: options.minCoverage ?? 0.2,
  };
}

/** An answer before `maxTokens` is applied. */
export interface ExtractiveAnswer {
  /** The answer text. */
  readonly text: string;
  /** How well the quoted sentences cover the question, in [0, 1]; absent for small talk. */
  readonly certainty?: number | undefined;
  /**
   * The best score of a unit with other text over the lead unit's, in [0, 1] (1 = a tie): how
   * close the model came to quoting something else. Absent when nothing was quoted.
   */
  readonly runnerUp?: number | undefined;
}

/** What the provider answers when no source sentence overlaps the question. */
export const NO_ANSWER_TEXT = 'The provided sources do not contain an answer to this question.';
/** What the provider answers to a question when no sources are supplied. */
export const NO_SOURCES_TEXT =
  'I answer only from the documents in the knowledge base, and none were provided for this question.';

/** Appends `[source: label]` to a sentence, before its final punctuation. */
export function cite(sentence: string, label: string | undefined): string {
  if (label === undefined) return sentence;
  const tag = `[source: ${label}]`;
  const match = /((?<![.!?…])[.!?…]+["'”’)\]]*)$/.exec(sentence);
  if (!match) return `${sentence} ${tag}.`;
  return `${sentence.slice(0, match.index).trimEnd()} ${tag}${match[1]}`;
}

/** A certainty rounded to three decimals. */
export function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
