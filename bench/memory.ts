/**
 * `npm run bench:memory`: turn latency at turn 1 vs turn 200 of one conversation, with
 * compaction, semantic recall, follow-up rewriting and the one-budget pack, on the in-memory
 * session store and (when better-sqlite3 is installed) the SQLite one.
 *
 * The engine does not call these stages yet, so this is a harness that runs one chat turn the
 * way the recommended wiring does (docs/memory.md): idempotency look-up → persist the user
 * message (+ background recall embedding) → load uncovered history → rewrite → retrieve →
 * recall → pack → generate (extractive) → persist the answer (+ background embedding) →
 * compact. A "full history" baseline sends every earlier message instead (no compaction,
 * no cap), which is what grows without memory management.
 *
 * The same probe question is asked at turn 1 and at turn 200 (filler turns use SciFact
 * queries in between), in several conversations; the table gives the medians.
 */
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createExtractiveProvider } from '../src/adapters/extractive/provider.js';
import { createHashingEmbedder } from '../src/adapters/hashing/embedder.js';
import { createMemoryKeywordIndex } from '../src/adapters/memory/keyword-index.js';
import { createMemorySessionStore } from '../src/adapters/memory/session-store.js';
import { createMemoryVectorStore } from '../src/adapters/memory/vector-store.js';
import { withCountCache } from '../src/adapters/tokenizer/count-cache.js';
import { createGptTokenizer } from '../src/adapters/tokenizer/gpt-tokenizer.js';
import { createChatEngine, type IngestDocument } from '../src/index.js';
import {
  CHAT_PROFILES,
  compact,
  selectContext,
  type ChatProfile,
} from '../src/pipeline/compact.js';
import { createEmbeddingCache } from '../src/pipeline/embedding-cache.js';
import { findPreviousTurn } from '../src/pipeline/idempotency.js';
import { packContext, withMemory } from '../src/pipeline/pack.js';
import { buildSystemPrompt, DEFAULT_SYSTEM_PROMPT } from '../src/pipeline/prompt.js';
import { createRecall } from '../src/pipeline/recall.js';
import { toModelHistory } from '../src/pipeline/remember.js';
import { retrieve } from '../src/pipeline/retrieve.js';
import { rewriteQuery } from '../src/pipeline/rewrite.js';
import { toPromptSources, toSources } from '../src/pipeline/sources.js';
import type { MessageRecord, SessionRecord } from '../src/ports/chat-records.js';
import type { SessionStore } from '../src/ports/session-store.js';
import type { Tokenizer } from '../src/ports/tokenizer.js';
import { isoNow, ulid } from '../src/util/ids.js';
import { hasSciFact, loadCorpus, loadQueries, sciFactDir } from './scifact.js';

const TURNS = 200;
const CONVERSATIONS = 8;
const PROBE = 'Does vitamin D supplementation reduce the risk of fractures in older adults?';

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

interface Harness {
  readonly store: SessionStore;
  readonly mode: 'memory' | 'full-history';
  readonly profile: ChatProfile;
}

async function main(): Promise<void> {
  const dir = sciFactDir();
  const sciFact = hasSciFact(dir);
  const docs: IngestDocument[] = sciFact
    ? loadCorpus(dir).map((doc) => ({ id: doc.id, title: doc.title, text: doc.text }))
    : Array.from({ length: 500 }, (_, i) => ({
        id: `d${i}`,
        text: `Document ${i} discusses vitamin ${i % 7} and fractures in group ${i % 13}.`,
      }));
  const queries = sciFact
    ? loadQueries(dir).map((query) => query.text)
    : Array.from({ length: 300 }, (_, i) => `What about vitamin ${i % 7} in group ${i % 13}?`);
  console.log(`corpus: ${sciFact ? `SciFact (${docs.length} docs)` : 'generated'}`);

  const vectorStore = createMemoryVectorStore();
  const keywordIndex = createMemoryKeywordIndex();
  const embedder = createHashingEmbedder();
  await createChatEngine({ vectorStore, keywordIndex, embedder }).ingest(docs);
  const tokenizer: Tokenizer = withCountCache(await createGptTokenizer());
  const embeddingCache = createEmbeddingCache();
  const llm = createExtractiveProvider({ tokenizer });
  const namespace = 'default';
  const recall = createRecall({ vectorStore, embedder, tokenizer, namespace, embeddingCache });

  async function turn(harness: Harness, session: SessionRecord, message: string, key: string) {
    const { store, profile } = harness;
    const started = performance.now();
    const stages: Record<string, number> = {};
    let mark = started;
    const lap = (name: string) => {
      const now = performance.now();
      stages[name] = (stages[name] ?? 0) + now - mark;
      mark = now;
    };
    // idempotency
    const previous = await findPreviousTurn(store, {
      sessionId: session.id,
      requestId: key,
      message,
    });
    if (previous.status === 'answered') throw new Error('unexpected replay');
    // persist the user message first
    const user: MessageRecord = {
      id: ulid(),
      sessionId: session.id,
      userId: session.userId,
      role: 'user',
      content: message,
      status: 'complete',
      createdAt: isoNow(),
      sources: [],
      confidence: null,
      timings: null,
      guard: false,
      metadata: {},
      requestId: key,
    };
    await store.appendMessages(session.id, [user]);
    recall.index([user]);
    lap('persist');
    // remember: uncovered history (bounded by compaction) or everything (baseline)
    const loaded =
      harness.mode === 'memory'
        ? (
            await store.listMessages(session.id, {
              uncoveredOnly: true,
              order: 'desc',
              limit: 2 * profile.maxTurns + 8,
            })
          ).reverse()
        : await store.listMessages(session.id);
    const context =
      harness.mode === 'memory'
        ? selectContext(loaded, profile, tokenizer, user.id)
        : { summary: null, messages: loaded.filter((entry) => entry.id !== user.id) };
    const history = toModelHistory(context.messages, user.id);
    lap('remember');
    // rewrite → retrieve
    const rewrite = await rewriteQuery({ message, history: history.slice(-6) });
    const retrieval = await retrieve(
      rewrite.query,
      { vectorStore, keywordIndex, embedder, embeddingCache },
      { namespace, k: 3, maxK: 5, candidates: 50, threshold: 0 },
    );
    lap('retrieve');
    // recall
    const recalled =
      harness.mode === 'memory'
        ? await recall.recall({
            userId: session.userId,
            sessionId: session.id,
            query: rewrite.query,
            excludeIds: [user.id, ...context.messages.map((entry) => entry.id)],
          })
        : [];
    lap('recall');
    // pack
    const packed = packContext(
      {
        contextWindow: harness.mode === 'memory' ? 16_384 : Number.MAX_SAFE_INTEGER,
        answerTokens: 512,
        system: buildSystemPrompt(DEFAULT_SYSTEM_PROMPT, []),
        message,
        summary: context.summary,
        history,
        historyTokens: harness.mode === 'memory' ? profile.reservedTokens : Number.MAX_SAFE_INTEGER,
        chunks: retrieval.chunks,
        recalled,
      },
      tokenizer,
    );
    const sources = toSources(packed.chunks);
    const promptSources = toPromptSources(packed.chunks, sources);
    const answer = await llm.generate({
      system: withMemory(buildSystemPrompt(DEFAULT_SYSTEM_PROMPT, promptSources), packed.memory),
      messages: [...packed.history, { role: 'user', content: message }],
      sources: promptSources,
      maxTokens: 512,
    });
    lap('pack+generate');
    const reply: MessageRecord = {
      ...user,
      id: ulid(),
      role: 'assistant',
      content: answer.text,
      createdAt: isoNow(),
      sources,
      requestId: null,
      replyTo: user.id,
    };
    await store.appendMessages(session.id, [reply], { searchMs: 0, generationMs: 0 });
    recall.index([reply]);
    lap('persist');
    const replyMs = performance.now() - started;
    // compact
    if (harness.mode === 'memory') {
      await compact({ sessionStore: store, llm, tokenizer }, { session, profile });
    }
    lap('compact');
    return { ms: performance.now() - started, replyMs, promptTokens: packed.promptTokens, stages };
  }

  async function conversation(harness: Harness, index: number) {
    const now = isoNow();
    const session: SessionRecord = {
      id: ulid(),
      userId: `bench-${index}`,
      title: null,
      status: 'active',
      createdAt: now,
      updatedAt: now,
      endedAt: null,
      trajectoryId: null,
      settings: {},
      stats: { messageCount: 0, totalSearchMs: 0, totalGenerationMs: 0 },
      metadata: {},
    };
    await harness.store.createSession(session);
    await recall.pending();
    await new Promise((resolve) => setTimeout(resolve, 0));
    const first = await turn(harness, session, PROBE, 'k1');
    const times = [first.ms];
    const replies = [first.replyMs];
    for (let number = 2; number < TURNS; number++) {
      // The next request arrives later: background work (embeddings, index slices) runs between.
      await new Promise((resolve) => setTimeout(resolve, 0));
      const query = queries[(index * 37 + number) % queries.length]!;
      const result = await turn(harness, session, query, `k${number}`);
      times.push(result.ms);
      replies.push(result.replyMs);
    }
    await recall.pending();
    await new Promise((resolve) => setTimeout(resolve, 0));
    const last = await turn(harness, session, PROBE, `k${TURNS}`);
    times.push(last.ms);
    replies.push(last.replyMs);
    return { first, last, times, replies, stored: await harness.store.countMessages(session.id) };
  }

  async function measure(name: string, harness: Harness) {
    await conversation(harness, 99); // warm-up
    const firsts: number[] = [];
    const lasts: number[] = [];
    const early: number[] = [];
    const late: number[] = [];
    const replyFirsts: number[] = [];
    const replyLasts: number[] = [];
    const replyEarly: number[] = [];
    const replyLate: number[] = [];
    let tokens = { first: 0, last: 0 };
    let stored = 0;
    for (let index = 0; index < CONVERSATIONS; index++) {
      const run = await conversation(harness, index);
      firsts.push(run.first.ms);
      lasts.push(run.last.ms);
      early.push(...run.times.slice(0, 20));
      late.push(...run.times.slice(-20));
      replyFirsts.push(run.first.replyMs);
      replyLasts.push(run.last.replyMs);
      replyEarly.push(...run.replies.slice(0, 20));
      replyLate.push(...run.replies.slice(-20));
      tokens = { first: run.first.promptTokens, last: run.last.promptTokens };
      if (process.env.STAGES)
        console.log(name, JSON.stringify(run.first.stages), JSON.stringify(run.last.stages));
      stored = run.stored;
    }
    const ms = (value: number) => `${value.toFixed(2)} ms`;
    const pair = (a: number, b: number) => `${ms(a)} → ${ms(b)} (${(b / a).toFixed(2)}×)`;
    return [
      name,
      pair(median(replyFirsts), median(replyLasts)),
      pair(median(replyEarly), median(replyLate)),
      pair(median(firsts), median(lasts)),
      pair(median(early), median(late)),
      `${tokens.first} → ${tokens.last}`,
      String(stored),
    ];
  }

  const rows: string[][] = [];
  const profile = CHAT_PROFILES.default;
  rows.push(
    await measure('in-memory, compaction + recall (default profile)', {
      store: createMemorySessionStore(),
      mode: 'memory',
      profile,
    }),
  );
  rows.push(
    await measure('in-memory, full history (no compaction)', {
      store: createMemorySessionStore(),
      mode: 'full-history',
      profile,
    }),
  );

  try {
    const { createSqliteStores } = await import('../src/adapters/sqlite/index.js');
    const path = join(tmpdir(), `cortexis-bench-memory-${process.pid}.db`);
    for (const synchronous of ['normal', 'full'] as const) {
      const stores = await createSqliteStores({ path, synchronous });
      try {
        rows.push(
          await measure(`SQLite (synchronous=${synchronous}), compaction + recall`, {
            store: stores.sessionStore,
            mode: 'memory',
            profile,
          }),
        );
      } finally {
        stores.close();
        for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
      }
    }
  } catch (error) {
    console.log(`SQLite skipped: ${error instanceof Error ? error.message : String(error)}`);
  }

  console.log(
    `\n${CONVERSATIONS} conversations of ${TURNS} turns each; the probe question at turn 1 and turn ${TURNS}; medians.`,
  );
  console.log(
    '\n| store, memory | reply, probe turn 1 → 200 | reply, turns 1–20 → 181–200 | turn incl. compaction, probe 1 → 200 | turn incl. compaction, turns 1–20 → 181–200 | prompt tokens, turn 1 → 200 | messages stored |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- |');
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);
}

await main();
