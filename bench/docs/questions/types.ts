/**
 * The shape of a documentation benchmark's question set (`bench/docs.ts`): questions written
 * before the engine was run on the corpus, each answerable one with the fact it asks for, the
 * file that states it and a grading pattern a non-answer does not match.
 */

/** What kind of unit states the answer in the corpus. */
export type AnswerKind = 'code' | 'table' | 'list' | 'default' | 'heading' | 'prose';

/** Kinds that count as structure (a code block, a table, a list item, a "Default:" line). */
export const STRUCTURED_KINDS: ReadonlySet<AnswerKind> = new Set([
  'code',
  'table',
  'list',
  'default',
]);

/** A question the corpus answers. */
export interface AnswerableQuestion {
  /** The question, as a user would type it. */
  readonly question: string;
  /** The fact the answer must state, in words. */
  readonly fact: string;
  /** Files (paths relative to the corpus folder) that state it; the first is the main one. */
  readonly files: readonly string[];
  /** Matches an answer that states the fact; a non-answer does not match. */
  readonly pattern: RegExp;
  /** The unit that states the fact. */
  readonly kind: AnswerKind;
}

/** A two-turn conversation: the second turn is graded. */
export interface FollowUpQuestion extends Omit<AnswerableQuestion, 'question'> {
  /** The first question (not graded) and the follow-up (graded). */
  readonly turns: readonly [string, string];
}

/** The questions of one corpus. */
export interface QuestionSet {
  /** The corpus folder's name. */
  readonly corpus: string;
  /** Where the corpus was copied from (package, version, licence). */
  readonly source: string;
  readonly answerable: readonly AnswerableQuestion[];
  /** On-topic questions the corpus does not answer: should be refused. */
  readonly unanswerable: readonly string[];
  /** Questions about something else entirely: should be refused. */
  readonly offTopic: readonly string[];
  readonly followUps: readonly FollowUpQuestion[];
}
