/**
 * How far apart the trust signals put right and wrong answers of the documentation benchmark
 * (issue 26 item 4), as counts: whether "wrong rated high/medium ≤ 25 %" can be reached, with
 * "correct rated low ≤ 10 %" kept, by any threshold on a signal the reply carries.
 *
 *   node --import tsx bench/docs/separation.ts                  # tune and test halves
 *   node --import tsx bench/docs/separation.ts --set heldout    # the held-out sets (counts only)
 *
 * Over the answers not refused (as `bench:docs` rates calibration: an answer to an unanswerable
 * or off-topic question is wrong), per signal: the AUC of right against wrong, and the fewest
 * wrong answers left `high`/`medium` when every answer below a threshold is rated `low`, with at
 * most 10 % of the right ones `low` (the engine's own ratings count: an answer already `low`
 * stays `low`). The threshold is chosen on the tune half and applied as is to the test half,
 * whose own best is printed beside it as the ceiling. The AUC the two targets need together,
 * for scores normal with equal spread in both groups: Φ((z(0.90) + z(0.75)) / √2) ≈ 0.92.
 */
import { pathToFileURL } from 'node:url';
import type { DocsOutcome } from './grade.js';
import { runSet } from '../docs.js';
import { HELDOUT_SETS } from './heldout/questions/index.js';
import { QUESTION_SETS } from './questions/index.js';

/** The largest share of right answers the target lets be rated `low`. */
const RIGHT_LOW_SHARE = 0.1;

/** The signals compared (fields of `DocsReply.signals`). */
const SIGNALS = [
  'overall',
  'sourceQuality',
  'sourceDiversity',
  'semanticCohesion',
  'llmCertainty',
  'topScore',
] as const;
type Signal = (typeof SIGNALS)[number];

/** One answered case: right or wrong, its level, its signals (null → 0). */
export interface Rated {
  readonly right: boolean;
  readonly low: boolean;
  readonly values: Readonly<Record<Signal, number>>;
}

/** The answered cases of a split, as `bench:docs` rates calibration. */
export function rated(outcomes: readonly DocsOutcome[]): Rated[] {
  return outcomes
    .filter((o) => !o.reply.refused)
    .map((o) => ({
      right: o.correct,
      low: o.reply.level === 'low',
      values: Object.fromEntries(
        SIGNALS.map((name) => [name, o.reply.signals?.[name] ?? 0]),
      ) as Record<Signal, number>,
    }));
}

/** The probability that a right answer scores above a wrong one (ties count half). */
export function auc(items: readonly Rated[], signal: Signal): number | null {
  const right = items.filter((i) => i.right).map((i) => i.values[signal]);
  const wrong = items.filter((i) => !i.right).map((i) => i.values[signal]);
  if (right.length === 0 || wrong.length === 0) return null;
  let wins = 0;
  for (const r of right) for (const w of wrong) wins += r > w ? 1 : r === w ? 0.5 : 0;
  return wins / (right.length * wrong.length);
}

/** Counts when every answer scoring below `threshold` is rated `low`. */
export function demote(
  items: readonly Rated[],
  signal: Signal,
  threshold: number,
): { wrongHighOrMedium: number; rightLow: number } {
  let wrongHighOrMedium = 0;
  let rightLow = 0;
  for (const item of items) {
    const low = item.low || item.values[signal] < threshold;
    if (item.right && low) rightLow += 1;
    if (!item.right && !low) wrongHighOrMedium += 1;
  }
  return { wrongHighOrMedium, rightLow };
}

/** The threshold leaving the fewest wrong answers high/medium within the right-low budget. */
export function bestThreshold(items: readonly Rated[], signal: Signal): number {
  const budget = Math.floor(RIGHT_LOW_SHARE * items.filter((i) => i.right).length);
  const candidates = [...new Set(items.map((i) => i.values[signal]))].sort((a, b) => a - b);
  let best = -Infinity;
  let fewest = demote(items, signal, best).wrongHighOrMedium;
  for (const value of candidates) {
    // just above `value`: everything at or below it is demoted
    const threshold = value + 1e-9;
    const counts = demote(items, signal, threshold);
    if (counts.rightLow <= budget && counts.wrongHighOrMedium < fewest) {
      fewest = counts.wrongHighOrMedium;
      best = threshold;
    }
  }
  return best;
}

function flag(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

const fraction = (count: number, of: number): string =>
  `${count}/${of} (${of === 0 ? '—' : ((100 * count) / of).toFixed(0)} %)`;

async function main(): Promise<void> {
  const heldout = flag('--set') === 'heldout';
  const outcomes: DocsOutcome[] = [];
  for (const set of heldout ? HELDOUT_SETS : QUESTION_SETS) {
    outcomes.push(...(await runSet(set, heldout)));
  }
  const tune = rated(outcomes.filter((o) => o.case.split === 'tune'));
  const test = rated(outcomes.filter((o) => o.case.split === (heldout ? 'heldout' : 'test')));
  const other = heldout ? 'held-out' : 'test';
  const wrongOf = (items: readonly Rated[]) => items.filter((i) => !i.right).length;
  const rightOf = (items: readonly Rated[]) => items.filter((i) => i.right).length;
  console.log(
    `answered: tune ${tune.length} (${wrongOf(tune)} wrong), ${other} ${test.length} (${wrongOf(test)} wrong)`,
  );
  console.log(
    `\n| signal | AUC tune | AUC ${other} | tune: wrong hi/med, right low at the best threshold | ${other}: same threshold | ${other}: its own best |`,
  );
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const signal of SIGNALS) {
    const threshold = heldout ? -Infinity : bestThreshold(tune, signal);
    const onTune = demote(tune, signal, threshold);
    const applied = demote(test, signal, threshold);
    const ceiling = demote(test, signal, bestThreshold(test, signal));
    const cells = [
      signal,
      auc(tune, signal)?.toFixed(2) ?? '—',
      auc(test, signal)?.toFixed(2) ?? '—',
      heldout
        ? '—'
        : `${fraction(onTune.wrongHighOrMedium, wrongOf(tune))}, ${fraction(onTune.rightLow, rightOf(tune))}`,
      heldout
        ? '—'
        : `${fraction(applied.wrongHighOrMedium, wrongOf(test))}, ${fraction(applied.rightLow, rightOf(test))}`,
      `${fraction(ceiling.wrongHighOrMedium, wrongOf(test))}, ${fraction(ceiling.rightLow, rightOf(test))}`,
    ];
    console.log(`| ${cells.join(' | ')} |`);
  }
  const unchanged = demote(test, 'overall', -Infinity);
  console.log(
    `\n${other} as rated now: wrong hi/med ${fraction(unchanged.wrongHighOrMedium, wrongOf(test))}, right low ${fraction(unchanged.rightLow, rightOf(test))}; targets ≤ 25 % and ≤ 10 % need an AUC of about 0.92.`,
  );
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main();
}
