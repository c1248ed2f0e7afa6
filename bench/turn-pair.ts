/**
 * `node --import tsx bench/turn-pair.ts --b-dir DIR [--rounds N] [--corpus scifact|docs]
 * [--data DIR]`: this tree's engine (A) and another tree's (B, a `git archive` copy with
 * `node_modules` linked) in ONE process, each question asked of A and of B in turn (the order
 * swapped every question), so both sides see the same load at the same moment: what
 * `bench:turn-ab`'s fresh processes, a minute apart, cannot resolve on a shared machine.
 *
 * Both engines ingest the corpus of `bench:turn-ab` (SciFact's 5,183 abstracts, 50 warm-up
 * claims, the 300 test claims; or the docs pages and questions) with the defaults and warm up
 * on its warm-up questions. Per turn: CPU time (`process.cpuUsage`), the `judge` event's
 * duration and the answer's `timings`. Per round and side, the median over the turns; printed
 * with B/A per round and the median of the rounds (B/A > 1: this tree is faster). The two
 * engines share one heap, so garbage one leaves is collected on either's time: read the stages
 * (judge, generation, retrieval) besides the turn.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { corpora, flag, median, type CorpusFile } from './turn-ab.js';

interface Engine {
  ingest(docs: readonly { id: string; title: string; text: string }[]): Promise<unknown>;
  chat(request: { message: string; mode: 'query' }): Promise<{ timings?: unknown }>;
  on(event: string, listener: (payload: unknown) => void): unknown;
}

/** One side's per-turn figures of a round, by stage. */
type Samples = Map<string, number[]>;

/** A side: its engine and a turn that returns its stage times. */
async function side(root: string, corpus: CorpusFile) {
  const url = pathToFileURL(join(root, 'src/index.ts')).href;
  const { createChatEngine } = (await import(url)) as { createChatEngine: () => Engine };
  const engine = createChatEngine();
  let judgeMs = 0;
  engine.on('judge', (payload) => {
    const ms = (payload as { durationMs?: unknown }).durationMs;
    if (typeof ms === 'number') judgeMs += ms;
  });
  await engine.ingest(corpus.docs);
  for (const message of corpus.warmup) await engine.chat({ message, mode: 'query' });
  return async (message: string, into: Samples): Promise<void> => {
    judgeMs = 0;
    const before = process.cpuUsage();
    const reply = await engine.chat({ message, mode: 'query' });
    const used = process.cpuUsage(before);
    const add = (stage: string, ms: number): void => {
      const list = into.get(stage) ?? [];
      list.push(ms);
      into.set(stage, list);
    };
    add('turn cpu', (used.user + used.system) / 1000);
    add('judge', judgeMs);
    const timings = (reply.timings ?? {}) as Record<string, unknown>;
    for (const key of ['retrievalMs', 'generationMs', 'totalMs']) {
      if (typeof timings[key] === 'number') add(`timings.${key}`, timings[key]);
    }
  };
}

async function main(): Promise<void> {
  const bDir = flag('--b-dir');
  if (bDir === undefined) throw new Error('usage: bench/turn-pair.ts --b-dir DIR [--rounds N]');
  const rounds = Number(flag('--rounds') ?? '3');
  const corpusName = flag('--corpus') ?? 'scifact';
  const corpus = await loadCorpus(corpusName);
  const a = await side(resolve(import.meta.dirname, '..'), corpus);
  const b = await side(resolve(bDir), corpus);
  console.log(
    `A = this tree, B = ${bDir}; ${corpusName}, ${corpus.questions.length} questions, ${rounds} rounds; load ${loadavg()[0]!.toFixed(1)}`,
  );
  const ratios = new Map<string, number[]>();
  for (let round = 0; round < rounds; round++) {
    const sa: Samples = new Map();
    const sb: Samples = new Map();
    for (const [index, message] of corpus.questions.entries()) {
      if (index % 2 === 0) {
        await a(message, sa);
        await b(message, sb);
      } else {
        await b(message, sb);
        await a(message, sa);
      }
    }
    const line: string[] = [];
    for (const [stage, values] of sa) {
      const ma = median(values);
      const mb = median(sb.get(stage) ?? []);
      const ratio = ma > 0 ? mb / ma : Number.NaN;
      ratios.set(stage, [...(ratios.get(stage) ?? []), ratio]);
      line.push(`${stage} A ${ma.toFixed(3)} B ${mb.toFixed(3)} (${ratio.toFixed(2)})`);
    }
    console.log(`round ${round + 1}: ${line.join('; ')}; load ${loadavg()[0]!.toFixed(1)}`);
  }
  for (const [stage, values] of ratios) {
    const sorted = [...values].sort((x, y) => x - y);
    console.log(
      `${stage}: B/A median ${median(values).toFixed(3)} (${sorted[0]!.toFixed(2)}–${sorted.at(-1)!.toFixed(2)})`,
    );
  }
}

/** The corpus as `bench:turn-ab` writes it for its children. */
async function loadCorpus(name: string): Promise<CorpusFile> {
  const dir = mkdtempSync(join(tmpdir(), 'turn-pair-'));
  try {
    const [path] = await corpora([name], dir);
    return JSON.parse(readFileSync(path!, 'utf8')) as CorpusFile;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
