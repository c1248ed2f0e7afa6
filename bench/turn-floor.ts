/**
 * `node --import tsx bench/turn-floor.ts [--data DIR] [--rounds N]`: how far the turn could fall
 * without the stages that are not retrieval. Four engines over SciFact (5,183 abstracts, the
 * defaults otherwise), each ingested once and warmed up on 50 train claims; then, per round, 300
 * claims not asked before (round 1 the test claims, later rounds the next train claims) on each
 * engine in turn, `--rounds` rounds (default 2, at most 3), CPU time per call
 * (`process.cpuUsage()`, the machine is shared). The process-wide analyses of chunk texts
 * (`forgetTextAnalyses`) are emptied before each engine's pass, so every pass is a first pass:
 * no engine reads what another one analysed.
 * - `search`: `engine.search` — retrieval and the sources, no model, judge, guard or confidence;
 * - `chat`: `engine.chat({ mode: 'query' })` with the defaults (the extractive model, the offline
 *   judge);
 * - `chat, judge off`: the same with `judge: { mode: 'off' }`;
 * - `chat, quoting model, judge off`: a model that quotes the first 200 characters of its first
 *   source (no analysis of the sources), judge off: the turn's own floor.
 */
import { loadavg } from 'node:os';
import { createChatEngine, type ChatEngine, type LLMProvider } from '../src/index.js';
import { forgetTextAnalyses } from '../src/util/second-sight.js';
import { hasSciFact, loadCorpus, loadQueries, sciFactDir } from './scifact.js';

const roundsAt = process.argv.indexOf('--rounds');
const rounds = roundsAt >= 0 ? Number(process.argv[roundsAt + 1]) : 2;
const dir = sciFactDir();
if (!hasSciFact(dir)) throw new Error(`SciFact data not found in ${dir} (pass --data DIR)`);
const docs = loadCorpus(dir).map((doc) => ({ id: doc.id, title: doc.title, text: doc.text }));
const train = loadQueries(dir, 'train').map((query) => query.text);
const warmUp = train.slice(0, 50);
const questionSets = [
  loadQueries(dir).map((query) => query.text),
  train.slice(50, 350),
  train.slice(350, 650),
];
if (rounds < 1 || rounds > questionSets.length) throw new Error('--rounds must be 1 to 3');

/** A model that quotes its first source: no reading of the sources at all. */
const quotingModel: LLMProvider = {
  name: 'quoting',
  specificationVersion: 'v1',
  metadata: {
    provider: 'quoting',
    model: 'quoting',
    type: 'local',
    supportedModels: ['quoting'],
    contextWindow: 16_384,
    followsInstructions: false,
  },
  async generate(request) {
    const first = request.sources?.[0];
    const text = first ? `${first.text.slice(0, 200)} [source: ${first.label}]` : 'No sources.';
    return { text, finishReason: 'stop' };
  },
  async *stream() {
    throw new Error('not streamed here');
  },
};

interface Variant {
  readonly name: string;
  readonly engine: ChatEngine;
  readonly run: (engine: ChatEngine, query: string) => Promise<unknown>;
}

const chat = (engine: ChatEngine, message: string) => engine.chat({ message, mode: 'query' });
const variants: Variant[] = [
  { name: 'search', engine: createChatEngine(), run: (engine, query) => engine.search(query) },
  { name: 'chat', engine: createChatEngine(), run: chat },
  { name: 'chat, judge off', engine: createChatEngine({ judge: { mode: 'off' } }), run: chat },
  {
    name: 'chat, quoting model, judge off',
    engine: createChatEngine({ llm: quotingModel, judge: { mode: 'off' } }),
    run: chat,
  },
];
for (const variant of variants) {
  await variant.engine.ingest(docs);
  for (const query of warmUp) await variant.run(variant.engine, query);
}

const cpu: Record<string, number[]> = {};
for (let round = 1; round <= rounds; round++) {
  const queries = questionSets[round - 1]!;
  for (const variant of variants) {
    forgetTextAnalyses();
    const started = process.cpuUsage();
    for (const query of queries) await variant.run(variant.engine, query);
    const used = process.cpuUsage(started);
    (cpu[variant.name] ??= []).push((used.user + used.system) / 1000 / queries.length);
  }
  console.log(
    `round ${round} (${queries.length} questions) done; load ${loadavg()[0]!.toFixed(1)}`,
  );
}
console.log('| variant | CPU ms per call (rounds) |');
console.log('| --- | --- |');
for (const variant of variants) {
  console.log(`| ${variant.name} | ${cpu[variant.name]!.map((ms) => ms.toFixed(2)).join(', ')} |`);
}
