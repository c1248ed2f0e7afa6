/**
 * `npm run bench:churn`: memory under churn (issue 14, item 9). 20,000 turns, each from a new
 * user in a new session, through the real engine (offline defaults: hashing embedder,
 * extractive model, recall on) with `createMemorySessionStore({ maxSessions: 1000 })`; every
 * 10th answer gets feedback. Every 5,000 turns it prints the heap used after a full garbage
 * collection, the recall records in the vector store, and the learning records (trajectories
 * and feedback) in the learning sink. With eviction purging recall and learning, the counts
 * stay at the session bound and the heap stays flat.
 *
 * Messages come from a fixed vocabulary, so that what is measured is what the sessions hold.
 * With `--unique-words` every message also carries a word never seen before (a ticket number):
 * then the hashing embedder's word-feature memo (bounded by vocabulary, up to 200,000 words,
 * not by sessions) grows by about one entry per turn as well.
 *
 * Run with the garbage collector exposed (the script does it): `npm run bench:churn`, or
 * `node --expose-gc --import tsx bench/churn.ts [--turns N] [--max-sessions N] [--unique-words]`.
 */
import {
  createChatEngine,
  createMemoryLearningSink,
  createMemorySessionStore,
  createMemoryVectorStore,
  type LearningSink,
} from '../src/index.js';
import { recallNamespace } from '../src/pipeline/recall.js';
import { handbook } from '../test/fixtures/handbook.js';

/** A numeric command-line option (`--name N`), or its default. */
function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  const value = index >= 0 ? Number(process.argv[index + 1]) : NaN;
  return Number.isInteger(value) && value > 0 ? value : fallback;
}

const TURNS = option('turns', 20_000);
const MAX_SESSIONS = option('max-sessions', 1_000);
const REPORT_EVERY = Math.max(1, Math.floor(TURNS / 4));
const UNIQUE_WORDS = process.argv.includes('--unique-words');

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) {
  console.error('Run with --expose-gc (npm run bench:churn does).');
  process.exit(1);
}

/** The memory learning sink, counting the records it holds (without keeping their ids). */
function countingSink(): { sink: LearningSink; held: () => number } {
  const inner = createMemoryLearningSink();
  let added = 0;
  let removed = 0;
  const sink: LearningSink = {
    ...inner,
    async beginTrajectory(input, options) {
      const id = await inner.beginTrajectory(input, options);
      added++;
      return id;
    },
    async recordFeedback(feedback, options) {
      const before = await inner.listFeedback({ messageId: feedback.messageId });
      await inner.recordFeedback(feedback, options);
      if (before.length === 0) added++;
    },
    async deleteSession(sessionId, options) {
      const count = await inner.deleteSession(sessionId, options);
      removed += count;
      return count;
    },
  };
  return { sink, held: () => added - removed };
}

const vectorStore = createMemoryVectorStore();
const learning = countingSink();
const engine = createChatEngine({
  vectorStore,
  sessionStore: createMemorySessionStore({ maxSessions: MAX_SESSIONS }),
  learningSink: learning.sink,
});
let errors = 0;
engine.on('error', () => errors++);
await engine.ingest(handbook);

const QUESTIONS = [
  'How long do refunds take?',
  'How long does shipping take?',
  'Are digital goods refunded?',
  'How long must passwords be?',
];
const CONTEXTS = ['for my order', 'for a gift card', 'to Rotterdam', 'for my account', 'today'];

console.log(
  `churn: ${TURNS} turns from distinct users, maxSessions ${MAX_SESSIONS}, recall on,` +
    ` ${UNIQUE_WORDS ? 'a new word per message' : 'fixed vocabulary'} (node ${process.version})`,
);
console.log('turns\theap MB\trecall records\tlearning records\tms per turn');
const rows: { turns: number; heapMb: number }[] = [];
let started = performance.now();
for (let turn = 1; turn <= TURNS; turn++) {
  const userId = `user-${turn}`;
  const session = await engine.createSession({ userId });
  const reply = await engine.chat({
    sessionId: session.id,
    userId,
    message:
      `${QUESTIONS[turn % QUESTIONS.length]} ${CONTEXTS[turn % CONTEXTS.length]}` +
      (UNIQUE_WORDS ? ` (ticket ${turn})` : ''),
  });
  if (turn % 10 === 0)
    await engine.feedback({ messageId: reply.messageId, userId, rating: 'good' });
  if (turn % REPORT_EVERY === 0) {
    const msPerTurn = (performance.now() - started) / REPORT_EVERY;
    await engine.flush();
    gc();
    gc();
    const heapMb = process.memoryUsage().heapUsed / 2 ** 20;
    rows.push({ turns: turn, heapMb });
    const recall = await vectorStore.count(recallNamespace('default'));
    console.log(
      `${turn}\t${heapMb.toFixed(1)}\t${recall}\t${learning.held()}\t${msPerTurn.toFixed(2)}`,
    );
    started = performance.now();
  }
}
const first = rows[0]!;
const last = rows[rows.length - 1]!;
console.log(
  `heap change from ${first.turns} to ${last.turns} turns: ${(((last.heapMb - first.heapMb) / first.heapMb) * 100).toFixed(1)} %; errors: ${errors}`,
);
