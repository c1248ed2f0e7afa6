/**
 * `npm run bench:memory`: turn latency at turn 1 vs turn 200 of one chat session, through the
 * real engine (`createChatEngine` with SciFact ingested), so every turn runs what the engine
 * runs: idempotency, persistence, uncovered history, follow-up rewriting, retrieval, recall,
 * the one-budget pack, the extractive model, the judge, learning and compaction.
 *
 * Configurations: the in-memory session store with defaults (compaction on); the same with
 * `compaction: { enabled: false }`; SQLite (`createSqliteStores`, a temp file) as session
 * store and learning sink, with `synchronous` `full` (default) and `normal`. Documents stay
 * in the in-memory vector store and keyword index in every configuration, so only memory
 * management and the session store differ.
 *
 * Each configuration gets a fresh engine (SciFact ingested), one warm-up conversation, then
 * several measured conversations. In a conversation, turn 1 and turn 200 ask the same probe
 * (a SciFact test claim the engine answers without guard), and turns 181–200 repeat the
 * messages of turns 1–20 in the same order, so the early and late windows ask the same
 * questions. The query-embedding cache (100 entries) has long forgotten them by then, so
 * both windows embed their queries. Medians over conversations (probe) and over every turn
 * of the windows (window).
 *
 * Options: `--conversations N` (default 5), `--turns N` (default 200), `--data DIR`.
 */
import { rmSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import {
  createChatEngine,
  type ChatEngine,
  type EngineConfig,
  type IngestDocument,
} from '../src/index.js';
import { hasSciFact, loadCorpus, loadQueries, sciFactDir } from './scifact.js';

/** A numeric command-line option (`--name N`), or its default. */
function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  const value = index >= 0 ? Number(process.argv[index + 1]) : NaN;
  return Number.isInteger(value) && value > 0 ? value : fallback;
}

const CONVERSATIONS = option('conversations', 5);
const TURNS = Math.max(option('turns', 200), 60);
/** Turns in each of the early and late windows. */
const WINDOW = 20;

function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** One measured turn. */
interface TurnSample {
  readonly ms: number;
  /** Prompt tokens of the `generate` metrics event; null when the turn did not generate. */
  readonly promptTokens: number | null;
  readonly guard: boolean;
  /** Whether the turn ended with a compaction (a `summary` event). */
  readonly compacted: boolean;
  /** Retrieval (rewrite, route excluded) and generation, ms, from the response. */
  readonly retrievalMs: number;
  readonly generationMs: number;
}

/** One measured conversation. */
interface ConversationRun {
  readonly turns: readonly TurnSample[];
  readonly summaries: number;
  readonly errors: number;
  readonly stored: number;
}

/** A configuration under test. */
interface Setup {
  readonly name: string;
  /** Engine config (the documents' stores are added by the bench); `close` frees resources. */
  readonly open: () => Promise<{ config: EngineConfig; close: () => void }>;
}

/** A row of the result table. */
interface Row {
  readonly name: string;
  readonly probe: readonly [number, number];
  readonly window: readonly [number, number];
  /** Late window: median of turns without, and with, a compaction. */
  readonly lateSplit: readonly [number, number];
  readonly compactedLate: number;
  readonly tokensProbe: readonly [number, number];
  readonly tokensWindow: readonly [number, number];
  readonly summaries: number;
  readonly errors: number;
  readonly stored: number;
  readonly ingestMs: number;
  readonly runMs: number;
}

/** Lets background work (recall embeddings) run between requests, as it would in a server. */
const idle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

async function main(): Promise<void> {
  const dir = sciFactDir();
  const sciFact = hasSciFact(dir);
  const docs: IngestDocument[] = sciFact
    ? loadCorpus(dir).map((doc) => ({ id: doc.id, title: doc.title, text: doc.text }))
    : Array.from({ length: 2000 }, (_, i) => ({
        id: `d${i}`,
        text: `Document ${i} discusses vitamin ${i % 7} and fractures in group ${i % 13}. It also covers outcome ${i % 29}.`,
      }));
  const queries = sciFact
    ? loadQueries(dir).map((query) => query.text)
    : Array.from(
        { length: 300 },
        (_, i) => `Does vitamin ${i % 7} change fractures in group ${i % 13} (case ${i})?`,
      );
  console.log(
    `corpus: ${sciFact ? `SciFact (${docs.length} docs, ${queries.length} test claims)` : 'generated (SciFact data not found)'}`,
  );
  const machine = `${cpus()[0]?.model ?? 'unknown'} × ${cpus().length}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
  console.log(`machine: ${machine}`);

  // Probes: claims the engine answers (no guard), one per conversation (+ the warm-up's).
  // Each conversation's other messages come from the remaining claims, at its own offset.
  let probes: string[] | undefined;
  let fillers: string[] = [];
  const pickProbes = async (engine: ChatEngine): Promise<void> => {
    const answered: string[] = [];
    for (const query of queries) {
      if (answered.length > CONVERSATIONS) break;
      const reply = await engine.chat({ message: query, mode: 'query' });
      if (!reply.guard) answered.push(query);
    }
    probes = answered;
    fillers = queries.filter((query) => !answered.includes(query));
  };

  /** The messages of conversation `index`: turns 181–200 repeat turns 1–20. */
  const script = (index: number): string[] => {
    const probe = probes![index % probes!.length]!;
    const distinct = TURNS - WINDOW; // turns 1 … TURNS − WINDOW
    const messages = [probe];
    for (let turn = 1; turn < distinct; turn++) {
      messages.push(fillers[(index * 61 + turn) % fillers.length]!);
    }
    // Late window: the early window's fillers, then the probe again at the last turn.
    return [...messages, ...messages.slice(1, WINDOW), probe];
  };

  async function conversation(engine: ChatEngine, index: number): Promise<ConversationRun> {
    let summaries = 0;
    let errors = 0;
    let promptTokens: number | null = null;
    const offs = [
      engine.on('summary', () => summaries++),
      engine.on('error', () => errors++),
      engine.on('metrics', (event) => {
        if (event.phase === 'generate') promptTokens = event.detail?.promptTokens ?? null;
      }),
    ];
    const userId = `bench-${index}`;
    const session = await engine.createSession({ userId });
    const turns: TurnSample[] = [];
    try {
      for (const [number, message] of script(index).entries()) {
        await idle();
        promptTokens = null;
        const summariesBefore = summaries;
        const started = performance.now();
        const reply = await engine.chat({
          sessionId: session.id,
          userId,
          message,
          messageId: `m${number + 1}`,
        });
        const ms = performance.now() - started;
        turns.push({
          ms,
          promptTokens,
          guard: reply.guard,
          compacted: summaries > summariesBefore,
          retrievalMs: reply.timings.retrievalMs,
          generationMs: reply.timings.generationMs,
        });
      }
    } finally {
      for (const off of offs) off();
    }
    const { total } = await engine.history({ sessionId: session.id, userId, limit: 1 });
    return { turns, summaries, errors, stored: total };
  }

  async function measure(setup: Setup): Promise<Row> {
    const { config, close } = await setup.open();
    try {
      const engine = createChatEngine({ ...config });
      const ingestStarted = performance.now();
      await engine.ingest(docs);
      const ingestMs = performance.now() - ingestStarted;
      if (!probes) await pickProbes(engine);
      const runStarted = performance.now();
      await conversation(engine, CONVERSATIONS); // warm-up (its own probe)
      const runs: ConversationRun[] = [];
      for (let index = 0; index < CONVERSATIONS; index++) {
        runs.push(await conversation(engine, index));
      }
      const runMs = performance.now() - runStarted;
      const first = (run: ConversationRun) => run.turns[0]!;
      const last = (run: ConversationRun) => run.turns[run.turns.length - 1]!;
      const early = runs.flatMap((run) => run.turns.slice(0, WINDOW));
      const late = runs.flatMap((run) => run.turns.slice(-WINDOW));
      const tokens = (samples: readonly TurnSample[]) =>
        median(
          samples.flatMap((sample) => (sample.promptTokens === null ? [] : [sample.promptTokens])),
        );
      if (process.env.VERBOSE) {
        for (const [index, run] of runs.entries()) {
          console.log(
            `${setup.name} #${index}: probe ${first(run).ms.toFixed(2)} → ${last(run).ms.toFixed(2)} ms, ` +
              `guard ${first(run).guard}/${last(run).guard}, ` +
              `tokens ${first(run).promptTokens} → ${last(run).promptTokens}, summaries ${run.summaries}`,
          );
        }
        const split = (samples: readonly TurnSample[]) =>
          [
            `retrieval ${median(samples.map((turn) => turn.retrievalMs)).toFixed(2)}`,
            `generation ${median(samples.map((turn) => turn.generationMs)).toFixed(2)}`,
            `rest ${median(samples.map((turn) => turn.ms - turn.retrievalMs - turn.generationMs)).toFixed(2)}`,
          ].join(', ');
        console.log(
          `${setup.name}: window medians, ms: early ${split(early)}; late ${split(late)}`,
        );
      }
      return {
        name: setup.name,
        probe: [median(runs.map((run) => first(run).ms)), median(runs.map((run) => last(run).ms))],
        window: [median(early.map((turn) => turn.ms)), median(late.map((turn) => turn.ms))],
        lateSplit: [
          median(late.filter((turn) => !turn.compacted).map((turn) => turn.ms)),
          median(late.filter((turn) => turn.compacted).map((turn) => turn.ms)),
        ],
        compactedLate: late.filter((turn) => turn.compacted).length / late.length,
        tokensProbe: [tokens(runs.map(first)), tokens(runs.map(last))],
        tokensWindow: [tokens(early), tokens(late)],
        summaries: median(runs.map((run) => run.summaries)),
        errors: runs.reduce((sum, run) => sum + run.errors, 0),
        stored: median(runs.map((run) => run.stored)),
        ingestMs,
        runMs,
      };
    } finally {
      close();
    }
  }

  const sqlite = (synchronous: 'full' | 'normal'): Setup => {
    const path = join(tmpdir(), `cortexis-bench-memory-${process.pid}-${synchronous}.db`);
    const remove = () => {
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
    };
    return {
      name: `SQLite file, synchronous ${synchronous}${synchronous === 'full' ? ' (default)' : ''}, compaction on`,
      open: async () => {
        const { createSqliteStores } = await import('../src/adapters/sqlite/index.js');
        remove();
        const stores = await createSqliteStores({ path, synchronous });
        return {
          config: { sessionStore: stores.sessionStore, learningSink: stores.learningSink },
          close: () => {
            stores.close();
            remove();
          },
        };
      },
    };
  };
  const setups: Setup[] = [
    {
      name: 'in-memory, defaults (compaction on)',
      open: async () => ({ config: {}, close: () => {} }),
    },
    {
      name: 'in-memory, `compaction: { enabled: false }`',
      open: async () => ({ config: { compaction: { enabled: false } }, close: () => {} }),
    },
    sqlite('full'),
    sqlite('normal'),
  ];

  const started = performance.now();
  const rows: Row[] = [];
  for (const setup of setups) {
    try {
      const row = await measure(setup);
      rows.push(row);
      console.log(
        `${setup.name}: ingest ${row.ingestMs.toFixed(0)} ms, ${CONVERSATIONS + 1} conversations ${(row.runMs / 1000).toFixed(1)} s`,
      );
    } catch (error) {
      console.log(
        `${setup.name}: skipped (${error instanceof Error ? error.message : String(error)})`,
      );
    }
  }

  const ms = (value: number) => `${value.toFixed(2)} ms`;
  const pair = ([a, b]: readonly [number, number]) =>
    `${ms(a)} → ${ms(b)} (${(b / a).toFixed(2)}×)`;
  const verdict = (row: Row) => {
    const ratio = row.window[1] / row.window[0];
    return ratio <= 1.2 ? `yes (${ratio.toFixed(2)}×)` : `no (${ratio.toFixed(2)}×)`;
  };
  console.log(
    `\n${CONVERSATIONS} conversations of ${TURNS} turns per configuration (after one warm-up conversation); ` +
      `the same probe at turn 1 and turn ${TURNS}; turns ${TURNS - WINDOW + 1}–${TURNS} repeat turns 1–${WINDOW}; medians. ` +
      `Whole run ${((performance.now() - started) / 1000).toFixed(0)} s.`,
  );
  console.log(`Machine: ${machine}. Command: \`npm run bench:memory\`.\n`);
  console.log(
    `| configuration | probe, turn 1 → ${TURNS} | window, turns 1–${WINDOW} → ${TURNS - WINDOW + 1}–${TURNS} | target: window ≤ 1.2× | late window: turns without / with compaction (share with) | prompt tokens, probe 1 → ${TURNS} | prompt tokens, window | \`summary\` events / conversation | messages stored | \`error\` events |`,
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const row of rows) {
    console.log(
      `| ${[
        row.name,
        pair(row.probe),
        pair(row.window),
        verdict(row),
        row.compactedLate === 0
          ? `${ms(row.lateSplit[0])} / — (0 %)`
          : `${ms(row.lateSplit[0])} / ${ms(row.lateSplit[1])} (${(row.compactedLate * 100).toFixed(0)} %)`,
        `${row.tokensProbe[0]} → ${row.tokensProbe[1]}`,
        `${row.tokensWindow[0]} → ${row.tokensWindow[1]}`,
        String(row.summaries),
        String(row.stored),
        String(row.errors),
      ].join(' | ')} |`,
    );
  }
}

await main();
