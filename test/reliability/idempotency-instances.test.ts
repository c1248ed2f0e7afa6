/**
 * Idempotency keys hold across engines: two processes on one SQLite file (and on one
 * Postgres schema when CORTEXIS_TEST_POSTGRES_URL is set) receive the same `messageId` for
 * each of 20 sessions at the same time. The store lets one user message per key in and one
 * answer per message; the other request returns that answer. Each process's model names
 * the process, so a second answer would show.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresStores } from '../../src/adapters/postgres/index.js';
import { createSqliteStores } from '../../src/adapters/sqlite/index.js';
import type { SessionRecord } from '../../src/ports/chat-records.js';
import type { SessionStore } from '../../src/ports/session-store.js';
import { uniqueName } from '../../src/testing/shared.js';
import { ulid } from '../../src/util/ids.js';

const INSTANCE = new URL('../fixtures/idempotency-instance.ts', import.meta.url).pathname;
const SESSIONS = 20;
const QUESTION = 'How long do refunds take?';
const postgresUrl = process.env['CORTEXIS_TEST_POSTGRES_URL'];

interface Turn {
  readonly sessionId: string;
  readonly userId: string;
  readonly messageId: string;
  readonly message: string;
}
type Result = { sessionId: string; text: string } | { sessionId: string; error: string };

/** A running instance: send it the turns, then read its results. */
interface Instance {
  run(turns: readonly Turn[]): void;
  readonly results: Promise<Result[]>;
}

const children: ChildProcess[] = [];

/** Starts an instance and resolves once it can answer. */
function start(name: string, env: Record<string, string>): Promise<Instance> {
  const child = spawn(process.execPath, ['--import', 'tsx', INSTANCE], {
    env: { ...process.env, INSTANCE: name, DELAY_MS: '20', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<never>((_, reject) =>
    child.on('exit', (code) => reject(new Error(`instance ${name} exited ${code}: ${stderr}`))),
  );
  exited.catch(() => undefined);
  const lines = createInterface({ input: child.stdout! });
  let ready!: () => void;
  let done!: (results: Result[]) => void;
  const isReady = new Promise<void>((resolve) => (ready = resolve));
  const results = new Promise<Result[]>((resolve) => (done = resolve));
  lines.on('line', (line) => {
    if (!line.startsWith('{')) return;
    const parsed = JSON.parse(line) as { ready?: boolean; results?: Result[] };
    if (parsed.ready) ready();
    if (parsed.results) done(parsed.results);
  });
  const instance: Instance = {
    run: (turns) => child.stdin!.write(`${JSON.stringify({ turns })}\n`),
    results: Promise.race([results, exited]),
  };
  return Promise.race([isReady.then(() => instance), exited]);
}

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
});

async function createSessions(store: SessionStore): Promise<Turn[]> {
  const turns: Turn[] = [];
  for (let index = 0; index < SESSIONS; index++) {
    const now = new Date().toISOString();
    const session: SessionRecord = {
      id: ulid(),
      userId: `user-${index}`,
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
    await store.createSession(session);
    turns.push({
      sessionId: session.id,
      userId: session.userId,
      messageId: `key-${index}`,
      message: QUESTION,
    });
  }
  return turns;
}

/** Both instances get every turn at once; each session then holds one question and one answer. */
async function race(
  store: SessionStore,
  turns: readonly Turn[],
  env: Record<string, string>,
): Promise<void> {
  const [a, b] = await Promise.all([start('A', env), start('B', env)]);
  a!.run(turns);
  b!.run(turns);
  const [fromA, fromB] = await Promise.all([a!.results, b!.results]);

  const problems: string[] = [];
  for (const turn of turns) {
    const messages = await store.listMessages(turn.sessionId);
    const questions = messages.filter((message) => message.role === 'user');
    const answers = messages.filter((message) => message.role === 'assistant');
    const replies = [fromA, fromB].map((results) =>
      results!.find((result) => result.sessionId === turn.sessionId),
    );
    const texts = replies.map((reply) => (reply && 'text' in reply ? reply.text : reply?.error));
    const expected = answers.length === 1 ? answers[0]!.content : undefined;
    if (
      questions.length !== 1 ||
      questions[0]!.requestId !== turn.messageId ||
      answers.length !== 1 ||
      answers[0]!.replyTo !== questions[0]!.id ||
      texts[0] !== expected ||
      texts[1] !== expected
    ) {
      problems.push(
        `${turn.messageId}: ${questions.length} questions, ${answers.length} answers, clients got ${JSON.stringify(texts)}`,
      );
    }
  }
  expect(problems).toEqual([]);
}

describe('idempotency keys across two processes', () => {
  it('on one SQLite file: one question and one answer per key, both clients get it', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'cortexis-idempotency-'));
    const path = join(directory, 'store.db');
    const stores = await createSqliteStores({ path });
    try {
      const turns = await createSessions(stores.sessionStore);
      await race(stores.sessionStore, turns, { STORE: 'sqlite', SQLITE_PATH: path });
    } finally {
      stores.close();
      rmSync(directory, { recursive: true, force: true });
    }
  }, 120_000);

  it.skipIf(!postgresUrl)(
    postgresUrl
      ? 'on one Postgres schema: one question and one answer per key, both clients get it'
      : 'on one Postgres schema [skipped: CORTEXIS_TEST_POSTGRES_URL is not set]',
    async () => {
      const schema = uniqueName('cortexis_idempotency');
      const stores = await createPostgresStores({ connectionString: postgresUrl!, schema });
      try {
        const turns = await createSessions(stores.sessionStore);
        await race(stores.sessionStore, turns, {
          STORE: 'postgres',
          POSTGRES_URL: postgresUrl!,
          SCHEMA: schema,
        });
      } finally {
        await stores.close();
        const client = new pg.Client({ connectionString: postgresUrl });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await client.end();
      }
    },
    120_000,
  );
});
