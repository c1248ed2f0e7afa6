/**
 * `node --import tsx bench/conversation-cpu.ts [--data DIR] [--conversations N] [--turns T]`:
 * does a turn get dearer as its conversation grows? Ingests SciFact into `createChatEngine`
 * with the peer benchmark's setup (256-d hashing embedder, one user per conversation), warms
 * up on 20 one-turn conversations, then runs N conversations (default 5) of T turns (default
 * 60) over the test claims, and prints the CPU time per turn (`process.cpuUsage`, not wall:
 * the machine is shared) by band of T/6 turns, median and mean over the conversations, and
 * the median of turn T over the median of turn 1.
 */
import { loadavg } from 'node:os';
import { createChatEngine, createHashingEmbedder } from '../src/index.js';
import { hasSciFact, loadCorpus, loadQueries, sciFactDir } from './scifact.js';

function flag(name: string, fallback: number): number {
  const index = process.argv.indexOf(name);
  return index >= 0 ? Number(process.argv[index + 1]) : fallback;
}

const dir = sciFactDir();
if (!hasSciFact(dir)) throw new Error(`SciFact data not found in ${dir} (pass --data DIR)`);
const conversations = flag('--conversations', 5);
const turns = flag('--turns', 60);
const docs = loadCorpus(dir).map((doc) => ({ id: doc.id, title: doc.title, text: doc.text }));
const questions = loadQueries(dir).map((query) => query.text);
const engine = createChatEngine({ embedder: createHashingEmbedder({ dimensions: 256 }) });
await engine.ingest(docs);
for (const message of questions.slice(0, 20)) {
  const session = await engine.createSession({ userId: 'warm-up' });
  await engine.chat({ sessionId: session.id, userId: 'warm-up', message });
}

const cpu: number[][] = Array.from({ length: turns }, () => []);
for (let conversation = 0; conversation < conversations; conversation++) {
  const userId = `user-${conversation + 1}`;
  const session = await engine.createSession({ userId });
  for (let turn = 0; turn < turns; turn++) {
    const message = questions[(conversation * turns + turn) % questions.length]!;
    const started = process.cpuUsage();
    await engine.chat({ sessionId: session.id, userId, message });
    const used = process.cpuUsage(started);
    cpu[turn]!.push((used.user + used.system) / 1000);
  }
}

const median = (values: readonly number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const mean = (values: readonly number[]): number =>
  values.reduce((sum, value) => sum + value, 0) / values.length;
const band = Math.max(1, Math.floor(turns / 6));
console.log(
  `${conversations} conversations × ${turns} turns, load ${loadavg()[0]!.toFixed(2)}: turn ${turns} ÷ turn 1 (medians) ${(median(cpu[turns - 1]!) / median(cpu[0]!)).toFixed(2)}`,
);
for (let from = 0; from < turns; from += band) {
  const values = cpu.slice(from, from + band).flat();
  console.log(
    `turns ${from + 1}–${Math.min(turns, from + band)}: CPU median ${median(values).toFixed(2)} ms, mean ${mean(values).toFixed(2)} ms`,
  );
}
