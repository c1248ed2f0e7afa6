import { describe, expect, it } from 'vitest';
import {
  checkSupport,
  judgeAnswerOffline,
  prepareSource,
  supportFeatures,
} from '../../src/pipeline/judge.js';
import { novelName, novelNumber, polaritySignals } from '../../src/pipeline/judge/novelty.js';
import { stemmedTerms } from '../../src/text/stem.js';
import { CONTRADICTED, FAITHFUL, MANUAL } from '../fixtures/judge-claims.js';

const manual = prepareSource(MANUAL);

describe('contradictions with the source span (issue 13)', () => {
  it('keeps the faithful claims supported', () => {
    for (const claim of FAITHFUL) {
      const check = checkSupport(claim, manual);
      expect(check.verdict, claim).toBe('supported');
      expect(check.contradiction, claim).toBeUndefined();
    }
  });

  it('finds each changed claim contradicted, of its kind, with a span of the source as evidence', () => {
    for (const { claim, kind } of CONTRADICTED) {
      const check = checkSupport(claim, manual);
      expect(check.verdict, claim).toBe('contradicted');
      expect(check.contradiction, claim).toBe(kind);
      expect(MANUAL.slice(check.evidence!.start, check.evidence!.end), claim).toBe(
        check.evidence!.text,
      );
    }
  });

  it('tells a number apart by what it counts: "6 user messages" is not "6 recent messages"', () => {
    const check = checkSupport('The last 6 user messages are never summarised.', manual);
    expect(check.contradiction).toBe('number');
    expect(check.evidence?.text).toBe('The last 2 user messages are never summarised.');
  });

  it('matches each negation of a sentence stated word for word, not any negation in it', () => {
    const check = checkSupport(
      'The user message of a turn is not stored before retrieval, so no later failure loses it.',
      manual,
    );
    expect(check.contradiction).toBe('negation');
    expect(check.evidence?.text).toBe(
      'The user message of a turn is stored before retrieval, so no later failure loses it.',
    );
  });

  it('finds a name replaced in its place even when the other name appears elsewhere in the claim', () => {
    const check = checkSupport(
      'The hashing embedder is much weaker than E5 on SciFact, so even a small vector weight reorders the best hits of BM25.',
      manual,
    );
    expect(check.contradiction).toBe('entity');
    expect(check.evidence?.text).toContain('much weaker than BM25');
  });

  it('reads plural units ("minutes") and finds a value the source gives only in another unit', () => {
    const check = checkSupport('Without activity for 30 hours, a session expires.', manual);
    expect(check.contradiction).toBe('unit');
    expect(check.evidence?.text).toBe('Without activity, a session expires after 30 minutes.');
  });

  it('remove drops the contradicted claims and keeps the faithful ones byte for byte', () => {
    const faithful = `${FAITHFUL[0]} [source: S1]`;
    const answer = [faithful, ...CONTRADICTED.map(({ claim }) => `${claim} [source: S1]`)].join(
      ' ',
    );
    const result = judgeAnswerOffline({
      answer,
      sources: [{ id: 'S1', text: MANUAL }],
      policy: 'remove',
    });
    expect(result.removed).toHaveLength(CONTRADICTED.length);
    expect(result.text).toBe(faithful);
    expect(result.grounding.supportedRatio).toBeCloseTo(1 / (CONTRADICTED.length + 1), 2);
  });
});

describe('novelty signals', () => {
  it('finds a name the source never states, in no form', () => {
    expect(novelName('Returns are inspected by the Berlin team.', manual)).toBe('Berlin');
    expect(novelName('The rewrite reads 6 recent messages.', manual)).toBeUndefined();
  });

  it('counts as stated an acronym the source spells out and one the claim defines', () => {
    expect(novelName('Cholesterol loading induces KLF4 expression in VSMCs.', manual)).toBe(
      undefined,
    );
    const source = prepareSource('Raised diastolic blood pressure is linked to aneurysm.');
    expect(
      novelName('Raised diastolic blood pressure (DBP) is linked to aneurysm.', source),
    ).toBeUndefined();
    expect(novelName('Raised diastolic blood pressure (GBM) is linked to aneurysm.', source)).toBe(
      'GBM',
    );
  });

  it('finds a number the source never states', () => {
    expect(novelNumber('Statins reduced the risk of stroke in 12 trials.', manual)).toBe('12');
    expect(novelNumber('Statins help patients with Type 1 diabetes.', manual)).toBeUndefined();
    const words = prepareSource('Three trials were run.');
    expect(novelNumber('3 trials were run.', words)).toBeUndefined();
  });

  it('flags a negation no sentence about the claim makes, and a reversed direction', () => {
    const terms = stemmedTerms;
    const source = prepareSource('Statins reduced the risk of stroke in patients with diabetes.');
    const negated = 'Statins did not change the risk of stroke in patients with diabetes.';
    expect(polaritySignals(negated, terms(negated), source).negationUnmatched).toBe(1);
    const reversed = 'Statins increase the risk of stroke in patients with diabetes.';
    expect(polaritySignals(reversed, terms(reversed), source).directionMismatch).toBe(1);
    const same = 'Statins lower the risk of stroke in patients with diabetes.';
    expect(polaritySignals(same, terms(same), source)).toEqual({
      negationUnmatched: 0,
      directionMismatch: 0,
    });
  });

  it('lowers the support score of a claim with a swapped name or a reversed direction', () => {
    const source = prepareSource(
      'Statins reduced the risk of stroke in patients with diabetes in the Oxford cohort.',
    );
    const faithful =
      'Statins reduced the risk of stroke in diabetes patients of the Oxford cohort.';
    const swapped = 'Statins reduced the risk of stroke in diabetes patients of the Leeds cohort.';
    const reversed =
      'Statins increased the risk of stroke in diabetes patients of the Oxford cohort.';
    expect(supportFeatures(swapped, source).novelName).toBe(1);
    expect(supportFeatures(reversed, source).directionMismatch).toBe(1);
    const score = (claim: string) => checkSupport(claim, source).score;
    expect(score(swapped)).toBeLessThan(score(faithful));
    expect(score(reversed)).toBeLessThan(score(faithful));
  });
});
