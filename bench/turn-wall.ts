/**
 * `node --import tsx bench/turn-wall.ts [--dist DIR] [--data DIR] [--turns N] [--hops]
 * [--stores] [--spans] [--warm N] [--profile FILE] [--tree DIR]`: where the wall time of a
 * `bench:peers` turn goes. The engine is built exactly as `bench/peers/stacks/cortexis.ts`
 * builds it (`createChatEngine` with the 256-d hashing embedder, one user and one fresh session
 * per question), from this tree's sources, another tree's (`--tree DIR`: `DIR/src/index.ts`, a
 * `git archive` copy with `node_modules` linked) or a build (`--dist DIR`: `DIR/index.js`). It ingests SciFact, warms up as
 * `bench/peers/worker.ts` does (20 turns; `--warm N`: N more over train claims), then times each test claim's `engine.chat` after an
 * idle `setImmediate`, as the peer worker does.
 *
 * Per turn, printed as p50 and mean over the turns:
 * - wall (`performance.now`), process CPU (`process.cpuUsage`: every thread), the main thread's
 *   run time and its wait for a CPU (`/proc/thread-self/schedstat`: ns on a CPU, ns runnable
 *   but waiting; updated at scheduler ticks, so read the means, not single turns), the event loop's idle time (`performance.eventLoopUtilization`), and GC pauses
 *   (`PerformanceObserver` 'gc' entries that start inside the turn, minor and major apart);
 *   wall − run − wait is time the thread slept (the loop idle: timers, I/O, other threads);
 * - the engine's own stage times: every event's `durationMs` and the answer's `timings`;
 * - `--hops`: async resources created inside the turn, by type (promises, timers,
 *   immediates, ticks; `async_hooks`, which slows the turn: read counts, not times, there);
 * - `--stores`: the session store's and learning sink's methods, wrapped: calls and ms per turn
 *   (the same in-memory adapters the defaults use, passed explicitly);
 * - `--spans`: a tracer (the `Tracer` port) records each stage span's wall and CPU time
 *   (`process.cpuUsage`; `schedstat` of a running thread is only updated at scheduler ticks, so
 *   it cannot time a span), per span name, and the turn's CPU outside any stage span (a stage
 *   inside another is counted in both);
 * - per thread over the timed loop: CPU ms per turn of the main thread and of V8's and libuv's
 *   helper threads (`/proc/self/task/<tid>/schedstat`);
 * - `--profile FILE`: a CPU profile of the timed turns (for `bench/turn-stages.ts`).
 */
import { Session } from 'node:inspector/promises';
import { createHook } from 'node:async_hooks';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { hasSciFact, loadCorpus, loadQueries, sciFactDir } from './scifact.js';

type CortexisModule = typeof import('../src/index.js');

function flag(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

/** ns on a CPU and ns waiting for one, of the calling thread (Linux), or NaN. */
function schedstat(): [number, number] {
  try {
    const [run, wait] = readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ');
    return [Number(run), Number(wait)];
  } catch {
    return [Number.NaN, Number.NaN];
  }
}

/** ns on a CPU of every thread of the process so far, by thread name and id (Linux). */
function threadTimes(): Map<string, number> {
  const times = new Map<string, number>();
  try {
    for (const tid of readdirSync('/proc/self/task')) {
      const name = readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim();
      const run = Number(readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      const key = tid === String(process.pid) ? 'main thread' : `${name} (thread ${tid})`;
      times.set(key, (times.get(key) ?? 0) + run);
    }
  } catch {
    // not Linux: no per-thread figures
  }
  return times;
}

/** A store whose methods are timed into `into` (calls, ms) under `prefix.method`. */
function timed<T extends object>(store: T, prefix: string, into: Map<string, number[]>): T {
  return new Proxy(store, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== 'function' || typeof key !== 'string') return value;
      return (...args: unknown[]) => {
        const name = `${prefix}.${key}`;
        // The call's synchronous part: all of an in-memory adapter's work (its promise then
        // settles at once; the time to its callbacks would count the turn's other microtasks).
        const started = performance.now();
        const result = (value as (...a: unknown[]) => unknown).apply(target, args);
        const entry = into.get(name) ?? [0, 0];
        entry[0]! += 1;
        entry[1]! += performance.now() - started;
        into.set(name, entry);
        return result;
      };
    },
  });
}

const quantile = (values: readonly number[], q: number): number => {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
};
const mean = (values: readonly number[]): number =>
  values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);

async function main(): Promise<void> {
  const dist = flag('--dist');
  const tree = flag('--tree') ?? resolve(import.meta.dirname, '..');
  const url = dist
    ? pathToFileURL(join(resolve(dist), 'index.js')).href
    : pathToFileURL(join(resolve(tree), 'src/index.ts')).href;
  const cortexis = (await import(url)) as CortexisModule;
  const dir = sciFactDir();
  if (!hasSciFact(dir)) throw new Error(`SciFact data not found in ${dir} (pass --data DIR)`);
  const documents = loadCorpus(dir).map(({ id, title, text }) => ({ id, title, text }));
  const questions = loadQueries(dir, 'test').map((query) => query.text);
  const turns = Number(flag('--turns') ?? questions.length);
  const withHops = process.argv.includes('--hops');
  const withStores = process.argv.includes('--stores');
  const profileFile = flag('--profile');
  const withSpans = process.argv.includes('--spans');

  // Stage spans of the current turn: wall and main-thread run ms by name; the turn's own span
  // (no parent) is the turn, its direct children are the stages.
  let spans = new Map<string, [number, number]>();
  let childRunMs = 0;
  const tracer = {
    name: 'turn-wall',
    specificationVersion: 'v1' as const,
    startSpan(name: string, options?: { parent?: unknown }) {
      const topLevel = options?.parent !== undefined && (options.parent as { turn?: boolean }).turn;
      const root = options?.parent === undefined;
      const started = performance.now();
      const cpu0 = process.cpuUsage();
      let ended = false;
      return {
        turn: root,
        setAttributes() {},
        recordError() {},
        end() {
          if (ended) return;
          ended = true;
          const used = process.cpuUsage(cpu0);
          const runMs = (used.user + used.system) / 1000;
          const entry = spans.get(name) ?? [0, 0];
          entry[0] += performance.now() - started;
          entry[1] += runMs;
          spans.set(name, entry);
          if (topLevel) childRunMs += runMs;
        },
      };
    },
  };

  const storeTimes = new Map<string, number[]>();
  const open = () => {
    const embedder = cortexis.createHashingEmbedder({ dimensions: 256 });
    const traced = withSpans ? { tracer } : {};
    if (!withStores) return cortexis.createChatEngine({ embedder, ...traced });
    return cortexis.createChatEngine({
      embedder,
      ...traced,
      sessionStore: timed(cortexis.createMemorySessionStore(), 'session', storeTimes),
      learningSink: timed(cortexis.createMemoryLearningSink(), 'learning', storeTimes),
    });
  };
  let users = 0;
  const conversation = async (engine: ReturnType<typeof open>) => {
    const userId = `user-${++users}`;
    const session = await engine.createSession({ userId });
    return (message: string) => engine.chat({ sessionId: session.id, userId, message });
  };
  const idle = (): Promise<void> => new Promise((done) => setImmediate(done));

  const warm = open();
  await warm.ingest(documents.slice(0, 50));
  for (const question of questions.slice(0, 5)) await (await conversation(warm))(question);
  const engine = open();
  await engine.ingest(documents);
  for (const question of questions.slice(0, 20)) await (await conversation(engine))(question);
  // `--warm N`: N more untimed turns over train claims (none of them a test claim), to tell
  // the JIT's settling (optimizations, deoptimizations) from the turn's steady cost.
  const train = loadQueries(dir, 'train').map((query) => query.text);
  for (const question of train.slice(0, Number(flag('--warm') ?? 0))) {
    await (
      await conversation(engine)
    )(question);
  }

  // The engine's own durations of the current turn, by event (and the answer's timings).
  let stages = new Map<string, number>();
  const stageNames = ['retrieval', 'recall', 'judge', 'turn.completed'] as const;
  for (const name of stageNames) {
    engine.on(name, (payload: { durationMs?: number }) => {
      if (typeof payload.durationMs === 'number') {
        stages.set(name, (stages.get(name) ?? 0) + payload.durationMs);
      }
    });
  }
  engine.on('metrics', (payload: { phase: string; ms: number }) => {
    stages.set(
      `metrics.${payload.phase}`,
      (stages.get(`metrics.${payload.phase}`) ?? 0) + payload.ms,
    );
  });

  const gcEntries: { start: number; duration: number; kind: number }[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as { detail?: { kind?: number } }).detail?.kind ?? 0;
      gcEntries.push({ start: entry.startTime, duration: entry.duration, kind });
    }
  });
  observer.observe({ entryTypes: ['gc'] });

  let inTurn = false;
  let hops = new Map<string, number>();
  const hook = createHook({
    init(_id, type) {
      if (inTurn) hops.set(type, (hops.get(type) ?? 0) + 1);
    },
  });
  if (withHops) hook.enable();

  const profiler = profileFile ? new Session() : undefined;
  if (profiler) {
    profiler.connect();
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.start');
  }

  const rows = new Map<string, number[]>();
  const add = (name: string, value: number): void => {
    const list = rows.get(name) ?? [];
    list.push(value);
    rows.set(name, list);
  };
  const windows: [number, number][] = [];
  storeTimes.clear();
  const loadBefore = loadavg()[0]!;
  const threadsBefore = threadTimes();
  for (const question of questions.slice(0, turns)) {
    const talk = await conversation(engine);
    await idle();
    stages = new Map();
    hops = new Map();
    spans = new Map();
    childRunMs = 0;
    const [run0, wait0] = schedstat();
    const cpu0 = process.cpuUsage();
    const elu0 = performance.eventLoopUtilization();
    inTurn = true;
    const started = performance.now();
    await talk(question);
    const ended = performance.now();
    inTurn = false;
    const elu = performance.eventLoopUtilization(elu0);
    const cpu = process.cpuUsage(cpu0);
    const [run1, wait1] = schedstat();
    windows.push([started, ended]);
    add('wall', ended - started);
    add('process cpu', (cpu.user + cpu.system) / 1000);
    add('main thread run', (run1 - run0) / 1e6);
    add('main thread wait (runnable)', (wait1 - wait0) / 1e6);
    add('loop idle (ELU)', elu.idle);
    for (const [name, ms] of stages) add(`stage ${name}`, ms);
    for (const [type, count] of hops) add(`hops ${type}`, count);
    for (const [name, [wallMs, runMs]] of spans) {
      add(`span ${name} wall`, wallMs);
      add(`span ${name} run`, runMs);
    }
    if (withSpans) add('cpu outside stage spans', (cpu.user + cpu.system) / 1000 - childRunMs);
  }
  const loadAfter = loadavg()[0]!;
  const threadsAfter = threadTimes();
  if (profiler && profileFile) {
    const { profile } = await profiler.post('Profiler.stop');
    writeFileSync(profileFile, JSON.stringify(profile));
  }
  hook.disable();
  await new Promise((done) => setTimeout(done, 50));
  observer.disconnect();

  // GC pauses that start inside a turn's window, per turn.
  let entry = 0;
  const sorted = [...gcEntries].sort((x, y) => x.start - y.start);
  for (const [started, ended] of windows) {
    let minor = 0;
    let major = 0;
    let count = 0;
    while (entry < sorted.length && sorted[entry]!.start < started) entry++;
    for (let at = entry; at < sorted.length && sorted[at]!.start < ended; at++) {
      const gc = sorted[at]!;
      count++;
      // kind 1: minor (scavenge); 2 and 4: major (mark-compact, incremental); 8: weak callbacks
      if (gc.kind === 1) minor += gc.duration;
      else major += gc.duration;
    }
    add('gc pauses (count)', count);
    add('gc minor ms', minor);
    add('gc major/other ms', major);
  }

  const gcTotal = gcEntries.reduce((sum, gc) => sum + gc.duration, 0);
  console.log(`gc: ${gcEntries.length} pauses, ${gcTotal.toFixed(1)} ms in the run`);
  console.log(
    `turn-wall: ${dist ? `dist ${dist}` : `sources of ${tree}`}, ${turns} turns, load ${loadBefore.toFixed(2)} → ${loadAfter.toFixed(2)}${withHops ? ', async_hooks on' : ''}${withStores ? ', stores wrapped' : ''}`,
  );
  console.log('| per turn | p50 | mean | turns with it |');
  console.log('| --- | --- | --- | --- |');
  for (const [name, values] of rows) {
    console.log(
      `| ${name} | ${quantile(values, 0.5).toFixed(3)} | ${mean(values).toFixed(3)} | ${values.length} |`,
    );
  }
  // Per thread over the whole timed loop (bench work between turns included): the main thread
  // against V8's helpers (concurrent marking, compilers) and libuv's pool.
  console.log('| thread | ms per turn, whole loop |');
  console.log('| --- | --- |');
  for (const [name, after] of threadsAfter) {
    const ms = (after - (threadsBefore.get(name) ?? 0)) / 1e6 / turns;
    if (ms >= 0.001) console.log(`| ${name} | ${ms.toFixed(3)} |`);
  }
  if (withStores) {
    console.log('| store method | calls per turn | ms per turn |');
    console.log('| --- | --- | --- |');
    const measured = turns; // createSession (untimed) included
    for (const [name, [calls, ms]] of [...storeTimes].sort((x, y) => y[1]![1]! - x[1]![1]!)) {
      console.log(
        `| ${name} | ${(calls! / measured).toFixed(2)} | ${(ms! / measured).toFixed(3)} |`,
      );
    }
  }
}

await main();
