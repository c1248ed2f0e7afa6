import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect, inject, it } from 'vitest';
import { createSqliteStores } from '../../../src/adapters/sqlite/index.js';
import type { MessageRecord } from '../../../src/ports/chat-records.js';

// Writers are killed with SIGKILL at random moments (during start-up, migrations, ingestion,
// createSession, turn writes); afterwards every file must be intact and every turn whole.
const LANES = 4;
const KILLS_PER_LANE = 13; // 52 kills in all
// The writer (`test/fixtures/sqlite-turn-writer.ts`), bundled once for the run (test/setup).
const WRITER = inject('sqliteTurnWriterScript');
const directory = mkdtempSync(join(tmpdir(), 'cortexis-crash-'));

afterAll(() => rmSync(directory, { recursive: true, force: true }));

/**
 * Starts a writer and kills it at a random point counted in its own events: one kill in five
 * lands during start-up (open, migrations, ingestion), the others after a random number (1–3)
 * of stored answers, a random 0–250 ms into the next turn. Resolves with the answers the writer
 * reported stored before it was killed; however loaded the machine, the count is the same.
 */
function runAndKill(file: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WRITER, file], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const kill = (): void => void child.kill('SIGKILL');
    const early = Math.random() < 0.2;
    const target = 1 + Math.floor(Math.random() * 3);
    let answers = 0;
    let pending = '';
    let timer = early ? setTimeout(kill, Math.random() * 600) : undefined;
    child.stdout.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) {
        if (line === 'ready' && early) {
          // Start-up finished before the early kill: kill now, inside the first turn.
          clearTimeout(timer);
          kill();
        }
        if (line === 'answer' && !early && ++answers === target) {
          timer = setTimeout(kill, Math.random() * 250);
        }
      }
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (signal === 'SIGKILL') resolve(early ? 0 : target);
      else reject(new Error(`writer exited on its own (code ${code}): ${stderr}`));
    });
  });
}

const CITATION = /\[source: (S\d+)\]/g;

/** Problems with the turns of one session; [] when every turn is whole. */
function checkSession(messages: readonly MessageRecord[]): string[] {
  const problems: string[] = [];
  messages.forEach((message, index) => {
    if (message.role !== 'assistant') return;
    const previous = messages[index - 1];
    if (previous?.role !== 'user') problems.push(`${message.id}: answer without its question`);
    if (message.status !== 'complete') return;
    if (message.timings === null || message.confidence === null) {
      problems.push(`${message.id}: complete answer without timings or confidence`);
    }
    if (!message.guard && message.sources.length === 0) {
      problems.push(`${message.id}: complete answer without its sources`);
    }
    const labels = new Set(message.sources.map((source) => source.id));
    for (const [, label] of message.content.matchAll(CITATION)) {
      if (!labels.has(label!)) problems.push(`${message.id}: cites ${label} it has not stored`);
    }
    message.sources.forEach((source, position) => {
      if (source.id !== `S${position + 1}`)
        problems.push(`${message.id}: source ${position} missing`);
    });
  });
  return problems;
}

it(`keeps every turn whole when writers are killed ${LANES * KILLS_PER_LANE} times`, async () => {
  const files = Array.from({ length: LANES }, (_, lane) => join(directory, `lane-${lane}.db`));
  let reported = 0;
  await Promise.all(
    files.map(async (file) => {
      for (let kill = 0; kill < KILLS_PER_LANE; kill++) reported += await runAndKill(file);
    }),
  );

  let answers = 0;
  for (const file of files) {
    const raw = new Database(file);
    expect(raw.pragma('integrity_check', { simple: true }), file).toBe('ok');
    expect(raw.pragma('foreign_key_check'), file).toEqual([]);
    raw.close();

    const stores = await createSqliteStores({ path: file });
    try {
      const { sessions } = await stores.sessionStore.listSessions({ userId: 'crash', limit: 1000 });
      for (const session of sessions) {
        const messages = await stores.sessionStore.listMessages(session.id);
        expect(checkSession(messages), `session ${session.id} in ${file}`).toEqual([]);
        // The totals changed in the same transactions as the messages.
        expect(session.stats.messageCount).toBe(messages.length);
        const searchMs = messages.reduce((sum, item) => sum + (item.timings?.retrievalMs ?? 0), 0);
        expect(session.stats.totalSearchMs).toBeCloseTo(searchMs, 6);
        answers += messages.filter((item) => item.role === 'assistant').length;
      }
    } finally {
      stores.close();
    }
  }
  // Every answer a writer reported stored survived its kill (more may have: one stored before
  // its report was read). Kills wait for events, so this holds under any load; the timeout
  // only guards against a writer that hangs (52 start-ups of a few seconds each when loaded).
  expect(reported).toBeGreaterThan(0);
  expect(answers).toBeGreaterThanOrEqual(reported);
}, 900_000);
