/**
 * The sizes `docs/runtimes.md` states are measured here, on every CI run, so the page cannot
 * drift (issue 29): each row of its size table is rebuilt with esbuild (minified, browser
 * platform, every dependency bundled) and must be within 5 % of what the page says; the page
 * and the README state no other size. And the budget: the core entry as ONE file, without code
 * splitting, stays ≤ 150 KB gzip — the tokenizer tables and hnswlib-wasm are loaded on demand
 * or injected, never inlined.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');
const KB = 1024;
const BUDGET_GZIP = 150 * KB;

interface Size {
  readonly bytes: number;
  readonly gzip: number;
  readonly inputs: readonly string[];
}

/** One minified browser file (no code splitting) of `contents`, resolved from the repository. */
async function bundle(contents: string): Promise<Size> {
  const result = await build({
    stdin: { contents, resolveDir: root, loader: 'ts', sourcefile: 'entry.ts' },
    absWorkingDir: root,
    bundle: true,
    write: false,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    minify: true,
    metafile: true,
    logLevel: 'silent',
  });
  const bytes = result.outputFiles[0]!.contents;
  return {
    bytes: bytes.length,
    gzip: gzipSync(bytes).length,
    inputs: Object.keys(result.metafile.inputs),
  };
}

/** The rows of the size table: label → [size, gzipped], as the page writes them. */
const MEASURED: Record<string, () => Promise<Size>> = {
  '`cortexis`, one file (no code splitting)': () => bundle(`export * from './src/index.ts';`),
  '`cortexis` and `cortexis/http`, one file': () =>
    bundle(
      `import * as core from './src/index.ts'; import * as http from './src/http/index.ts'; export { core, http };`,
    ),
  'cl100k_base table (default; `dist/encodings/`, loaded on first use)': () =>
    bundle(`export { default } from './src/adapters/tokenizer/encodings/cl100k_base.ts';`),
  'o200k_base table (`dist/encodings/`, loaded on first use)': () =>
    bundle(`export { default } from './src/adapters/tokenizer/encodings/o200k_base.ts';`),
  'hnswlib-wasm (loaded from `node_modules`, or injected: `loadHnswlib`)': () =>
    bundle(`export * from 'hnswlib-wasm/dist/hnswlib.js';`),
};

/** `357 KB` → bytes; `2.1 MB` → bytes. */
function parseSize(text: string): number {
  const match = /^([\d.]+) (KB|MB)$/.exec(text.trim());
  if (!match) throw new Error(`not a size: '${text}'`);
  return Number(match[1]) * (match[2] === 'MB' ? KB * KB : KB);
}

/** The size table between the markers of docs/runtimes.md. */
function documentedSizes(page: string): Map<string, [number, number]> {
  const start = page.indexOf('<!-- sizes:start -->');
  const end = page.indexOf('<!-- sizes:end -->');
  expect(start, 'docs/runtimes.md has the size table markers').toBeGreaterThan(0);
  const rows = new Map<string, [number, number]>();
  for (const line of page.slice(start, end).split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    if (cells.length !== 5 || !/^[\d.]+ (KB|MB)$/.test(cells[2]!)) continue;
    rows.set(cells[1]!, [parseSize(cells[2]!), parseSize(cells[3]!)]);
  }
  return rows;
}

/** A size as the page writes it: KB below 1 MB (whole numbers), else MB with two decimals. */
function formatSize(bytes: number): string {
  return bytes < KB * KB ? `${Math.round(bytes / KB)} KB` : `${(bytes / KB / KB).toFixed(2)} MB`;
}

const SIZE_FIGURE = /\b\d+(?:\.\d+)? ?(?:KB|MB|kB|KiB|MiB)\b/g;

describe('bundle sizes', () => {
  const measured = new Map<string, Size>();
  const page = readFileSync(join(root, 'docs/runtimes.md'), 'utf8');

  beforeAll(async () => {
    for (const [label, measure] of Object.entries(MEASURED)) measured.set(label, await measure());
  }, 120_000);

  it('the core entry as one file stays within 150 KB gzip: no table or hnswlib-wasm inlined', () => {
    const core = measured.get('`cortexis`, one file (no code splitting)')!;
    expect(core.gzip).toBeLessThanOrEqual(BUDGET_GZIP);
    expect(core.inputs.some((input) => input.includes('tokenizer/encodings/'))).toBe(false);
    expect(core.inputs.some((input) => input.includes('hnswlib-wasm'))).toBe(false);
    // So the check above can fail: the table module is what used to be inlined.
    expect(
      measured.get('o200k_base table (`dist/encodings/`, loaded on first use)')!.gzip,
    ).toBeGreaterThan(BUDGET_GZIP);
  });

  it('docs/runtimes.md states every measured size, each within 5 %', () => {
    const documented = documentedSizes(page);
    const report = [...measured].map(
      ([label, size]) => `| ${label} | ${formatSize(size.bytes)} | ${formatSize(size.gzip)} |`,
    );
    expect([...documented.keys()].sort(), `measured now:\n${report.join('\n')}`).toEqual(
      Object.keys(MEASURED).sort(),
    );
    for (const [label, size] of measured) {
      const [bytes, gzip] = documented.get(label)!;
      const close = (stated: number, actual: number) => Math.abs(stated - actual) <= actual * 0.05;
      expect(
        close(bytes, size.bytes) && close(gzip, size.gzip),
        `${label}; measured now:\n${report.join('\n')}`,
      ).toBe(true);
    }
  });

  it('states no other size in docs/runtimes.md (but the budget) or the README', () => {
    const start = page.indexOf('<!-- sizes:start -->');
    const end = page.indexOf('<!-- sizes:end -->');
    const outside = page.slice(0, start) + page.slice(end);
    // The budget is the one figure stated outside the table (a target, checked above).
    expect((outside.match(SIZE_FIGURE) ?? []).filter((figure) => figure !== '150 KB')).toEqual([]);
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    expect(readme.match(SIZE_FIGURE) ?? []).toEqual([]);
  });

  it('parses and formats sizes as the page writes them', () => {
    expect(parseSize('357 KB')).toBe(357 * KB);
    expect(parseSize('2.05 MB')).toBe(2.05 * KB * KB);
    expect(() => parseSize('12 GB')).toThrow(/not a size/);
    expect(formatSize(365_456)).toBe('357 KB');
    expect(formatSize(2_131_049)).toBe('2.03 MB');
  });
});
