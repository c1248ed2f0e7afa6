import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import {
  casesOf,
  gradeReply,
  splitOf,
  splitsByKind,
  summarize,
  type DocsCase,
  type DocsReply,
} from '../../bench/docs/grade.js';
import { HELDOUT_SETS } from '../../bench/docs/heldout/questions/index.js';
import { QUESTION_SETS } from '../../bench/docs/questions/index.js';
import { STRUCTURED_KINDS, type QuestionSet } from '../../bench/docs/questions/types.js';
import { NO_ANSWER_TEXT, NO_SOURCES_TEXT } from '../../src/adapters/extractive/answer.js';
import { DEFAULT_GUARD_ANSWER } from '../../src/pipeline/prompt.js';

const DOCS = join(import.meta.dirname, '../../bench/docs');

const reply = (overrides: Partial<DocsReply> = {}): DocsReply => ({
  text: '',
  refused: false,
  topFile: null,
  level: 'low',
  overall: 0.2,
  ...overrides,
});

const answerableCase: DocsCase = {
  corpus: 'c',
  split: 'test',
  category: 'answerable',
  turns: ['Which status codes are retried?'],
  expected: {
    fact: '[429, 500]',
    files: ['Retry.md', 'RetryHandler.md'],
    pattern: /429\D+500/,
    kind: 'default',
  },
};

describe('bench:docs split', () => {
  it('alternates: even positions tune, odd positions test', () => {
    expect([0, 1, 2, 3].map(splitOf)).toEqual(['tune', 'test', 'tune', 'test']);
  });

  it('alternates within answer kinds, so each half gets its share of every kind', () => {
    const kinds = ['code', 'code', 'prose', 'code', 'table', 'prose', 'table', 'code'] as const;
    const splits = splitsByKind(kinds.map((kind) => ({ kind })));
    // grouped: code 0,1,3,7 → tune test tune test; prose 2,5 → tune test; table 4,6 → tune test
    expect(splits).toEqual(['tune', 'test', 'tune', 'tune', 'tune', 'test', 'test', 'test']);
    for (const kind of new Set(kinds)) {
      const ofKind = splits.filter((_, index) => kinds[index] === kind);
      expect(ofKind.filter((split) => split === 'tune').length).toBe(ofKind.length / 2);
    }
  });

  it('puts every case of a held-out set in the heldout split, and none of a tuning set', () => {
    const set = QUESTION_SETS[0]!;
    expect(new Set(casesOf(set, true).map((item) => item.split))).toEqual(new Set(['heldout']));
    expect(new Set(casesOf(set).map((item) => item.split))).toEqual(new Set(['tune', 'test']));
  });

  it('is deterministic and halves each tuning corpus to within one question per category', () => {
    for (const set of QUESTION_SETS) {
      const cases = casesOf(set);
      expect(casesOf(set).map((item) => item.split)).toEqual(cases.map((item) => item.split));
      for (const category of ['answerable', 'unanswerable', 'off-topic', 'follow-up'] as const) {
        const inCategory = cases.filter((item) => item.category === category);
        const tune = inCategory.filter((item) => item.split === 'tune').length;
        expect(Math.abs(tune - (inCategory.length - tune))).toBeLessThanOrEqual(1);
      }
    }
  });
});

describe('bench:docs grading', () => {
  it('counts an answer correct only when it states the fact and no stage refused', () => {
    const text = 'Default: [429, 500, 502] [source: S1].';
    expect(gradeReply(answerableCase, reply({ text })).correct).toBe(true);
    expect(gradeReply(answerableCase, reply({ text, refused: true })).correct).toBe(false);
    expect(
      gradeReply(answerableCase, reply({ text: 'Array of HTTP status codes to retry.' })).correct,
    ).toBe(false);
  });

  it('counts the top source right when it is any file that states the fact', () => {
    expect(gradeReply(answerableCase, reply({ topFile: 'RetryHandler.md' })).rightFile).toBe(true);
    expect(gradeReply(answerableCase, reply({ topFile: 'Client.md' })).rightFile).toBe(false);
    expect(gradeReply(answerableCase, reply({ topFile: null })).rightFile).toBe(false);
  });

  it('ignores a g flag on a pattern (no state carried from one grade to the next)', () => {
    const sticky: DocsCase = {
      ...answerableCase,
      expected: { ...answerableCase.expected!, pattern: /429/g },
    };
    const text = 'It retries 429.';
    expect(gradeReply(sticky, reply({ text })).correct).toBe(true);
    expect(gradeReply(sticky, reply({ text })).correct).toBe(true);
  });

  it('sums up refusals and calibration: a non-refused answer to an unanswerable question is wrong', () => {
    const unanswerable: DocsCase = { ...answerableCase, category: 'unanswerable', expected: null };
    const outcomes = [
      gradeReply(answerableCase, reply({ text: '429, 500', level: 'high' })), // right, high
      gradeReply(answerableCase, reply({ text: 'no', level: 'medium' })), // wrong, medium
      gradeReply(answerableCase, reply({ text: '429 then 500', level: 'low' })), // right, low
      gradeReply(unanswerable, reply({ text: 'something', level: 'medium' })), // wrong, medium
      gradeReply(unanswerable, reply({ refused: true })), // refused: not rated
    ];
    const summary = summarize(outcomes);
    expect(summary.answerableCorrect).toEqual({ count: 2, of: 3, share: 2 / 3 });
    expect(summary.structuredCorrect.count).toBe(2);
    expect(summary.unanswerableRefused).toEqual({ count: 1, of: 2, share: 0.5 });
    expect(summary.offTopicRefused).toEqual({ count: 0, of: 0, share: null });
    expect(summary.calibration.wrongRatedHighOrMedium).toEqual({ count: 2, of: 2, share: 1 });
    expect(summary.calibration.correctRatedLow).toEqual({ count: 1, of: 2, share: 0.5 });
    expect(summary.calibration.mediumPrecision).toEqual({ count: 0, of: 2, share: 0 });
    expect(summary.calibration.highPrecision).toEqual({ count: 1, of: 1, share: 1 });
  });
});

/** The checks every question set must pass (issue 26, item 1). */
function checkSet(set: QuestionSet, folder: string): void {
  expect(set.answerable.length).toBeGreaterThanOrEqual(15);
  expect(set.unanswerable.length).toBeGreaterThanOrEqual(5);
  expect(set.offTopic.length).toBeGreaterThanOrEqual(3);
  expect(set.followUps.length).toBeGreaterThanOrEqual(4);
  const structured = set.answerable.filter((item) => STRUCTURED_KINDS.has(item.kind)).length;
  expect(structured * 3).toBeGreaterThanOrEqual(set.answerable.length);
  const nonAnswers = [NO_ANSWER_TEXT, NO_SOURCES_TEXT, DEFAULT_GUARD_ANSWER, ''];
  const graded = [
    ...set.answerable.map((item) => ({ ...item, asked: [item.question] })),
    ...set.followUps.map((item) => ({ ...item, asked: [...item.turns] })),
  ];
  for (const item of graded) {
    // the first file named states what the pattern looks for
    const text = readFileSync(join(folder, set.corpus, item.files[0]!), 'utf8');
    expect(item.pattern.test(text), `${item.asked.join(' → ')}: ${item.files[0]}`).toBe(true);
    // a refusal or a restatement of the question is not an answer
    for (const nonAnswer of [...nonAnswers, ...item.asked]) {
      expect(item.pattern.test(nonAnswer), `${item.asked.join(' → ')} ~ ${nonAnswer}`).toBe(false);
    }
  }
}

describe('bench:docs question sets', () => {
  it.each(QUESTION_SETS.map((set) => [set.corpus, set] as const))(
    'tuning set %s: enough questions of each kind, patterns found in the file, not in non-answers',
    (_name, set) => checkSet(set, join(DOCS, 'corpora')),
  );

  it.each(HELDOUT_SETS.map((set) => [set.corpus, set] as const))(
    'held-out set %s: the same checks',
    (_name, set) => checkSet(set, join(DOCS, 'heldout/corpora')),
  );

  it('has at least three tuning corpora and two held-out ones, with their licences', () => {
    expect(QUESTION_SETS.length).toBeGreaterThanOrEqual(3);
    expect(HELDOUT_SETS.length).toBeGreaterThanOrEqual(2);
    for (const set of QUESTION_SETS.filter((item) => item.corpus !== 'readmes')) {
      expect(
        readFileSync(join(DOCS, 'corpora', set.corpus, 'LICENSE'), 'utf8').length,
      ).toBeGreaterThan(100);
    }
    const packages = readdirSync(join(DOCS, 'corpora/readmes'));
    expect(packages.length).toBeGreaterThanOrEqual(12);
    for (const name of packages) {
      expect(
        readFileSync(join(DOCS, 'corpora/readmes', name, 'LICENSE'), 'utf8').length,
      ).toBeGreaterThan(100);
    }
    for (const set of HELDOUT_SETS) {
      expect(
        readFileSync(join(DOCS, 'heldout/corpora', set.corpus, 'LICENSE'), 'utf8').length,
      ).toBeGreaterThan(100);
    }
  });
});
