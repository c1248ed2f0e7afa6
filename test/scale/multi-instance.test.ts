/**
 * Two engine processes behind HTTP, sharing PostgreSQL (sessions, learning, graph, keyword
 * index), Redis (rate limits) and one LanceDB directory (vectors). Only instance A ingests;
 * B answers from the shared stores. A conversation moves between them with its whole
 * history, limits count across both, and deleting on one is seen by the other.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../../src/testing/shared.js';

const postgresUrl = process.env['CORTEXIS_TEST_POSTGRES_URL'];
const redisUrl = process.env['CORTEXIS_TEST_REDIS_URL'];
const reason = !postgresUrl
  ? 'CORTEXIS_TEST_POSTGRES_URL is not set'
  : !redisUrl
    ? 'CORTEXIS_TEST_REDIS_URL is not set'
    : undefined;
if (reason) console.log(`[skipped] multi-instance test: ${reason}`);

const SERVER = new URL('../fixtures/instance-server.ts', import.meta.url).pathname;
const LIMIT = 8;
const schema = uniqueName('cortexis_scale');
const redisPrefix = `${uniqueName('cortexis_scale')}:rl:`;
const lanceDir = mkdtempSync(join(tmpdir(), 'cortexis-lance-'));
const children: ChildProcess[] = [];

/** Starts an instance and resolves with its base URL once it listens. */
async function start(instance: string, ingest: boolean): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', SERVER], {
    env: {
      ...process.env,
      INSTANCE: instance,
      POSTGRES_URL: postgresUrl,
      SCHEMA: schema,
      REDIS_URL: redisUrl,
      REDIS_PREFIX: redisPrefix,
      LANCE_DIR: lanceDir,
      INGEST: ingest ? '1' : '0',
      LIMIT: String(LIMIT),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lines = createInterface({ input: child.stdout! });
  return new Promise((resolve, reject) => {
    lines.on('line', (line) => {
      if (line.startsWith('{')) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.on('exit', (code) => reject(new Error(`instance ${instance} exited ${code}: ${stderr}`)));
  });
}

let a = '';
let b = '';

const call = (base: string, path: string, user: string, body?: unknown) =>
  fetch(`${base}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      'x-user': user,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

interface Reply {
  messageId: string;
  text: string;
  sources: { documentId: string; vectorScore: number | null; keywordScore: number | null }[];
}

async function ask(base: string, user: string, id: string, content: string): Promise<Reply> {
  const response = await call(base, `/conversations/${id}/messages`, user, { content });
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as Reply;
}

async function open(base: string, user: string): Promise<string> {
  const response = await call(base, '/conversations', user, {});
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

beforeAll(async () => {
  if (reason) return;
  a = await start('A', true); // ingests the handbook, then listens
  b = await start('B', false);
}, 120_000);

afterAll(async () => {
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null) return resolve();
          child.removeAllListeners('exit');
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
          setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
        }),
    ),
  );
  rmSync(lanceDir, { recursive: true, force: true });
  if (reason) return;
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
  const redis = createClient({ url: redisUrl! });
  await redis.connect();
  const keys = await redis.keys(`${redisPrefix}*`);
  if (keys.length > 0) await redis.del(keys);
  await redis.close();
}, 60_000);

describe.skipIf(reason !== undefined)('two instances sharing Postgres, Redis and LanceDB', () => {
  it('continue one conversation with its full history; B answers from what A ingested', async () => {
    const id = await open(a, 'u1');
    const first = await ask(a, 'u1', id, 'What is the refund policy?');
    expect(first.text).toMatch(/^Instance A answers after: nothing\./);

    const second = await ask(b, 'u1', id, 'How long does international shipping take?');
    expect(second.text).toMatch(/^Instance B answers after: What is the refund policy\?\./);
    // B never ingested: its sources come from the shared vector store and keyword index.
    expect(second.sources[0]?.documentId).toBe('shipping');
    expect(second.sources.some((source) => source.vectorScore !== null)).toBe(true);
    expect(second.sources.some((source) => source.keywordScore !== null)).toBe(true);

    const third = await ask(a, 'u1', id, 'How long must passwords be?');
    expect(third.text).toMatch(
      /^Instance A answers after: What is the refund policy\? \| How long does international shipping take\?\./,
    );

    for (const base of [a, b]) {
      const history = (await (await call(base, `/conversations/${id}`, 'u1')).json()) as {
        total: number;
        messages: { role: string; content: string }[];
      };
      expect(history.total).toBe(6);
      expect(history.messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual([
        'What is the refund policy?',
        'How long does international shipping take?',
        'How long must passwords be?',
      ]);
    }
    // Another user guessing the id gets 404 from either instance.
    for (const base of [a, b]) {
      expect((await call(base, `/conversations/${id}`, 'mallory')).status).toBe(404);
    }
  });

  it('share the knowledge graph A built while ingesting', async () => {
    const client = new pg.Client({ connectionString: postgresUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ count: string }>(
        `SELECT count(*) AS count FROM "${schema}".edges`,
      );
      expect(Number(rows[0]!.count)).toBeGreaterThan(0);
    } finally {
      await client.end();
    }
  });

  it('count rate limits across both instances', async () => {
    const id = await open(a, 'u2');
    for (let turn = 0; turn < LIMIT; turn++) {
      await ask(turn % 2 === 0 ? a : b, 'u2', id, `Question ${turn} about shipping costs?`);
    }
    for (const base of [a, b]) {
      const refused = await call(base, `/conversations/${id}/messages`, 'u2', {
        content: 'One more about shipping?',
      });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    const history = (await (await call(b, `/conversations/${id}`, 'u2')).json()) as {
      total: number;
    };
    expect(history.total).toBe(LIMIT * 2);
  });

  it('see feedback and deletions made on the other instance', async () => {
    const id = await open(a, 'u3');
    const reply = await ask(a, 'u3', id, 'What does express shipping cost?');
    const rated = await call(b, `/messages/${reply.messageId}/feedback`, 'u3', { rating: 'good' });
    expect(rated.status).toBe(201);
    const history = (await (await call(a, `/conversations/${id}`, 'u3')).json()) as {
      messages: { id: string }[];
    };
    expect(history.messages.map((message) => message.id)).toContain(reply.messageId);

    const client = new pg.Client({ connectionString: postgresUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ rating: string }>(
        `SELECT rating FROM "${schema}".feedback WHERE message_id = $1`,
        [reply.messageId],
      );
      expect(rows).toEqual([{ rating: 'good' }]);
    } finally {
      await client.end();
    }

    const removed = await fetch(`${b}/conversations/${id}`, {
      method: 'DELETE',
      headers: { 'x-user': 'u3' },
    });
    expect(removed.status).toBe(204);
    expect((await call(a, `/conversations/${id}`, 'u3')).status).toBe(404);
  });
});
