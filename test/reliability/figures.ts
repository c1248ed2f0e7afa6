/**
 * Figures of the reliability suite: each test prints its figures and appends them to
 * `bench/results/reliability.json` (gitignored), one JSON object per line, so a run can be
 * copied into docs/reliability.md.
 */
import { appendFileSync, mkdirSync } from 'node:fs';

const RESULTS = new URL('../../bench/results/', import.meta.url);

/** One named set of figures. */
export type Figures = Readonly<Record<string, number | string | boolean>>;

/** Prints `figures` under `name` and appends them to `bench/results/reliability.json`. */
export function recordFigures(name: string, figures: Figures): void {
  const line = { name, at: new Date().toISOString(), ...figures };
  console.log(`[reliability] ${name}: ${JSON.stringify(figures)}`);
  try {
    mkdirSync(RESULTS, { recursive: true });
    appendFileSync(new URL('reliability.json', RESULTS), `${JSON.stringify(line)}\n`);
  } catch {
    // Recording is best effort: a read-only checkout still prints the figures.
  }
}

/** Runs `tasks` with at most `concurrency` in flight; settles every one. */
export async function runPool<T>(
  count: number,
  concurrency: number,
  task: (index: number) => Promise<T>,
): Promise<PromiseSettledResult<T>[]> {
  const results: PromiseSettledResult<T>[] = new Array(count);
  let next = 0;
  async function worker(): Promise<void> {
    while (next < count) {
      const index = next++;
      try {
        results[index] = { status: 'fulfilled', value: await task(index) };
      } catch (reason) {
        results[index] = { status: 'rejected', reason };
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return results;
}
