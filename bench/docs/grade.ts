/**
 * The pure half of `bench:docs`: question sets flattened into cases with their split, each
 * reply graded, and the figures a group of graded cases gives. No engine, no files.
 */
import type { AnswerKind, QuestionSet } from './questions/types.js';
import { STRUCTURED_KINDS } from './questions/types.js';

/** Which half a case belongs to: tuning, test, or the held-out sets. */
export type Split = 'tune' | 'test' | 'heldout';

/** What a case asks. */
export type Category = 'answerable' | 'unanswerable' | 'off-topic' | 'follow-up';

/** One case: its turns (the last one graded) and what a right answer states. */
export interface DocsCase {
  readonly corpus: string;
  readonly split: Split;
  readonly category: Category;
  /** The messages of the conversation; the reply to the last one is graded. */
  readonly turns: readonly string[];
  /** Answerable and follow-up cases: what a right answer states. */
  readonly expected: {
    readonly fact: string;
    readonly files: readonly string[];
    readonly pattern: RegExp;
    readonly kind: AnswerKind;
  } | null;
}

/** Even positions tune, odd positions test. */
export function splitOf(index: number): 'tune' | 'test' {
  return index % 2 === 0 ? 'tune' : 'test';
}

/**
 * The split of each item of a list of answerable questions: the items are grouped by answer
 * kind (kinds in order of first appearance, items in list order) and the grouped list
 * alternates, so both halves get their share of code blocks, tables, lists and defaults
 * whatever order the questions were written in, and the halves differ by one item at most.
 */
export function splitsByKind(items: readonly { readonly kind: AnswerKind }[]): ('tune' | 'test')[] {
  const kinds = [...new Set(items.map((item) => item.kind))];
  const grouped = items
    .map((item, index) => ({ index, rank: kinds.indexOf(item.kind) }))
    .sort((a, b) => a.rank - b.rank || a.index - b.index);
  const splits: ('tune' | 'test')[] = new Array<'tune' | 'test'>(items.length);
  grouped.forEach((entry, position) => (splits[entry.index] = splitOf(position)));
  return splits;
}

/** The cases of a question set; `heldout` puts every case in the held-out split. */
export function casesOf(set: QuestionSet, heldout = false): DocsCase[] {
  const split = (index: number): Split => (heldout ? 'heldout' : splitOf(index));
  const answerableSplits = splitsByKind(set.answerable);
  const base = { corpus: set.corpus };
  return [
    ...set.answerable.map((item, index): DocsCase => ({
      ...base,
      split: heldout ? 'heldout' : answerableSplits[index]!,
      category: 'answerable',
      turns: [item.question],
      expected: { fact: item.fact, files: item.files, pattern: item.pattern, kind: item.kind },
    })),
    ...set.unanswerable.map((question, index): DocsCase => ({
      ...base,
      split: split(index),
      category: 'unanswerable',
      turns: [question],
      expected: null,
    })),
    ...set.offTopic.map((question, index): DocsCase => ({
      ...base,
      split: split(index),
      category: 'off-topic',
      turns: [question],
      expected: null,
    })),
    ...set.followUps.map((item, index): DocsCase => ({
      ...base,
      split: split(index),
      category: 'follow-up',
      turns: item.turns,
      expected: { fact: item.fact, files: item.files, pattern: item.pattern, kind: item.kind },
    })),
  ];
}

/** What the engine gave for a case's graded turn. */
export interface DocsReply {
  readonly text: string;
  /** Whether any stage refused (guard, model or judge). */
  readonly refused: boolean;
  /** The document id of the first source, or null without sources. */
  readonly topFile: string | null;
  readonly level: 'high' | 'medium' | 'low';
  readonly overall: number;
  /** The confidence's factors and the best source's score (`bench/docs/separation.ts`). */
  readonly signals?: Readonly<Record<string, number | null>> | undefined;
}

/** A graded case. */
export interface DocsOutcome {
  readonly case: DocsCase;
  readonly reply: DocsReply;
  /** Answerable and follow-up: not refused and the pattern matches the answer text. */
  readonly correct: boolean;
  /** Answerable and follow-up: the first source is a file that states the fact. */
  readonly rightFile: boolean;
}

/** Grades one reply. */
export function gradeReply(item: DocsCase, reply: DocsReply): DocsOutcome {
  if (item.expected === null) return { case: item, reply, correct: false, rightFile: false };
  const { pattern, files } = item.expected;
  // a fresh RegExp: a `g` or `y` flag would make `test` depend on the last call
  const matches = new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, '')).test(reply.text);
  return {
    case: item,
    reply,
    correct: !reply.refused && matches,
    rightFile: reply.topFile !== null && files.includes(reply.topFile),
  };
}

/** A count and its share. */
export interface Share {
  readonly count: number;
  readonly of: number;
  /** count / of in [0, 1]; null when `of` is 0. */
  readonly share: number | null;
}

const share = (count: number, of: number): Share => ({
  count,
  of,
  share: of === 0 ? null : count / of,
});

/** The figures of a group of graded cases. */
export interface DocsSummary {
  /** Answerable questions answered correctly. */
  readonly answerableCorrect: Share;
  /** Of them, those answered by a code block, table, list item or "Default:" line. */
  readonly structuredCorrect: Share;
  /** Answerable questions whose first source states the fact. */
  readonly rightFileTop: Share;
  /** Second turns of follow-ups answered correctly. */
  readonly followUpsCorrect: Share;
  /** On-topic questions the corpus does not answer, refused. */
  readonly unanswerableRefused: Share;
  /** Off-topic questions refused. */
  readonly offTopicRefused: Share;
  /**
   * Calibration, over every answer not refused (answerable and follow-up ones graded by their
   * pattern; an answer to an unanswerable or off-topic question is wrong).
   */
  readonly calibration: {
    /** Wrong or partial answers rated `high` or `medium`. */
    readonly wrongRatedHighOrMedium: Share;
    /** Correct answers rated `low`. */
    readonly correctRatedLow: Share;
    /** Answers rated `medium` that are correct. */
    readonly mediumPrecision: Share;
    /** Answers rated `high` that are correct. */
    readonly highPrecision: Share;
  };
}

/** Sums up a group of graded cases. */
export function summarize(outcomes: readonly DocsOutcome[]): DocsSummary {
  const of = (category: Category) => outcomes.filter((o) => o.case.category === category);
  const answerable = of('answerable');
  const structured = answerable.filter((o) => STRUCTURED_KINDS.has(o.case.expected!.kind));
  const followUps = of('follow-up');
  const unanswerable = of('unanswerable');
  const offTopic = of('off-topic');
  const answered = outcomes.filter((o) => !o.reply.refused);
  const right = answered.filter((o) => o.correct);
  const wrong = answered.filter((o) => !o.correct);
  const rated = (level: DocsReply['level']) => answered.filter((o) => o.reply.level === level);
  const count = (items: readonly DocsOutcome[], test: (o: DocsOutcome) => boolean) =>
    items.filter(test).length;
  return {
    answerableCorrect: share(
      count(answerable, (o) => o.correct),
      answerable.length,
    ),
    structuredCorrect: share(
      count(structured, (o) => o.correct),
      structured.length,
    ),
    rightFileTop: share(
      count(answerable, (o) => o.rightFile),
      answerable.length,
    ),
    followUpsCorrect: share(
      count(followUps, (o) => o.correct),
      followUps.length,
    ),
    unanswerableRefused: share(
      count(unanswerable, (o) => o.reply.refused),
      unanswerable.length,
    ),
    offTopicRefused: share(
      count(offTopic, (o) => o.reply.refused),
      offTopic.length,
    ),
    calibration: {
      wrongRatedHighOrMedium: share(
        count(wrong, (o) => o.reply.level !== 'low'),
        wrong.length,
      ),
      correctRatedLow: share(
        count(right, (o) => o.reply.level === 'low'),
        right.length,
      ),
      mediumPrecision: share(
        count(rated('medium'), (o) => o.correct),
        rated('medium').length,
      ),
      highPrecision: share(
        count(rated('high'), (o) => o.correct),
        rated('high').length,
      ),
    },
  };
}
