import { afterEach, describe, expect, it } from 'vitest';
import { checkSupport, extractClaims, prepareSource } from '../../src/pipeline/judge.js';
import { novelNumber, polaritySignals } from '../../src/pipeline/judge/novelty.js';
import { JUDGE_RULES, ruleOff, switchOffJudgeRules } from '../../src/pipeline/judge/rules.js';
import { stemmedTerms } from '../../src/text/stem.js';

// The switches of bench/judge-ablation.ts: every rule on as shipped, each one off alone.
describe('judge rule switches (issue 26 item 6)', () => {
  afterEach(() => switchOffJudgeRules());

  it('ships with every rule on', () => {
    expect(Object.keys(ruleOff).sort()).toEqual([...JUDGE_RULES].sort());
    expect(Object.values(ruleOff).every((off) => !off)).toBe(true);
  });

  it('switches off only the rules named, and every rule back on with none', () => {
    switchOffJudgeRules(['contradiction.number']);
    expect(Object.entries(ruleOff).filter(([, off]) => off)).toEqual([
      ['contradiction.number', true],
    ]);
    switchOffJudgeRules();
    expect(Object.values(ruleOff).some((off) => off)).toBe(false);
  });

  it('a number contradiction is found only while its rule is on', () => {
    const claim = 'Refunds are paid within 45 business days.';
    const source = 'Refunds are paid within 5 business days of the request.';
    expect(checkSupport(claim, source).contradiction).toBe('number');
    // "within 5" is also a renamed number: both rules find it, so both go off.
    switchOffJudgeRules(['contradiction.number', 'contradiction.renamed-number']);
    expect(checkSupport(claim, source).contradiction).toBeUndefined();
    switchOffJudgeRules(['contradiction.renamed-number']);
    expect(checkSupport(claim, source).contradiction).toBe('number');
  });

  it('a number word states a number only while its rule is on, whatever was computed first', () => {
    const source = prepareSource('Three trials were run.');
    switchOffJudgeRules(['novelty.number-words']);
    expect(novelNumber('3 trials were run.', source)).toBe('3');
    // The digits alone, computed with the rule off, are not kept for the source.
    switchOffJudgeRules();
    expect(novelNumber('3 trials were run.', source)).toBeUndefined();
    switchOffJudgeRules(['novelty.number-words']);
    expect(novelNumber('3 trials were run.', source)).toBe('3');
  });

  it('a negator reverses a direction word only while its rule is on', () => {
    const source = prepareSource('Statins did not increase the risk of stroke.');
    const claim = 'Statins reduced the risk of stroke.';
    const terms = stemmedTerms(claim);
    expect(polaritySignals(claim, terms, source).directionMismatch).toBe(0);
    switchOffJudgeRules(['feature.direction-reversal']);
    expect(polaritySignals(claim, terms, source).directionMismatch).toBe(1);
  });

  it('list items cite their lead-in only while their rule is on', () => {
    const answer = 'The retried codes are [source: S1]:\n\n- 429\n- 503';
    expect(extractClaims(answer).map((claim) => claim.sourceIds)).toEqual([['S1'], ['S1'], ['S1']]);
    switchOffJudgeRules(['claims.block-citations']);
    expect(extractClaims(answer).map((claim) => claim.sourceIds)).toEqual([['S1'], [], []]);
  });
});
