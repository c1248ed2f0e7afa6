/**
 * `node --import tsx bench/turn-profile.ts [--data DIR] [--rounds N] [--dump FILE]`: ingests
 * SciFact once and runs its 300 test claims as `mode: 'query'` turns (after 50 warm-up turns),
 * then as turns of one chat session. Prints per-turn wall p50/p95/p99 and CPU ms per turn
 * (`process.cpuUsage()`) for each round. `--dump FILE` writes every turn's answer, citations,
 * sources, confidence and guard decision as JSON lines (run-time ids and timestamps masked), so
 * two trees can be compared with `cmp` for identical behaviour. `--profile FILE` writes a CPU
 * profile of the turn loops only (not the ingest), to open in Chrome DevTools or summarise with `bench/profile-summary.ts`.
 * `--query-only` skips the session turns (what `bench:turn-ab` and `bench:peers` time).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { loadavg } from 'node:os';
import { createChatEngine, type ChatResponse } from '../src/index.js';
import { hasSciFact, loadCorpus, loadQueries, sciFactDir } from './scifact.js';

function flag(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/**
 * A dump line with what differs between two runs masked: ids drawn at run time (ULIDs of the
 * session's messages and sessions) and timestamps, so `cmp` compares behaviour only.
 */
function masked(line: string): string {
  return line
    .replace(/[0-9A-HJKMNP-TV-Z]{26}/g, 'ULID')
    .replace(/"\d{4}-\d{2}-\d{2}T[\d:.]+Z"/g, '"TIME"');
}

function summary(reply: ChatResponse): object {
  return {
    text: reply.text,
    // The revision is an id drawn at ingest: it differs between two runs.
    sources: reply.sources.map(({ metadata: { revision, ...metadata }, ...source }) => ({
      ...source,
      metadata,
    })),
    citations: reply.citations,
    confidence: reply.confidence,
    guard: reply.guard,
    grounding: reply.grounding,
    turnNumber: reply.turnNumber,
    recalled: reply.recalled.map((recall) => recall.score),
  };
}

async function main(): Promise<void> {
  const dir = sciFactDir();
  if (!hasSciFact(dir)) throw new Error(`SciFact data not found in ${dir} (pass --data DIR)`);
  const docs = loadCorpus(dir).map((doc) => ({ id: doc.id, title: doc.title, text: doc.text }));
  const queries = loadQueries(dir).map((query) => query.text);
  const rounds = Number(flag('--rounds') ?? '1');
  const dumpPath = flag('--dump');
  const dump: string[] = [];

  const engine = createChatEngine();
  await engine.ingest(docs);
  for (const query of queries.slice(0, 50)) await engine.chat({ message: query, mode: 'query' });

  const profilePath = flag('--profile');
  const inspector = profilePath ? new Session() : null;
  if (inspector) {
    inspector.connect();
    await inspector.post('Profiler.enable');
    await inspector.post('Profiler.setSamplingInterval', { interval: 100 });
    await inspector.post('Profiler.start');
  }

  for (let round = 0; round < rounds; round++) {
    const times: number[] = [];
    const cpuStart = process.cpuUsage();
    for (const query of queries) {
      const started = performance.now();
      const reply = await engine.chat({ message: query, mode: 'query' });
      times.push(performance.now() - started);
      if (round === 0 && dumpPath) dump.push(masked(JSON.stringify({ query, ...summary(reply) })));
    }
    const cpu = process.cpuUsage(cpuStart);
    times.sort((a, b) => a - b);
    console.log(
      `query round ${round + 1}: p50 ${quantile(times, 0.5).toFixed(2)} ms, p95 ${quantile(times, 0.95).toFixed(2)} ms, p99 ${quantile(times, 0.99).toFixed(2)} ms, cpu ${((cpu.user + cpu.system) / 1000 / queries.length).toFixed(3)} ms/turn, load ${loadavg()[0]!.toFixed(2)}`,
    );
  }

  if (process.argv.includes('--query-only')) return finish();
  const session = await engine.createSession({ userId: 'profile' });
  const times: number[] = [];
  const cpuStart = process.cpuUsage();
  for (const query of queries) {
    const started = performance.now();
    const reply = await engine.chat({ sessionId: session.id, message: query });
    times.push(performance.now() - started);
    if (dumpPath) dump.push(masked(JSON.stringify({ session: true, query, ...summary(reply) })));
  }
  const cpu = process.cpuUsage(cpuStart);
  times.sort((a, b) => a - b);
  console.log(
    `session: p50 ${quantile(times, 0.5).toFixed(2)} ms, p95 ${quantile(times, 0.95).toFixed(2)} ms, p99 ${quantile(times, 0.99).toFixed(2)} ms, cpu ${((cpu.user + cpu.system) / 1000 / queries.length).toFixed(3)} ms/turn, load ${loadavg()[0]!.toFixed(2)}`,
  );
  return finish();

  async function finish(): Promise<void> {
    if (inspector && profilePath) {
      const { profile } = await inspector.post('Profiler.stop');
      writeFileSync(profilePath, JSON.stringify(profile));
      inspector.disconnect();
    }
    if (dumpPath) writeFileSync(dumpPath, dump.join('\n') + '\n');
  }
}

await main();
