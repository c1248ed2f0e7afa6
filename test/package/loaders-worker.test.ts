/**
 * The loaders' parse worker from the build: the repository's tsup configuration builds
 * `cortexis/loaders` (ES module and CommonJS) and the worker into a temporary folder, and a
 * plain Node process loads a folder with each build. The worker must start from
 * `dist/loaders-worker.js` (next to the code) and answer every file; a worker that cannot start
 * would fall back to the calling thread silently, so the script counts the workers started and
 * the errors they raise.
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

/** Loads `docs/` with the build and prints what happened as JSON. */
const script = (load: string) => `
const { Worker } = require('node:worker_threads');
const workers = [];
const errors = [];
process.on('worker', (worker) => {
  workers.push(worker.threadId);
  worker.on('error', (error) => errors.push(String(error)));
});
${load}.then(async ({ loadDocuments }) => {
  const result = await loadDocuments(['docs'], { limits: { maxFrontMatterKeys: 1 } });
  console.log(JSON.stringify({
    workers: workers.length,
    errors,
    documents: result.documents.map((doc) => doc.id),
    skipped: result.skipped.map((file) => file.code),
  }));
});
`;

async function loadWith(file: string): Promise<unknown> {
  const { stdout } = await run(process.execPath, [file], { cwd: project });
  return JSON.parse(stdout) as unknown;
}

describe('the parse worker of the built cortexis/loaders', () => {
  beforeAll(async () => {
    project = mkdtempSync(join(tmpdir(), 'cortexis-loaders-worker-'));
    const target = join(project, 'node_modules', 'cortexis');
    const { build } = await import('tsup');
    const configs = (Array.isArray(tsupConfig) ? tsupConfig : [tsupConfig]) as Options[];
    const [library] = configs;
    const worker = configs.find((config) => config.entry === workerEntries);
    expect(worker).toBeDefined();
    for (const config of [
      { ...library, entry: { loaders: entries.loaders } },
      { ...worker, entry: workerEntries },
    ]) {
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
        exports: { './loaders': { import: './dist/loaders.js', require: './dist/loaders.cjs' } },
      }),
    );
    for (const name of Object.keys(readPackageJson().dependencies ?? {})) {
      const destination = join(project, 'node_modules', name);
      mkdirSync(join(destination, '..'), { recursive: true });
      symlinkSync(join(root, 'node_modules', name), destination, 'dir');
    }
    mkdirSync(join(project, 'docs'));
    writeFileSync(join(project, 'docs', 'a.md'), '# A\n\nText.');
    writeFileSync(join(project, 'docs', 'b.html'), '<h1>B</h1><p>Text.</p>');
    writeFileSync(join(project, 'docs', 'keys.md'), '---\na: 1\nb: 2\n---\n\nText.');
    writeFileSync(join(project, 'esm.cjs'), script("import('cortexis/loaders')"));
    writeFileSync(join(project, 'cjs.cjs'), script("Promise.resolve(require('cortexis/loaders'))"));
  }, 240_000);

  afterAll(() => {
    if (project) rmSync(project, { recursive: true, force: true });
  });

  const expected = {
    workers: 1,
    errors: [],
    documents: ['a.md', 'b.html'],
    // The limit's error crossed the worker with its code.
    skipped: ['too-large'],
  };

  it('starts from dist/loaders-worker.js in the ES module build', async () => {
    expect(await loadWith('esm.cjs')).toEqual(expected);
  });

  it('starts from dist/loaders-worker.js in the CommonJS build', async () => {
    expect(await loadWith('cjs.cjs')).toEqual(expected);
  });
});
