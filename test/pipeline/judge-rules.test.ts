import { describe, expect, it } from 'vitest';
import { checkSupport, judgeAnswerOffline } from '../../src/pipeline/judge.js';
import { CHANGED_RULES, FAITHFUL_RULES } from '../fixtures/judge-rules.js';

describe('judge rules for changed claims (issue 13)', () => {
  it('keeps the faithful claims supported', () => {
    for (const { claim, source } of FAITHFUL_RULES) {
      const check = checkSupport(claim, source);
      expect(check.verdict, claim).toBe('supported');
    }
  });

  for (const { rule, source, claim, verdict, kind, evidence } of CHANGED_RULES) {
    it(`does not support ${rule}`, () => {
      const check = checkSupport(claim, source);
      expect(check.verdict, claim).toBe(verdict);
      expect(check.contradiction, claim).toBe(kind);
      expect(check.evidence?.text, claim).toBe(evidence);
      expect(source.slice(check.evidence!.start, check.evidence!.end)).toBe(evidence);
    });
  }

  it('remove drops the changed claims with their tags and keeps the faithful one byte for byte', () => {
    const [plan, unit] = CHANGED_RULES;
    const faithful = 'Customers on Plan 2 get priority support from the help desk [source: S1].';
    const answer = `${plan.claim.replace(/\.$/, '')} [source: S1]. ${faithful} ${unit.claim.replace(/\.$/, '')} [source: S1].`;
    const result = judgeAnswerOffline({
      answer,
      sources: [{ id: 'S1', text: plan.source }],
      policy: 'remove',
    });
    expect(result.grounding.claims.map((claim) => claim.verdict)).toEqual([
      'contradicted',
      'supported',
      'contradicted',
    ]);
    expect(result.grounding.claims[0]!.evidence).toMatchObject({
      sourceId: 'S1',
      text: plan.evidence,
    });
    expect(result.removed.map((claim) => claim.text)).toEqual([plan.claim, unit.claim]);
    expect(result.text).toBe(faithful);
  });

  it('reads "little effect" as a negation: a negated claim it states is not contradicted', () => {
    const source = 'The update had little effect on battery life.';
    const check = checkSupport('The update does not affect battery life.', source);
    expect(check.verdict).not.toBe('contradicted');
    expect(
      checkSupport('The update does not affect battery life.', 'The update changed battery life.')
        .verdict,
    ).toBe('contradicted');
  });
});
