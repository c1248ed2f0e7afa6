/**
 * `node --import tsx bench/turn-source-ab.ts --b-dir DIR [--part prepare|quantities|tokens]
 * [--rounds N] [--docs N]`: one per-source step of the judge, in this tree (A) and another
 * (B, a `git archive` copy with `node_modules` linked), in one process, alternately on the same
 * SciFact abstracts (or their sentences): a resolution `bench/turn-judge-ab.ts` (the whole judge) does not give for
 * a step worth a few per cent of it.
 *
 * Parts: `prepare`, the judge's `prepareSource` of each abstract (what a turn pays at a
 * chunk's first sight); `quantities`, the contradiction checks' `quantitiesOf` of each
 * sentence (read for every sentence of a source when the claim states a number); `tokens`,
 * their `tokensOf` of each sentence. Abstracts are taken in blocks of 50, A and B in turn, the
 * order swapped every block; per round the CPU time of each side (`process.cpuUsage`) and B/A,
 * then the median of the rounds (B/A > 1: this tree is faster). Every round compares the two
 * sides' outputs (sets as arrays) and stops at the first difference.
 */
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { flag, median } from './turn-ab.js';
import { hasSciFact, loadCorpus, sciFactDir } from './scifact.js';

type Step = (text: string) => unknown;

async function stepOf(root: string, part: string): Promise<Step> {
  const url = (path: string): string => pathToFileURL(join(root, path)).href;
  if (part === 'prepare') {
    return ((await import(url('src/pipeline/judge/source.ts'))) as { prepareSource: Step })
      .prepareSource;
  }
  if (part === 'quantities') {
    return (
      (await import(url('src/pipeline/judge/contradiction-quantities.ts'))) as {
        quantitiesOf: Step;
      }
    ).quantitiesOf;
  }
  return ((await import(url('src/pipeline/judge/contradiction-analysis.ts'))) as { tokensOf: Step })
    .tokensOf;
}

/** A result as JSON, sets written as arrays. */
const serialised = (value: unknown): string =>
  JSON.stringify(value, (_key, item: unknown) => (item instanceof Set ? [...item] : item));

function cpuMs(run: () => void): number {
  const before = process.cpuUsage();
  run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

async function main(): Promise<void> {
  const bDir = flag('--b-dir');
  if (bDir === undefined) throw new Error('usage: bench/turn-source-ab.ts --b-dir DIR');
  const part = flag('--part') ?? 'prepare';
  const rounds = Number(flag('--rounds') ?? '9');
  const dir = sciFactDir();
  if (!hasSciFact(dir)) throw new Error(`SciFact not found in ${dir} (pass --data DIR)`);
  const abstracts = loadCorpus(dir)
    .slice(0, Number(flag('--docs') ?? '2000'))
    .map((doc) => `${doc.title}\n\n${doc.text}`);
  // The sentences' steps read each sentence (split here, untimed); `prepare` the abstract.
  const { splitSentences } = await import('../src/text/sentences.js');
  const texts: string[][] =
    part === 'prepare'
      ? abstracts.map((text) => [text])
      : abstracts.map((text) => splitSentences(text).map((span) => span.text));
  const a = await stepOf(resolve(import.meta.dirname, '..'), part);
  const b = await stepOf(resolve(bDir), part);
  console.log(
    `A = this tree, B = ${bDir}; ${part}, ${texts.length} abstracts, ${rounds} rounds; load ${loadavg()[0]!.toFixed(1)}`,
  );
  const ratios: number[] = [];
  for (let round = 0; round < rounds; round++) {
    let msA = 0;
    let msB = 0;
    for (let at = 0, block = 0; at < texts.length; at += 50, block++) {
      const slice = texts.slice(at, at + 50);
      const outA: unknown[] = [];
      const outB: unknown[] = [];
      const runA = () =>
        (msA += cpuMs(() => slice.forEach((group) => outA.push(group.map((text) => a(text))))));
      const runB = () =>
        (msB += cpuMs(() => slice.forEach((group) => outB.push(group.map((text) => b(text))))));
      if (block % 2 === 0) {
        runA();
        runB();
      } else {
        runB();
        runA();
      }
      if (round === 0 || round === rounds - 1) {
        for (let index = 0; index < slice.length; index++) {
          if (serialised(outA[index]) !== serialised(outB[index])) {
            throw new Error(`abstract ${at + index}: the two trees differ`);
          }
        }
      }
    }
    ratios.push(msB / msA);
    console.log(
      `round ${round + 1}: A ${msA.toFixed(1)} ms, B ${msB.toFixed(1)} ms, B/A ${(msB / msA).toFixed(3)}; load ${loadavg()[0]!.toFixed(1)}`,
    );
  }
  const sorted = [...ratios].sort((x, y) => x - y);
  console.log(
    `B/A median ${median(ratios).toFixed(3)} (${sorted[0]!.toFixed(2)}–${sorted.at(-1)!.toFixed(2)}); outputs identical (first and last rounds compared)`,
  );
}

await main();
