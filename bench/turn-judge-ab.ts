/**
 * `node --import tsx bench/turn-judge-ab.ts --b-dir DIR [--rounds N] [--corpus scifact|docs]
 * [--repeat N] [--differ-ok]`: the offline judge of
 * this tree (A) and of another (B, a `git archive` copy with `node_modules` linked), in one
 * process, alternately on the same answers: the judge alone, at a resolution whole turns on a
 * shared machine do not give.
 *
 * The answers are built as `bench:judge`'s timing answers: five claims in a row, each citing
 * its source — SciFact's labelled pairs (claim, abstract) in file order, or (`--corpus docs`)
 * the docs questions' fact sentences citing their page; `--repeat N` judges the list N times
 * a round (the repeats find their sources analysed: the claim checks alone). Each round first empties both trees' caches of
 * analysed text (`forgetTextAnalyses`), so every abstract is analysed afresh, as on most
 * SciFact turns; then judges every answer with A and B in turn (the order swapped every
 * answer). Per round: the CPU time of each side (`process.cpuUsage` around each call, summed)
 * and B/A; the median of the rounds at the end (B/A > 1: this tree is faster). Each round
 * compares the two sides' results (`JSON.stringify`) and stops at the first difference
 * (`--differ-ok`: not compared, for a tree whose judge decides otherwise).
 */
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { docsClaims, loadPairs } from './judge.js';
import { flag, median } from './turn-ab.js';
import { hasSciFact, loadCorpus, sciFactDir } from './scifact.js';

interface Judge {
  readonly judge: (input: {
    answer: string;
    sources: readonly { id: string; text: string }[];
  }) => unknown;
  readonly forget: () => void;
}

async function judgeOf(root: string): Promise<Judge> {
  const url = (path: string): string => pathToFileURL(join(root, path)).href;
  const judge = (await import(url('src/pipeline/judge.ts'))) as {
    judgeAnswerOffline: Judge['judge'];
  };
  const cache = (await import(url('src/util/second-sight.ts'))) as {
    forgetTextAnalyses: () => void;
  };
  return { judge: judge.judgeAnswerOffline, forget: cache.forgetTextAnalyses };
}

function cpuMs(run: () => unknown): { ms: number; result: unknown } {
  const before = process.cpuUsage();
  const result = run();
  const used = process.cpuUsage(before);
  return { ms: (used.user + used.system) / 1000, result };
}

/** A claim and the text of the source it cites. */
interface CitedClaim {
  readonly claim: string;
  readonly text: string;
}

/** Every labelled SciFact pair, in file order: the claim and its abstract. */
function sciFactPairs(): CitedClaim[] {
  const dir = sciFactDir();
  if (!hasSciFact(dir)) throw new Error(`SciFact not found in ${dir} (pass --data DIR)`);
  const corpus = new Map(loadCorpus(dir).map((doc) => [doc.id, `${doc.title}\n\n${doc.text}`]));
  return loadPairs(dir)
    .filter((pair) => corpus.has(pair.docId))
    .map((pair) => ({ claim: pair.claim, text: corpus.get(pair.docId)! }));
}

/** The docs questions' facts as `bench:judge` states them, each citing its page. */
function docsPairs(): CitedClaim[] {
  return docsClaims().map(({ claim, source }) => ({ claim, text: source.text }));
}

/** Answers of five claims in a row, each citing its own source. */
function groupAnswers(claims: readonly CitedClaim[]) {
  const answers: { answer: string; sources: { id: string; text: string }[] }[] = [];
  for (let at = 0; at + 5 <= claims.length; at += 5) {
    const group = claims.slice(at, at + 5);
    answers.push({
      answer: group.map((item, offset) => `${item.claim} [source: S${offset + 1}]`).join(' '),
      sources: group.map((item, offset) => ({ id: `S${offset + 1}`, text: item.text })),
    });
  }
  return answers;
}

async function main(): Promise<void> {
  const bDir = flag('--b-dir');
  if (bDir === undefined) throw new Error('usage: bench/turn-judge-ab.ts --b-dir DIR');
  const rounds = Number(flag('--rounds') ?? '7');
  const corpusName = flag('--corpus') ?? 'scifact';
  const once = groupAnswers(corpusName === 'docs' ? docsPairs() : sciFactPairs());
  const answers = Array.from({ length: Number(flag('--repeat') ?? '1') }, () => once).flat();
  const a = await judgeOf(resolve(import.meta.dirname, '..'));
  const b = await judgeOf(resolve(bDir));
  console.log(
    `A = this tree, B = ${bDir}; ${corpusName}, ${answers.length} answers of 5 claims, ${rounds} rounds; load ${loadavg()[0]!.toFixed(1)}`,
  );
  const differOk = process.argv.includes('--differ-ok');
  const ratios: number[] = [];
  for (let round = 0; round < rounds; round++) {
    a.forget();
    b.forget();
    let msA = 0;
    let msB = 0;
    for (const [index, input] of answers.entries()) {
      const first = index % 2 === 0 ? a : b;
      const second = first === a ? b : a;
      const one = cpuMs(() => first.judge(input));
      const two = cpuMs(() => second.judge(input));
      const [ra, rb] = first === a ? [one, two] : [two, one];
      msA += ra.ms;
      msB += rb.ms;
      if (!differOk && JSON.stringify(ra.result) !== JSON.stringify(rb.result)) {
        throw new Error(`answer ${index}: the two judges differ`);
      }
    }
    ratios.push(msB / msA);
    console.log(
      `round ${round + 1}: A ${msA.toFixed(1)} ms, B ${msB.toFixed(1)} ms, B/A ${(msB / msA).toFixed(3)}; ${differOk ? 'results not compared' : 'results identical'}; load ${loadavg()[0]!.toFixed(1)}`,
    );
  }
  const sorted = [...ratios].sort((x, y) => x - y);
  console.log(
    `B/A median ${median(ratios).toFixed(3)} (${sorted[0]!.toFixed(2)}–${sorted.at(-1)!.toFixed(2)})`,
  );
}

await main();
