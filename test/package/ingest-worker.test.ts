/**
 * The ingest workers from the build: the repository's tsup configuration builds the core entry
 * (ES module and CommonJS), the worker entries and the tokenizer tables into a temporary
 * folder, and a plain Node process ingests with each build. `engine.ingest` must load
 * `dist/ingest-pool.js` and start its workers from `dist/ingest-worker.js` (next to the code);
 * a pool that cannot load would fall back to the calling thread silently, so the script counts
 * the workers started and the errors they raise, and compares the answers with `concurrency: 1`.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Options } from 'tsup';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import tsupConfig, { entries, workerEntries } from '../../tsup.config.js';
import { readPackageJson, root } from './pack.js';

const run = promisify(execFile);
let project: string;

/** Ingests 700 documents with 2 threads and with 1 and prints what happened as JSON. */
const script = (load: string) => `
const workers = [];
const errors = [];
process.on('worker', (worker) => {
  workers.push(worker.threadId);
  worker.on('error', (error) => errors.push(String(error)));
});
const words = 'refund shipping invoice bicycle battery helmet station dock unlock card'.split(' ');
const docs = Array.from({ length: 700 }, (_, i) => ({
  id: 'd' + i,
  text: Array.from({ length: 30 + (i % 50) }, (_, w) => words[(i * 7 + w * 3) % words.length]).join(' ') + ' n' + i + '.',
}));
${load}.then(async ({ createChatEngine }) => {
  const answers = async (concurrency) => {
    const engine = createChatEngine();
    const result = await engine.ingest(docs, { concurrency });
    const hits = await engine.search('battery helmet card', { k: 5 });
    return { chunks: result.chunks, hits: hits.map((hit) => [hit.id, hit.score]) };
  };
  const parallel = await answers(2);
  const inline = await answers(1);
  console.log(JSON.stringify({ workers: workers.length, errors, same: JSON.stringify(parallel) === JSON.stringify(inline), chunks: parallel.chunks }));
});
`;

async function ingestWith(file: string): Promise<unknown> {
  const { stdout } = await run(process.execPath, [file], { cwd: project });
  return JSON.parse(stdout) as unknown;
}

describe('the ingest workers of the built cortexis', () => {
  beforeAll(async () => {
    project = mkdtempSync(join(tmpdir(), 'cortexis-ingest-worker-'));
    const target = join(project, 'node_modules', 'cortexis');
    const { build } = await import('tsup');
    const configs = (Array.isArray(tsupConfig) ? tsupConfig : [tsupConfig]) as Options[];
    const [library] = configs;
    const worker = configs.find((config) => config.entry === workerEntries);
    const tables = configs.find(
      (config) =>
        typeof config.entry === 'object' &&
        config.entry !== null &&
        'encodings/cl100k_base' in config.entry,
    );
    expect(worker).toBeDefined();
    expect(tables).toBeDefined();
    for (const config of [{ ...library, entry: { index: entries.index } }, worker!, tables!]) {
      await build({
        ...config,
        config: false,
        silent: true,
        dts: false,
        sourcemap: false,
        clean: false,
        outDir: join(target, 'dist'),
      });
    }
    writeFileSync(
      join(target, 'package.json'),
      JSON.stringify({
        name: 'cortexis',
        type: 'module',
        exports: { '.': { import: './dist/index.js', require: './dist/index.cjs' } },
      }),
    );
    for (const name of Object.keys(readPackageJson().dependencies ?? {})) {
      const destination = join(project, 'node_modules', name);
      mkdirSync(join(destination, '..'), { recursive: true });
      symlinkSync(join(root, 'node_modules', name), destination, 'dir');
    }
    writeFileSync(join(project, 'esm.cjs'), script("import('cortexis')"));
    writeFileSync(join(project, 'cjs.cjs'), script("Promise.resolve(require('cortexis'))"));
  }, 240_000);

  afterAll(() => {
    if (project) rmSync(project, { recursive: true, force: true });
  });

  const expected = { workers: 2, errors: [], same: true, chunks: 700 };

  it('starts from dist/ingest-worker.js in the ES module build', async () => {
    expect(await ingestWith('esm.cjs')).toEqual(expected);
  }, 60_000);

  it('starts from dist/ingest-worker.js in the CommonJS build', async () => {
    expect(await ingestWith('cjs.cjs')).toEqual(expected);
  }, 60_000);
});
