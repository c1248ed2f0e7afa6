/**
 * Streaming overhead (issue 4's benchmark): time from the provider's first byte to the first
 * `text-delta` out of `engine.stream`, and the cost per delta with citation filtering —
 * targets ≤ 1 ms and ≤ 20 µs. Run: `node --import tsx bench/stream.ts`.
 *
 * No network: the real OpenAI adapter gets an injected `fetch` whose `Response` body is a
 * `ReadableStream` this script feeds with documented Chat Completions SSE chunks (see
 * test/fixtures/providers/openai-chat-stream.sse). The mock in-process provider
 * (`createMockLLM`) separates the adapter's parsing from the engine's own overhead.
 * Prints a markdown table for docs/benchmarks.md.
 */
import { cpus, loadavg, totalmem } from 'node:os';
import { PerformanceObserver } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { createOpenAIChat } from '../src/adapters/openai/index.js';
import { createChatEngine, createCitationFilter, type ChatEngine } from '../src/index.js';
import type { LLMProvider, LLMRequest } from '../src/ports/llm-provider.js';
import { createMockLLM } from '../src/testing/index.js';
import { handbook } from '../test/fixtures/handbook.js';

/** Deltas of the long answer. */
export const LONG_ANSWER_DELTAS = 5_000;
/** Measured turns per first-delta variant (after warm-up). */
const FIRST_DELTA_TURNS = 300;
/** Warm-up turns per first-delta variant. */
const FIRST_DELTA_WARMUP = 50;
/** Measured long answers per per-delta variant (after warm-up). */
const LONG_RUNS = 30;
/** Warm-up long answers per per-delta variant. */
const LONG_WARMUP = 5;

/** Questions that retrieve handbook sources, so every turn calls the model. */
const QUESTIONS = [
  'How long do refunds take?',
  'How much does express shipping cost?',
  'How long must passwords be?',
  'Are digital goods refunded?',
  'Where is the warehouse?',
];

const encoder = new TextEncoder();

/** The value at quantile `q` of ascending `sorted` (nearest rank, like bench/run.ts). */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** One Chat Completions stream chunk as an SSE event (`data: {json}\n\n`), as OpenAI sends it. */
export function sseChunk(delta: { role?: string; content?: string }, finish?: string): string {
  const chunk = {
    id: 'chatcmpl-bench',
    object: 'chat.completion.chunk',
    created: 1741570283,
    model: 'm',
    system_fingerprint: 'fp_bench',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish ?? null }],
    usage: null,
  };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

/** The SSE events that end a stream: finish reason, usage chunk, `[DONE]`. */
export function sseEnd(outputTokens: number): string[] {
  const usage = {
    id: 'chatcmpl-bench',
    object: 'chat.completion.chunk',
    created: 1741570283,
    model: 'm',
    choices: [],
    usage: {
      prompt_tokens: 100,
      completion_tokens: outputTokens,
      total_tokens: 100 + outputTokens,
    },
  };
  return [sseChunk({}, 'stop'), `data: ${JSON.stringify(usage)}\n\n`, 'data: [DONE]\n\n'];
}

/**
 * A long answer of exactly `count` deltas: words with a leading space, valid citations
 * (`S1`, `S2`) and invalid ones (`S99`, `X7`) sprinkled in, some tags split across two or
 * three deltas, and brackets that are not tags. Deterministic.
 */
export function longAnswerDeltas(count: number): string[] {
  const words = ['refunds', 'are', 'issued', 'within', 'days', 'of', 'the', 'request', 'and'];
  const deltas: string[] = ['Refunds'];
  let i = 0;
  while (deltas.length < count) {
    i++;
    const room = count - deltas.length;
    if (i % 41 === 0 && room >= 1) deltas.push(' [source: S1]');
    else if (i % 97 === 0 && room >= 1) deltas.push(' [source: S99]');
    else if (i % 61 === 0 && room >= 3) deltas.push(' [sour', 'ce: S', '2]');
    else if (i % 89 === 0 && room >= 2) deltas.push(' [source:', ' X7]');
    else if (i % 151 === 0 && room >= 1) deltas.push(' [note]');
    else if (i % 17 === 0 && room >= 1) deltas.push('.');
    else deltas.push(` ${words[i % words.length]!}`);
  }
  return deltas;
}

/** A response body this script feeds: the reader is waiting once `waiting` resolves. */
interface Feed {
  /** Enqueues bytes on the response body. */
  readonly enqueue: (bytes: Uint8Array) => void;
  /** Ends the response body. */
  readonly close: () => void;
  /** Resolves when the adapter first reads the body (it waits for bytes). */
  readonly waiting: Promise<void>;
}

/** A `fetch` answering every call with a body fed by the caller; `next()` yields each call's feed. */
function createControlledFetch() {
  const feeds: Feed[] = [];
  const waiters: ((feed: Feed) => void)[] = [];
  let calls = 0;
  const fetch = async (_url: string, _init: RequestInit): Promise<Response> => {
    calls++;
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    let onPull!: () => void;
    const waiting = new Promise<void>((resolve) => (onPull = resolve));
    const body = new ReadableStream<Uint8Array>(
      {
        start: (c) => {
          controller = c;
        },
        pull: () => onPull(),
      },
      // No read-ahead: `pull` runs only when the adapter is actually waiting for bytes.
      { highWaterMark: 0 },
    );
    const feed: Feed = {
      enqueue: (bytes) => controller.enqueue(bytes),
      close: () => controller.close(),
      waiting,
    };
    const waiter = waiters.shift();
    if (waiter) waiter(feed);
    else feeds.push(feed);
    return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  };
  return {
    fetch,
    calls: () => calls,
    next: (): Promise<Feed> => {
      const feed = feeds.shift();
      return feed ? Promise.resolve(feed) : new Promise((resolve) => waiters.push(resolve));
    },
  };
}

/** A macrotask turn: the engine is idle, as when a real byte arrives from the socket. */
const idle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The mock provider's first "byte": the scripted response, handed over when the driver says. */
function createGatedMock() {
  const gates: ((release: (chunks: readonly string[]) => void) => void)[] = [];
  const pending: ((chunks: readonly string[]) => void)[] = [];
  const llm = createMockLLM({
    responses: () =>
      new Promise((resolve) => {
        const release = (chunks: readonly string[]) => resolve({ text: chunks.join(''), chunks });
        const gate = gates.shift();
        if (gate) gate(release);
        else pending.push(release);
      }),
  });
  return {
    llm,
    next: (): Promise<(chunks: readonly string[]) => void> => {
      const release = pending.shift();
      return release ? Promise.resolve(release) : new Promise((resolve) => gates.push(resolve));
    },
  };
}

/** Where the provider's bytes come from in a measured turn. */
type Source =
  | { readonly kind: 'openai'; readonly next: () => Promise<Feed> }
  | { readonly kind: 'mock'; readonly next: () => Promise<(chunks: readonly string[]) => void> };

interface TurnTiming {
  /** When the provider's first byte was delivered (`performance.now()`). */
  readonly firstByteAt: number;
  /** Whether the OS switched the process out between the first byte and the first delta. */
  readonly preempted: boolean;
  /** Provider's first byte → first `text-delta` out of the engine, ms. */
  readonly firstDeltaMs: number;
  /** Provider's first byte → last `text-delta` out of the engine, ms. */
  readonly lastDeltaMs: number;
  /** Provider's first byte → `done` part (judge, scoring included), ms. */
  readonly doneMs: number;
  /** `text-delta` parts out of the engine. */
  readonly deltasOut: number;
}

/**
 * Runs one streamed turn. The first provider byte is delivered only once the engine waits
 * for it; with `all`, every delta is delivered at once, else the first (with the role
 * chunk) and, after the first `text-delta` came out, the rest.
 */
async function timeTurn(
  engine: ChatEngine,
  source: Source,
  message: string,
  deltas: readonly string[],
  all: boolean,
): Promise<TurnTiming> {
  const stream = engine.stream({ message, mode: 'query' });
  let t0 = 0;
  let first = -1;
  let last = -1;
  let deltasOut = 0;
  let switchesBefore = 0;
  let switchesAfter = 0;
  let deliverRest: () => void = () => {};
  const consumed = (async () => {
    for await (const part of stream) {
      if (part.type === 'text-delta') {
        last = performance.now();
        deltasOut++;
        if (first < 0) {
          first = last;
          switchesAfter = process.resourceUsage().involuntaryContextSwitches;
          deliverRest();
        }
      } else if (part.type === 'error') {
        throw new Error(`turn failed: ${part.error.code} ${part.error.message}`);
      }
    }
    return performance.now();
  })();

  if (source.kind === 'openai') {
    const feed = await source.next();
    const events = [
      sseChunk({ role: 'assistant', content: '' }),
      ...deltas.map((content) => sseChunk({ content })),
      ...sseEnd(deltas.length),
    ].map((event) => encoder.encode(event));
    await feed.waiting;
    await idle();
    const rest = () => {
      for (const bytes of events.slice(2)) feed.enqueue(bytes);
      feed.close();
    };
    switchesBefore = process.resourceUsage().involuntaryContextSwitches;
    t0 = performance.now();
    if (all) {
      for (const bytes of events) feed.enqueue(bytes);
      feed.close();
    } else {
      // The role chunk and the first content chunk arrive in one network read.
      const head = new Uint8Array(events[0]!.length + events[1]!.length);
      head.set(events[0]!);
      head.set(events[1]!, events[0]!.length);
      deliverRest = rest;
      feed.enqueue(head);
    }
  } else {
    const release = await source.next();
    await idle();
    switchesBefore = process.resourceUsage().involuntaryContextSwitches;
    t0 = performance.now();
    release(deltas);
  }
  const doneAt = await consumed;
  await stream.response;
  if (first < 0) throw new Error('no text-delta came out of the engine');
  return {
    firstByteAt: t0,
    preempted: switchesAfter > switchesBefore,
    firstDeltaMs: first - t0,
    lastDeltaMs: last - t0,
    doneMs: doneAt - t0,
    deltasOut,
  };
}

/** The adapter alone: the same bytes through `createOpenAIChat(...).stream`, first byte → last delta. */
async function timeAdapterAlone(deltas: readonly string[]): Promise<number> {
  const control = createControlledFetch();
  const llm = createOpenAIChat({
    apiKey: 'k',
    baseURL: 'http://bench.invalid/v1',
    model: 'm',
    fetch: control.fetch,
  });
  const request: LLMRequest = { system: 'sys', messages: [{ role: 'user', content: 'q' }] };
  const events = [
    sseChunk({ role: 'assistant', content: '' }),
    ...deltas.map((content) => sseChunk({ content })),
    ...sseEnd(deltas.length),
  ].map((event) => encoder.encode(event));
  let t0 = 0;
  let last = 0;
  let count = 0;
  const consumed = (async () => {
    for await (const part of llm.stream(request)) {
      if (part.type === 'text-delta') {
        last = performance.now();
        count++;
      }
    }
  })();
  const feed = await control.next();
  await feed.waiting;
  await idle();
  t0 = performance.now();
  for (const bytes of events) feed.enqueue(bytes);
  feed.close();
  await consumed;
  if (count !== deltas.length) throw new Error(`adapter yielded ${count} of ${deltas.length}`);
  return last - t0;
}

/** `createCitationFilter` alone over the deltas (push each, then flush), ms. */
function timeFilterAlone(deltas: readonly string[]): number {
  const started = performance.now();
  const filter = createCitationFilter(['S1', 'S2', 'S3']);
  let out = 0;
  for (const delta of deltas) out += filter.push(delta).length;
  out += filter.flush().length;
  const ms = performance.now() - started;
  if (out === 0) throw new Error('the filter emitted nothing');
  return ms;
}

interface Variant {
  readonly label: string;
  readonly engine: ChatEngine;
  readonly source: Source;
  readonly fetchCalls?: () => number;
}

async function buildVariants(): Promise<Variant[]> {
  const variants: Variant[] = [];
  for (const judge of ['off', 'offline'] as const) {
    const control = createControlledFetch();
    const llm: LLMProvider = createOpenAIChat({
      apiKey: 'k',
      baseURL: 'http://bench.invalid/v1',
      model: 'm',
      fetch: control.fetch,
    });
    const engine = createChatEngine({ llm, judge: { mode: judge } });
    await engine.ingest(handbook);
    variants.push({
      label: `OpenAI adapter, judge ${judge === 'off' ? 'off' : 'on (offline)'}`,
      engine,
      source: { kind: 'openai', next: control.next },
      fetchCalls: control.calls,
    });
  }
  for (const judge of ['off', 'offline'] as const) {
    const gated = createGatedMock();
    const engine = createChatEngine({ llm: gated.llm, judge: { mode: judge } });
    await engine.ingest(handbook);
    variants.push({
      label: `mock in-process LLM, judge ${judge === 'off' ? 'off' : 'on (offline)'}`,
      engine,
      source: { kind: 'mock', next: gated.next },
    });
  }
  return variants;
}

/** A garbage-collection pause, in `performance.now()` time. */
export interface Pause {
  readonly start: number;
  readonly end: number;
}

/** Records every GC pause from now on (entries arrive asynchronously; read after an `idle()`). */
function observeGc(): { readonly pauses: Pause[]; readonly stop: () => void } {
  const pauses: Pause[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      pauses.push({ start: entry.startTime, end: entry.startTime + entry.duration });
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return { pauses, stop: () => observer.disconnect() };
}

/** Whether a pause overlaps the window `[start, end]`. */
export function overlapsPause(pauses: readonly Pause[], start: number, end: number): boolean {
  return pauses.some((pause) => pause.start < end && pause.end > start);
}

const fmtMs = (ms: number) => `${ms.toFixed(3)} ms`;
const fmtUs = (ms: number) => `${(ms * 1000).toFixed(2)} µs`;
const sorted = (values: readonly number[]) => [...values].sort((a, b) => a - b);

async function main(): Promise<void> {
  const cpu = cpus();
  console.log(
    `machine: ${cpu[0]?.model ?? 'unknown'} × ${cpu.length}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
  );
  const load = () =>
    loadavg()
      .map((value) => value.toFixed(2))
      .join(' ');
  console.log(`load average at start: ${load()}`);
  console.log('command: node --import tsx bench/stream.ts');
  const variants = await buildVariants();
  const shortAnswer = ['Refunds', ' are', ' issued', ' within', ' 14', ' days', ' [source: S1].'];
  const long = longAnswerDeltas(LONG_ANSWER_DELTAS);
  const rows: string[][] = [];

  const gc = observeGc();
  for (const variant of variants) {
    const timings: TurnTiming[] = [];
    for (let turn = 0; turn < FIRST_DELTA_WARMUP + FIRST_DELTA_TURNS; turn++) {
      const message = QUESTIONS[turn % QUESTIONS.length]!;
      const timing = await timeTurn(variant.engine, variant.source, message, shortAnswer, false);
      if (turn >= FIRST_DELTA_WARMUP) timings.push(timing);
    }
    await idle();
    const s = sorted(timings.map((timing) => timing.firstDeltaMs));
    const paused = (timing: TurnTiming) =>
      overlapsPause(gc.pauses, timing.firstByteAt, timing.firstByteAt + timing.firstDeltaMs);
    const slow = timings.filter((timing) => timing.firstDeltaMs > 1);
    const clean = sorted(
      timings
        .filter((timing) => !timing.preempted && !paused(timing))
        .map((timing) => timing.firstDeltaMs),
    );
    rows.push([
      `first byte → first \`text-delta\`, ${variant.label}`,
      `${FIRST_DELTA_TURNS} query-mode turns after ${FIRST_DELTA_WARMUP} warm-up`,
      `p50 **${fmtMs(quantile(s, 0.5))}**, p99 **${fmtMs(quantile(s, 0.99))}**, max ${fmtMs(s[s.length - 1]!)}; ` +
        `${slow.length} turns > 1 ms, of which ${slow.filter((timing) => timing.preempted).length} with an OS preemption ` +
        `(involuntary context switch) and ${slow.filter(paused).length} with a GC pause in the window; ` +
        `excluding the ${s.length - clean.length} turns with either: ` +
        `p99 ${fmtMs(quantile(clean, 0.99))}, max ${fmtMs(clean[clean.length - 1]!)}`,
      '≤ 1 ms',
    ]);
  }
  gc.stop();

  const adapterTimes: number[] = [];
  for (let run = 0; run < LONG_WARMUP + LONG_RUNS; run++) {
    const ms = await timeAdapterAlone(long);
    if (run >= LONG_WARMUP) adapterTimes.push(ms);
  }
  const adapterMedian = quantile(sorted(adapterTimes), 0.5);
  const n = long.length;

  for (const variant of variants) {
    const lastTimes: number[] = [];
    const doneTimes: number[] = [];
    let deltasOut = 0;
    for (let run = 0; run < LONG_WARMUP + LONG_RUNS; run++) {
      const message = QUESTIONS[run % QUESTIONS.length]!;
      const timing = await timeTurn(variant.engine, variant.source, message, long, true);
      if (run >= LONG_WARMUP) {
        lastTimes.push(timing.lastDeltaMs);
        doneTimes.push(timing.doneMs);
        deltasOut = timing.deltasOut;
      }
    }
    const last = quantile(sorted(lastTimes), 0.5);
    const done = quantile(sorted(doneTimes), 0.5);
    const overhead =
      variant.source.kind === 'openai'
        ? `; minus the adapter alone: **${fmtUs((last - adapterMedian) / n)}**`
        : ' (no adapter: engine overhead only)';
    rows.push([
      `per delta, ${variant.label}`,
      `${n} deltas enqueued at once (${deltasOut} out), median of ${LONG_RUNS}`,
      `total / N: **${fmtUs(last / n)}**${overhead}; first byte → last delta ${fmtMs(last)}, → \`done\` ${fmtMs(done)}`,
      '≤ 20 µs',
    ]);
  }
  rows.push([
    'per delta, OpenAI adapter alone (SSE decode + parse + zod)',
    `the same ${n} deltas' bytes, median of ${LONG_RUNS}`,
    `${fmtUs(adapterMedian / n)} (${fmtMs(adapterMedian)} total)`,
    '—',
  ]);

  const filterTimes: number[] = [];
  for (let run = 0; run < 20 + 200; run++) {
    const ms = timeFilterAlone(long);
    if (run >= 20) filterTimes.push(ms);
  }
  const filterMedian = quantile(sorted(filterTimes), 0.5);
  rows.push([
    '`createCitationFilter` alone',
    `${n} deltas (push each + flush), median of 200`,
    `${fmtUs(filterMedian / n)} per delta (${fmtMs(filterMedian)} total)`,
    '—',
  ]);

  for (const variant of variants) {
    const expected = FIRST_DELTA_WARMUP + FIRST_DELTA_TURNS + LONG_WARMUP + LONG_RUNS;
    if (variant.fetchCalls && variant.fetchCalls() !== expected) {
      throw new Error(`${variant.label}: ${variant.fetchCalls()} fetch calls, ${expected} turns`);
    }
  }

  console.log(`load average at end: ${load()}`);
  console.log('\n| measure | workload | result | target |\n| --- | --- | --- | --- |');
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
