/**
 * One stack, one fresh process: `node --import tsx bench/peers/worker.ts <stack> <cortexis dist
 * dir> <scifact dir>`. Ingests SciFact, times single turns and conversations, and prints one
 * JSON line (`WorkerResult`) on stdout. Started by `run.ts`; not meant to be run by hand.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadCorpus, loadQueries } from '../scifact.js';
import { CONVERSATION_TURNS, CONVERSATIONS, quantile, type WorkerResult } from './protocol.js';
import type { CortexisModule, StackFactory, StackInstance } from './stacks/stack.js';

/** Untimed turns (each the first of a conversation) before the single-turn measure. */
const WARM_UP_TURNS = 20;

const idle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

async function stackFactory(name: string): Promise<StackFactory> {
  switch (name) {
    case 'cortexis':
      return (await import('./stacks/cortexis.js')).createCortexisStack;
    case 'langchain':
      return (await import('./stacks/langchain.js')).createLangChainStack;
    case 'llamaindex':
      return (await import('./stacks/llamaindex.js')).createLlamaIndexStack;
    default:
      throw new Error(`unknown stack ${name}`);
  }
}

async function main(): Promise<void> {
  const [name, distDir, dataDir, extra = '0'] = process.argv.slice(2);
  if (!name || !distDir || !dataDir) throw new Error('usage: worker.ts <stack> <dist> <data>');
  const cortexis = (await import(pathToFileURL(join(distDir, 'index.js')).href)) as CortexisModule;
  const factory = await stackFactory(name);
  const open = (): StackInstance =>
    factory({ cortexis, embedder: cortexis.createHashingEmbedder({ dimensions: 256 }) });

  const documents = loadCorpus(dataDir);
  const questions = loadQueries(dataDir, 'test').map((query) => query.text);

  // Warm-up: the same code paths on a small corpus, in a throwaway instance.
  const warm = open();
  await warm.ingest(documents.slice(0, 50));
  for (const question of questions.slice(0, 5)) await (await warm.conversation())(question);

  const stack = open();
  const ingestStarted = performance.now();
  const chunks = await stack.ingest(documents);
  const ingestMs = performance.now() - ingestStarted;

  // Single turn: the first turn of a fresh conversation, for every test question.
  let answerSample = '';
  for (const question of questions.slice(0, WARM_UP_TURNS)) {
    answerSample = await (await stack.conversation())(question);
  }
  // `--warm N`: N more untimed first turns over SciFact's train claims (never a timed question),
  // for the steady state of a long-running process rather than its first few hundred turns.
  const extraTurns = Number(extra);
  const train = extraTurns > 0 ? loadQueries(dataDir, 'train').map((query) => query.text) : [];
  for (let turn = 0; turn < extraTurns; turn++) {
    await (
      await stack.conversation()
    )(train[turn % train.length]!);
  }
  const turnMs: number[] = [];
  for (const question of questions) {
    const talk = await stack.conversation();
    await idle();
    const started = performance.now();
    await talk(question);
    turnMs.push(performance.now() - started);
  }

  // Conversations of CONVERSATION_TURNS turns, each over its own slice of the test questions.
  const conversations: { firstMs: number; lastMs: number }[] = [];
  for (let index = 0; index < CONVERSATIONS; index++) {
    const talk = await stack.conversation();
    let firstMs = 0;
    let lastMs = 0;
    for (let turn = 0; turn < CONVERSATION_TURNS; turn++) {
      const question = questions[(index * CONVERSATION_TURNS + turn) % questions.length]!;
      await idle();
      const started = performance.now();
      await talk(question);
      const ms = performance.now() - started;
      if (turn === 0) firstMs = ms;
      lastMs = ms;
    }
    conversations.push({ firstMs, lastMs });
  }

  const result: WorkerResult = {
    stack: name,
    documents: documents.length,
    chunks,
    ingestMs,
    questions: questions.length,
    warmUpTurns: WARM_UP_TURNS + extraTurns,
    turnP50Ms: quantile(turnMs, 0.5),
    turnP99Ms: quantile(turnMs, 0.99),
    conversations,
    answerSample: answerSample.slice(0, 120),
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

await main();
