/**
 * `npm run bench`: ingestion time, turn latency, cold import time and core entry size.
 * Uses ../shared/data/scifact when present, generated text otherwise. Prints a markdown
 * table for docs/benchmarks.md.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { createChatEngine, type IngestDocument } from '../src/index.js';
import { hasSciFact, loadCorpus, loadQueries, sciFactDir } from './scifact.js';

const root = join(import.meta.dirname, '..');

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

function median(values: readonly number[]): number {
  return quantile(
    [...values].sort((a, b) => a - b),
    0.5,
  );
}

/** Deterministic generated corpus for machines without the SciFact data. */
function generatedCorpus(): { docs: IngestDocument[]; queries: string[] } {
  const vocabulary = Array.from({ length: 4000 }, (_, i) => `term${i.toString(36)}`);
  let seed = 1;
  const next = () => (seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32;
  const sentence = () =>
    Array.from(
      { length: 8 + Math.floor(next() * 12) },
      () => vocabulary[Math.floor(next() ** 2 * vocabulary.length)],
    ).join(' ') + '.';
  const docs = Array.from({ length: 5183 }, (_, i) => ({
    id: `g${i}`,
    title: sentence(),
    text: Array.from({ length: 10 }, sentence).join(' '),
  }));
  const queries = Array.from({ length: 300 }, sentence);
  return { docs, queries };
}

async function main(): Promise<void> {
  const dir = sciFactDir();
  const sciFact = hasSciFact(dir);
  const { docs, queries } = sciFact
    ? {
        docs: loadCorpus(dir).map((doc) => ({ id: doc.id, title: doc.title, text: doc.text })),
        queries: loadQueries(dir).map((query) => query.text),
      }
    : generatedCorpus();
  console.log(`corpus: ${sciFact ? `SciFact (${dir})` : 'generated (SciFact data not found)'}`);
  console.log(
    `machine: ${cpus()[0]?.model ?? 'unknown'} × ${cpus().length}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
  );

  // Warm the tokenizer module so ingestion timing measures ingestion.
  await createChatEngine().ingest([{ id: 'warm', text: 'warm up' }]);

  const ingestTimes: number[] = [];
  let engine = createChatEngine();
  let chunks = 0;
  for (let run = 0; run < 3; run++) {
    engine = createChatEngine();
    const started = performance.now();
    const result = await engine.ingest(docs);
    ingestTimes.push(performance.now() - started);
    chunks = result.chunks;
  }

  for (const query of queries.slice(0, 50)) await engine.chat({ message: query, mode: 'query' });
  const turnTimes: number[] = [];
  let guards = 0;
  for (const query of queries) {
    const started = performance.now();
    const reply = await engine.chat({ message: query, mode: 'query' });
    turnTimes.push(performance.now() - started);
    if (reply.guard) guards++;
  }
  turnTimes.sort((a, b) => a - b);

  const session = await engine.createSession({ userId: 'bench' });
  const chatTimes: number[] = [];
  for (const query of queries) {
    const started = performance.now();
    await engine.chat({ sessionId: session.id, message: query });
    chatTimes.push(performance.now() - started);
  }
  chatTimes.sort((a, b) => a - b);

  // The same questions over twice the chunks: the corpus plus as many generated documents.
  const large = createChatEngine();
  await large.ingest(docs);
  const padding = generatedCorpus().docs.map((doc) => ({ ...doc, id: `pad-${doc.id}` }));
  const largeChunks = chunks + (await large.ingest(padding)).chunks;
  for (const query of queries.slice(0, 50)) await large.chat({ message: query, mode: 'query' });
  const largeTimes: number[] = [];
  for (const query of queries) {
    const started = performance.now();
    await large.chat({ message: query, mode: 'query' });
    largeTimes.push(performance.now() - started);
  }
  largeTimes.sort((a, b) => a - b);

  let importMs = 'n/a (run `npm run build` first)';
  const dist = join(root, 'dist/index.js');
  if (existsSync(dist)) {
    const times: number[] = [];
    for (let run = 0; run < 7; run++) {
      const out = execFileSync(process.execPath, [
        '--input-type=module',
        '-e',
        `const t = performance.now(); await import(${JSON.stringify(dist)}); console.log(performance.now() - t);`,
      ]);
      times.push(Number(out.toString().trim()));
    }
    importMs = `${median(times).toFixed(1)} ms`;
  }

  // Bundled as an app's bundler would (ESM, code splitting): the entry is what `import`
  // loads; the chunks behind dynamic imports (the provider factory used when an environment
  // variable names a provider) load only when used.
  const bundle = async (external: string[]) => {
    const result = await build({
      entryPoints: { index: join(root, 'src/index.ts') },
      bundle: true,
      minify: true,
      format: 'esm',
      platform: 'browser',
      splitting: true,
      outdir: join(root, 'bench/results/bundle'),
      write: false,
      external,
      logLevel: 'silent',
    });
    const js = result.outputFiles.filter((file) => file.path.endsWith('.js'));
    const entry = js.filter((file) => /[\\/]index\.js$/.test(file.path));
    const size = (files: typeof js) =>
      files.reduce(
        (sum, file) => ({
          min: sum.min + file.contents.length,
          gzip: sum.gzip + gzipSync(file.contents).length,
        }),
        { min: 0, gzip: 0 },
      );
    // Static imports of the entry are loaded with it: count every chunk but the lazy ones.
    const lazyChunks = new Set<string>();
    for (const file of js) {
      const text = new TextDecoder().decode(file.contents);
      for (const match of text.matchAll(/import\("\.\/([^"]+)"\)/g)) lazyChunks.add(match[1]!);
    }
    const eager = js.filter((file) => !lazyChunks.has(file.path.split(/[\\/]/).pop()!));
    return { ...size(eager), entry: size(entry), lazy: size(js).gzip - size(eager).gzip };
  };
  // Loaded lazily, on first use: the tokenizer data and the HNSW WebAssembly build.
  const lazy = ['gpt-tokenizer', 'hnswlib-wasm'];
  const own = await bundle([...lazy, 'zod', 'eventemitter3']);
  const withDeps = await bundle(lazy);
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

  const rows = [
    [
      'turn latency at 10k+ chunks, query mode',
      `${queries.length} queries over ${largeChunks} chunks`,
      `p50 ${quantile(largeTimes, 0.5).toFixed(2)} ms, p95 ${quantile(largeTimes, 0.95).toFixed(2)} ms`,
      'p50 ≤ 3 ms',
    ],
    [
      'ingest SciFact corpus',
      `${docs.length} docs → ${chunks} chunks`,
      `median of 3: ${median(ingestTimes).toFixed(0)} ms (${ingestTimes.map((t) => t.toFixed(0)).join(', ')})`,
      '≤ 2000 ms',
    ],
    [
      'turn latency, query mode',
      `${queries.length} queries, ${guards} guard answers`,
      `p50 ${quantile(turnTimes, 0.5).toFixed(2)} ms, p95 ${quantile(turnTimes, 0.95).toFixed(2)} ms, p99 ${quantile(turnTimes, 0.99).toFixed(2)} ms`,
      'p50 ≤ 3 ms',
    ],
    [
      'turn latency, chat mode (one session)',
      `${queries.length} turns, history + persistence`,
      `p50 ${quantile(chatTimes, 0.5).toFixed(2)} ms, p95 ${quantile(chatTimes, 0.95).toFixed(2)} ms`,
      '—',
    ],
    ["cold `import('cortexis')`", 'dist/index.js, median of 7 processes', importMs, '≤ 150 ms'],
    [
      'core entry min+gzip, own code',
      'esbuild bundle, deps external',
      `${kb(own.min)} min, ${kb(own.gzip)} gzip (+ ${kb(own.lazy)} gzip loaded on demand)`,
      '≤ 60 KB',
    ],
    [
      'core entry min+gzip, with deps',
      'zod, eventemitter3 bundled; lazily loaded tokenizer data and hnswlib-wasm excluded',
      `${kb(withDeps.min)} min, ${kb(withDeps.gzip)} gzip (+ ${kb(withDeps.lazy)} gzip loaded on demand)`,
      '≤ 60 KB',
    ],
  ];
  console.log('\n| measure | workload | result | target |\n| --- | --- | --- | --- |');
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);
}

await main();
