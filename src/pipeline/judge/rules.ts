/**
 * The rules of the offline grounding judge, by name, each of which the ablation benchmark
 * (`bench/judge-ablation.ts`) can switch off to measure what it earns. A rule reads its switch
 * (one property of a module-level object) where it applies; every switch is on unless a
 * benchmark or test turns it off, so the judge never pays more than that read. Not exported
 * from the package.
 * @module
 */

/** Each rule of the judge with where it lives and what it does. */
export const JUDGE_RULES = {
  'claims.block-citations': 'claims.ts: list items and table rows cite what introduces them',
  'claims.code-blocks': 'claims.ts: a fenced code block is no claim, it belongs to the one before',
  'feature.term-weights': 'features.ts: long terms and terms with digits weigh more',
  'feature.prefix-credit': 'features.ts: a shared five-letter prefix counts half a term',
  'feature.proximity-pick': 'features.ts: close term pairs help pick the evidence sentence',
  'feature.sentence-coverage': 'features.ts/weights.ts: coverage of the best sentence',
  'feature.numbers': 'features.ts/weights.ts: share of the claim numbers found',
  'feature.entities': 'features.ts/weights.ts: share of the claim names found',
  'feature.number-mismatch': 'features.ts/weights.ts: a number differing from every same-unit one',
  'feature.polarity-mismatch': 'features.ts/weights.ts: negation on one side of best sentence',
  'feature.novel-name': 'features.ts/novelty.ts: a name the source never states',
  'feature.novel-number': 'features.ts/novelty.ts: a number the source never states',
  'feature.negation-unmatched': 'novelty.ts: a negated claim, no sentence about it negates',
  'feature.direction-mismatch': 'novelty.ts: increase against decrease',
  'novelty.defined-before': 'novelty.ts: an abbreviation the claim defines is stated',
  'novelty.spelled-out': 'novelty.ts: an acronym the source spells out is stated',
  'novelty.compound-parts': 'novelty.ts: a compound is stated when each acronym part is',
  'contradiction.unit-elsewhere': 'contradiction.ts: the value only in other units, anywhere',
  'contradiction.number': 'contradiction.ts: another value for the same quantity',
  'contradiction.renamed-number': 'contradiction.ts: "Type 5" against "Type 1" (a contradiction)',
  'contradiction.swapped-entity': 'contradiction-entities.ts: another name by the same word',
  'contradiction.redefined-abbreviation': 'contradiction-entities.ts: (SLE) against (Gpr124)',
  'contradiction.replaced-entity': 'contradiction-entities.ts: another name in a sentence',
  'contradiction.negation-verbatim': 'contradiction.ts: a (nearly) verbatim sentence decides',
  'contradiction.negated-claim': 'contradiction.ts: a negated claim, sentences never negate',
  'support.missing-main-name': "support.ts: a claim leaving out the source's main name",
} as const;

/** The name of a rule of the judge. */
export type JudgeRule = keyof typeof JUDGE_RULES;

/** Whether each rule is switched off (all on, except in the ablation benchmark). */
export const ruleOff: Record<JudgeRule, boolean> = Object.fromEntries(
  Object.keys(JUDGE_RULES).map((rule) => [rule, false]),
) as Record<JudgeRule, boolean>;

/** Switches the given rules off and every other rule on (none: the judge as shipped). */
export function switchOffJudgeRules(rules: readonly JudgeRule[] = []): void {
  for (const rule of Object.keys(ruleOff) as JudgeRule[]) ruleOff[rule] = rules.includes(rule);
}
