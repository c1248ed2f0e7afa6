/**
 * The tokenizer tables are loaded on demand, never inlined (issue 29): the core entry bundled
 * into ONE file (esbuild, no code splitting) runs in a plain Node process from a folder of its
 * own. Without the `encodings/` folder next to it, the engine still ingests and answers (an
 * estimating tokenizer, reported as an `error` event naming the missing table); with the folder
 * copied next to it, the real table loads from there.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = join(import.meta.dirname, '../..');
let folder: string;

const APP = `
import { createChatEngine, createGptTokenizer } from './src/index.ts';

const errors = [];
const engine = createChatEngine();
engine.on('error', ({ where, error }) => errors.push({ where, code: error.code, message: error.message }));
await engine.ingest([{ id: 'refunds', title: 'Refunds', text: 'Refunds are issued within 14 days of the request. Gift cards are never refunded.' }]);
const reply = await engine.chat({ message: 'How long do refunds take?', mode: 'query' });
const table = await createGptTokenizer().then((tokenizer) => tokenizer.name, (error) => error.code);
console.log(JSON.stringify({ errors, text: reply.text, sources: reply.sources.length, table }));
`;

async function runApp(): Promise<{
  errors: { where: string; code: string; message: string }[];
  text: string;
  sources: number;
  table: string;
}> {
  const { stdout } = await run(process.execPath, [join(folder, 'app.mjs')], { cwd: folder });
  return JSON.parse(stdout);
}

describe('a single-file bundle of the core entry', () => {
  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'cortexis-tables-'));
    const app = await build({
      stdin: { contents: APP, resolveDir: root, loader: 'ts', sourcefile: 'app.ts' },
      absWorkingDir: root,
      bundle: true,
      write: false,
      platform: 'browser',
      format: 'esm',
      target: 'es2022',
      minify: true,
      logLevel: 'silent',
    });
    writeFileSync(join(folder, 'app.mjs'), app.outputFiles[0]!.contents);
  }, 60_000);

  afterAll(() => {
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it('answers without the tables next to it, reporting the estimate it falls back to', async () => {
    const result = await runApp();
    expect(result.table).toBe('config_error');
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toMatchObject({ where: 'tokenizer', code: 'config_error' });
    expect(result.errors[0]!.message).toContain('./encodings/cl100k_base.js');
    expect(result.sources).toBeGreaterThan(0);
    expect(result.text).toMatch(/14 days/);
  }, 60_000);

  it('loads the table on demand from the encodings folder copied next to it', async () => {
    mkdirSync(join(folder, 'encodings'));
    const table = await build({
      entryPoints: [join(root, 'src/adapters/tokenizer/encodings/cl100k_base.ts')],
      bundle: true,
      write: false,
      format: 'esm',
      target: 'es2022',
      logLevel: 'silent',
    });
    writeFileSync(join(folder, 'encodings/cl100k_base.js'), table.outputFiles[0]!.contents);
    const result = await runApp();
    expect(result.table).toBe('cl100k_base');
    expect(result.errors).toEqual([]);
    expect(result.text).toMatch(/14 days/);
  }, 60_000);
});
