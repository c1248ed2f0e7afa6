/**
 * The rules of the offline grounding judge, by name, each of which the ablation benchmark
 * (`bench/judge-ablation.ts`) can switch off to measure what it earns. A rule reads its switch
 * (one property of a module-level object) where it applies; every switch is on unless a
 * benchmark or test turns it off, so the judge never pays more than that read. Not exported
 * from the package.
 * @module
 */

/** The rules of the judge, by the file they live in (`docs/benchmarks.md` describes each). */
export const JUDGE_RULES = [
  'claims.block-citations',
  'claims.code-blocks',
  'feature.term-weights',
  'feature.prefix-credit',
  'feature.proximity-pick',
  'feature.sentence-coverage',
  'feature.numbers',
  'feature.entities',
  'feature.number-mismatch',
  'feature.polarity-mismatch',
  'feature.novel-name',
  'feature.novel-number',
  'feature.negation-unmatched',
  'feature.direction-mismatch',
  'feature.direction-reversal',
  'novelty.defined-before',
  'novelty.spelled-out',
  'novelty.compound-parts',
  'novelty.number-words',
  'novelty.capitalised-names',
  'novelty.compact-form',
  'contradiction.unit-elsewhere',
  'contradiction.number',
  'contradiction.renamed-number',
  'contradiction.swapped-entity',
  'contradiction.redefined-abbreviation',
  'contradiction.replaced-entity',
  'contradiction.title-skip',
  'contradiction.name-spelling',
  'contradiction.slotted-name',
  'contradiction.negation-verbatim',
  'contradiction.negated-claim',
  'contradiction.negative-words',
  'contradiction.words-before',
  'support.missing-main-name',
  'support.extending-name',
] as const;

/** The name of a rule of the judge. */
export type JudgeRule = (typeof JUDGE_RULES)[number];

/** Whether each rule is switched off (all on, except in the ablation benchmark). */
export const ruleOff = Object.fromEntries(JUDGE_RULES.map((rule) => [rule, false])) as Record<
  JudgeRule,
  boolean
>;

/** Switches the given rules off and every other rule on (none: the judge as shipped). */
export function switchOffJudgeRules(rules: readonly JudgeRule[] = []): void {
  for (const rule of JUDGE_RULES) ruleOff[rule] = rules.includes(rule);
}
