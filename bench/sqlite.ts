/**
 * SQLite turn-write latency: the two writes of a turn (the user message; then the assistant
 * message with 5 sources and the session totals, one transaction) on a file in the temp
 * directory, for `synchronous` FULL (default) and NORMAL. Run: `npm run bench:sqlite`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteStores } from '../src/adapters/sqlite/index.js';
import type { MessageRecord, SessionRecord, Source } from '../src/ports/chat-records.js';
import { isoNow, ulid } from '../src/util/ids.js';

const TURNS = Number(process.env['TURNS'] ?? 1000);

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const source = (index: number): Source => ({
  id: `S${index + 1}`,
  chunkId: `doc#${index}`,
  documentId: 'doc',
  title: 'Handbook',
  uri: 'docs/handbook.md',
  snippet: 'Refunds are issued within 14 days of the request. '.repeat(4),
  score: 0.7,
  vectorScore: 0.6,
  keywordScore: 0.5,
  fusedScore: 0.03,
  type: 'hybrid',
  graphBoost: 1,
  learnedBoost: 1,
  graphContext: null,
  metadata: { position: index },
});

async function run(synchronous: 'full' | 'normal'): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), 'cortexis-bench-'));
  const stores = await createSqliteStores({ path: join(directory, 'bench.db'), synchronous });
  const session: SessionRecord = {
    id: ulid(),
    userId: 'bench',
    title: null,
    status: 'active',
    createdAt: isoNow(),
    updatedAt: isoNow(),
    endedAt: null,
    trajectoryId: null,
    settings: {},
    stats: { messageCount: 0, totalSearchMs: 0, totalGenerationMs: 0 },
    metadata: {},
  };
  await stores.sessionStore.createSession(session);
  const base = { sessionId: session.id, userId: 'bench', guard: false, metadata: {} } as const;
  const user: number[] = [];
  const assistant: number[] = [];
  for (let turn = 0; turn < TURNS; turn++) {
    const question: MessageRecord = {
      ...base,
      id: ulid(),
      role: 'user',
      content: `Question ${turn}: what is the refund policy?`,
      status: 'complete',
      createdAt: isoNow(),
      sources: [],
      confidence: null,
      timings: null,
    };
    let started = performance.now();
    await stores.sessionStore.appendMessages(session.id, [question]);
    user.push(performance.now() - started);
    const answer: MessageRecord = {
      ...base,
      id: ulid(),
      role: 'assistant',
      content: 'Refunds are issued within 14 days [source: S1]. '.repeat(6),
      status: 'complete',
      createdAt: isoNow(),
      sources: [0, 1, 2, 3, 4].map(source),
      confidence: null,
      timings: { retrievalMs: 3.2, generationMs: 10.5, totalMs: 15 },
      replyTo: question.id,
    };
    started = performance.now();
    await stores.sessionStore.appendMessages(session.id, [answer], {
      searchMs: 3.2,
      generationMs: 10.5,
    });
    assistant.push(performance.now() - started);
  }
  stores.close();
  rmSync(directory, { recursive: true, force: true });
  const both = user.map((value, index) => value + assistant[index]!);
  const format = (values: number[]) =>
    `p50 ${percentile(values, 50).toFixed(3)} ms, p95 ${percentile(values, 95).toFixed(3)} ms`;
  console.log(`synchronous=${synchronous.toUpperCase()} (${TURNS} turns)`);
  console.log(`  user message write:              ${format(user)}`);
  console.log(`  assistant + 5 sources + totals:  ${format(assistant)}`);
  console.log(`  turn (both writes):              ${format(both)}`);
}

await run('full');
await run('normal');
