import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createLanceDbVectorStore } from 'cortexis/lancedb';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { VectorMatch } from '../../../src/ports/vector-store.js';
import type { WorkerCommand } from './fixtures/store-worker.js';

// Two processes open the same LanceDB directory (racing to create the table), each with its
// own connection held open, and must see each other's writes at once and lose none of them.
const WORKER = join(import.meta.dirname, 'fixtures/store-worker.ts');
const directory = mkdtempSync(join(tmpdir(), 'cortexis-lancedb-processes-'));
const TABLE = 'vectors';
const workers: Worker[] = [];
let first: Worker;
let second: Worker;

beforeAll(async () => {
  // Both start together on a fresh directory: they race to create the table.
  [first, second] = await Promise.all([startWorker(), startWorker()]);
});

afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.send({ op: 'close' }).catch(() => undefined)));
  for (const worker of workers) await worker.stop();
  rmSync(directory, { recursive: true, force: true });
});

/** A store in a child process, driven one JSON line at a time. */
interface Worker {
  send<Result>(command: WorkerCommand): Promise<Result>;
  stop(): Promise<void>;
}

function startWorker(): Promise<Worker> {
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    ['--import', 'tsx', WORKER, directory, TABLE],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const pending: Array<(line: string) => void> = [];
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  createInterface({ input: child.stdout }).on('line', (line) => pending.shift()?.(line));
  const next = (): Promise<Record<string, unknown>> =>
    new Promise((resolve, reject) => {
      pending.push((line) => resolve(JSON.parse(line) as Record<string, unknown>));
      void exited.then(() => reject(new Error(`worker exited: ${stderr}`)));
    });
  const worker: Worker = {
    async send<Result>(command: WorkerCommand): Promise<Result> {
      const reply = next();
      child.stdin.write(`${JSON.stringify(command)}\n`);
      const { result, error } = await reply;
      if (error) throw new Error(`worker failed: ${JSON.stringify(error)}`);
      return result as Result;
    },
    async stop() {
      if (child.exitCode !== null) return;
      child.kill();
      await exited;
    },
  };
  workers.push(worker);
  return next().then(() => worker);
}

it('shows two processes each other’s upserts and deletes at once', async () => {
  const namespace = "it's shared";
  await first.send({
    op: 'upsert',
    namespace,
    records: [
      { id: 'a', vector: [1, 0, 0], metadata: { by: 'first' } },
      { id: 'b', vector: [0, 1, 0], metadata: { by: 'first' } },
      { id: "c'", vector: [0, 0, 1], metadata: { by: 'first' } },
    ],
  });
  expect(await second.send({ op: 'count', namespace })).toBe(3);
  await second.send({
    op: 'upsert',
    namespace,
    records: [{ id: 'a', vector: [1, 0, 0], metadata: { by: 'second' } }],
  });
  const [best] = await first.send<VectorMatch[]>({
    op: 'query',
    namespace,
    vector: [1, 0, 0],
    k: 1,
  });
  expect(best).toMatchObject({ id: 'a', metadata: { by: 'second' } });
  expect(await second.send({ op: 'delete', namespace, target: { ids: ['b'] } })).toBe(1);
  expect(await first.send({ op: 'count', namespace })).toBe(2);
  expect(await first.send({ op: 'delete', namespace, target: { filter: { by: 'first' } } })).toBe(
    1,
  );
  const left = await second.send<VectorMatch[]>({
    op: 'query',
    namespace,
    vector: [0, 0, 1],
    k: 10,
  });
  expect(left.map((match) => match.id)).toEqual(['a']);
});

it('lands every upsert and delete of two processes writing at the same time', async () => {
  const rounds = 12;
  const namespace = 'burst';
  await Promise.all([
    first.send({ op: 'burst', namespace, who: 'first', rounds }),
    second.send({ op: 'burst', namespace, who: 'second', rounds }),
  ]);
  const expected = Array.from({ length: rounds }, (_, round) => [
    `first-${round}`,
    `second-${round}`,
    `shared-${round}`,
  ]).flat();
  // A third connection, in this process, sees every record once and no temporary one.
  const store = await createLanceDbVectorStore({ uri: directory, table: TABLE, dimensions: 3 });
  try {
    expect(await store.count(namespace)).toBe(expected.length);
    const matches = await store.query(namespace, [1, 0, 0], { k: 1000 });
    expect(matches.map((match) => match.id).sort()).toEqual([...expected].sort());
    for (const match of matches.filter((found) => found.id.startsWith('shared-'))) {
      expect(['first', 'second']).toContain(match.metadata['who']);
    }
  } finally {
    await store.close();
  }
});
