/**
 * `npm run bench:footprint`: what cortexis costs before it does anything (issue 17, item 3).
 *
 * - cold `import('cortexis')` in fresh processes against bare Node (`node -e 0`), alternating;
 * - the installed size: the build packed (`npm pack`), then `npm install <tarball>` into an empty
 *   project (needs the registry) and the size of its `node_modules`;
 * - the browser bundle of the core entry with its default tokenizer (esbuild, minified, gzip):
 *   what loads with `import('cortexis')`, and the cl100k_base table loaded on first use;
 * - the tokenizer: the time to load each encoding in a fresh process, and `count()` throughput
 *   against gpt-tokenizer (a dev dependency) on SciFact (`../shared/data/scifact`, or
 *   `--data DIR`) or on generated text, alternating.
 *
 * Options: `--rounds N` (fresh processes per variant, default 21), `--keep` (keep the temporary
 * directory). Prints markdown tables for docs/benchmarks.md.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { buildAndPack, root } from '../test/package/pack.js';
import { hasSciFact, loadCorpus, sciFactDir } from './scifact.js';

const argv = process.argv.slice(2);
const option = (name: string) => {
  const index = argv.indexOf(`--${name}`);
  return index >= 0 ? argv[index + 1] : undefined;
};
const rounds = Number(option('rounds') ?? 21);

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const ms = (value: number) => `${value.toFixed(1)} ms`;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;

/** Wall time of `node --input-type=module -e <code>` in `cwd`, in ms; its stdout too. */
function runNode(code: string, cwd: string): { wall: number; stdout: string } {
  const start = process.hrtime.bigint();
  const stdout = execFileSync(process.execPath, ['--input-type=module', '-e', code], {
    cwd,
    encoding: 'utf8',
  });
  return { wall: Number(process.hrtime.bigint() - start) / 1e6, stdout };
}

/** Disk usage of a directory in bytes (`du -sk`). */
function diskUsage(dir: string): number {
  return Number(execFileSync('du', ['-sk', dir], { encoding: 'utf8' }).split('\t')[0]) * 1024;
}

function largestPackages(modules: string): [string, number][] {
  // Each package on its own (a scope folder and its packages in one `du` would count once).
  const paths = readdirSync(modules)
    .filter((entry) => !entry.startsWith('.'))
    .flatMap((entry) =>
      entry.startsWith('@')
        ? readdirSync(join(modules, entry)).map((name) => `${entry}/${name}`)
        : [entry],
    );
  return paths
    .map((path) => [path, diskUsage(join(modules, path))] as [string, number])
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8);
}

/** The core entry bundled for browsers: what `import` loads, and each lazy chunk. */
async function browserBundle(): Promise<{
  eager: number;
  eagerMin: number;
  lazy: Map<string, number>;
}> {
  const result = await build({
    entryPoints: { index: join(root, 'src/index.ts') },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    splitting: true,
    outdir: join(tmpdir(), 'cortexis-footprint-bundle'),
    write: false,
    metafile: true,
    // The HNSW index's WebAssembly build is loaded on demand from its own package.
    external: ['hnswlib-wasm', 'hnswlib-wasm/*'],
    logLevel: 'silent',
  });
  const js = result.outputFiles.filter((file) => file.path.endsWith('.js'));
  const name = (path: string) => path.split(/[\\/]/).pop()!;
  // Chunks reached only through `import()` are loaded on demand.
  const eagerNames = new Set<string>();
  const pending = ['index.js'];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (eagerNames.has(file)) continue;
    eagerNames.add(file);
    const output =
      result.metafile.outputs[
        Object.keys(result.metafile.outputs).find((path) => name(path) === file)!
      ]!;
    for (const imported of output.imports) {
      if (imported.kind === 'import-statement' && !imported.external)
        pending.push(name(imported.path));
    }
  }
  let eager = 0;
  let eagerMin = 0;
  const lazy = new Map<string, number>();
  for (const file of js) {
    const gzip = gzipSync(file.contents, { level: 9 }).length;
    if (eagerNames.has(name(file.path))) {
      eager += gzip;
      eagerMin += file.contents.length;
    } else {
      const output =
        result.metafile.outputs[
          Object.keys(result.metafile.outputs).find((path) => name(path) === name(file.path))!
        ]!;
      const inputs = Object.keys(output.inputs);
      const table = inputs.find((input) => /encodings[\\/]\w+\.ts$/.test(input));
      lazy.set(table ? name(table).replace('.ts', ' table') : name(file.path), gzip);
    }
  }
  return { eager, eagerMin, lazy };
}

/** Deterministic text for machines without SciFact. */
function generatedTexts(): string[] {
  const words = ['the', 'protein', 'cell', 'increased', 'expression', 'of', 'in', 'mice', 'p53'];
  let seed = 7;
  const next = () => (seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32;
  return Array.from({ length: 5000 }, () =>
    Array.from({ length: 200 }, () => {
      const word = words[Math.floor(next() * words.length)]!;
      return next() < 0.1 ? `${word}${Math.floor(next() * 1000)}` : word;
    }).join(' '),
  );
}

async function main(): Promise<void> {
  console.log(
    `machine: ${cpus()[0]?.model ?? 'unknown'} × ${cpus().length}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
  );
  const work = mkdtempSync(join(tmpdir(), 'cortexis-footprint-'));
  try {
    // 1. Build, pack, install from the registry.
    const packed = await buildAndPack(work);
    const project = join(work, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), '{ "name": "footprint", "private": true }\n');
    execFileSync(
      'npm',
      ['install', packed.tarball, '--no-audit', '--no-fund', '--ignore-scripts', '--omit=dev'],
      {
        cwd: project,
        stdio: 'ignore',
        env: { ...process.env, npm_config_update_notifier: 'false' },
      },
    );
    const modules = join(project, 'node_modules');
    const installed = diskUsage(modules);
    const own = diskUsage(join(modules, 'cortexis'));

    // 2. Cold import, alternating with bare Node.
    // Wall time is what a user waits; the CPU time of the whole process (bootstrap included)
    // is steadier on a shared machine.
    const bare = { wall: [] as number[], cpu: [] as number[] };
    const cold = { wall: [] as number[], cpu: [] as number[] };
    const inProcess: number[] = [];
    const cpu = `const c = process.cpuUsage(); console.log((c.user + c.system) / 1000);`;
    const code = `const t = performance.now(); await import('cortexis'); console.log(performance.now() - t); ${cpu}`;
    runNode(code, project); // file system cache
    for (let round = 0; round < rounds; round++) {
      const baseline = runNode(cpu, project);
      bare.wall.push(baseline.wall);
      bare.cpu.push(Number(baseline.stdout.trim()));
      const run = runNode(code, project);
      const [importTime, cpuTime] = run.stdout.trim().split('\n').map(Number);
      cold.wall.push(run.wall);
      cold.cpu.push(cpuTime!);
      inProcess.push(importTime!);
    }

    // 3. Tokenizer: load time in fresh processes, throughput in this one.
    const library = (encoding: string) =>
      JSON.stringify(join(root, `node_modules/gpt-tokenizer/esm/encoding/${encoding}.js`));
    const loads = new Map<string, { ours: number[]; library: number[] }>();
    for (const encoding of ['cl100k_base', 'o200k_base']) {
      const times = { ours: [] as number[], library: [] as number[] };
      for (let round = 0; round < Math.min(rounds, 7); round++) {
        const ours = runNode(
          `const { createGptTokenizer } = await import('cortexis'); const c = process.cpuUsage(); (await createGptTokenizer({ encoding: '${encoding}' })).count('warm'); const d = process.cpuUsage(c); console.log((d.user + d.system) / 1000);`,
          project,
        );
        times.ours.push(Number(ours.stdout.trim()));
        const theirs = runNode(
          `const c = process.cpuUsage(); (await import(${library(encoding)})).countTokens('warm'); const d = process.cpuUsage(c); console.log((d.user + d.system) / 1000);`,
          project,
        );
        times.library.push(Number(theirs.stdout.trim()));
      }
      loads.set(encoding, times);
    }

    const dir = sciFactDir();
    const texts = hasSciFact(dir)
      ? loadCorpus(dir).map((doc) => `${doc.title}\n${doc.text}`)
      : generatedTexts();
    const characters = texts.reduce((sum, text) => sum + text.length, 0);
    const cortexis = (await import(
      join(modules, 'cortexis/dist/index.js')
    )) as typeof import('../src/index.js');
    const { bpeSegments } = await import('../src/adapters/tokenizer/segments.js');
    const throughput: string[][] = [];
    for (const encoding of ['cl100k_base', 'o200k_base'] as const) {
      const ours = await cortexis.createGptTokenizer({ encoding });
      const theirs = (await import(
        join(root, `node_modules/gpt-tokenizer/esm/encoding/${encoding}.js`)
      )) as typeof import('gpt-tokenizer/encoding/cl100k_base');
      // gpt-tokenizer as cortexis used it: long runs cut first, special tokens as plain text.
      const plain = { disallowedSpecial: new Set<string>() };
      const count = {
        ours: (text: string) => ours.count(text),
        library: (text: string) =>
          bpeSegments(text).reduce((sum, segment) => sum + theirs.countTokens(segment, plain), 0),
      };
      const times = { ours: [] as number[], library: [] as number[] };
      const totals = { ours: 0, library: 0 };
      for (let round = 0; round < 5; round++) {
        const order =
          round % 2 === 0 ? (['ours', 'library'] as const) : (['library', 'ours'] as const);
        for (const which of order) {
          // CPU time: steadier than wall time on a shared machine.
          const start = process.cpuUsage();
          let total = 0;
          for (const text of texts) total += count[which](text);
          const used = process.cpuUsage(start);
          times[which].push((used.user + used.system) / 1000);
          totals[which] = total;
        }
      }
      if (totals.ours !== totals.library) {
        throw new Error(`${encoding}: ${totals.ours} tokens, gpt-tokenizer ${totals.library}`);
      }
      const rate = (time: number) => `${(characters / 1e6 / (time / 1000)).toFixed(1)} M chars/s`;
      const load = loads.get(encoding)!;
      throughput.push([
        encoding,
        `${ms(median(load.ours))} / ${ms(median(load.library))}`,
        `${rate(median(times.ours))} / ${rate(median(times.library))}`,
        `${(median(times.library) / median(times.ours)).toFixed(2)}×`,
        `${totals.ours} tokens, equal`,
      ]);
    }

    // 4. Browser bundle.
    const bundle = await browserBundle();
    const table = bundle.lazy.get('cl100k_base table') ?? 0;

    const ratio = median(cold.wall) / median(bare.wall);
    const cpuRatio = median(cold.cpu) / median(bare.cpu);
    console.log(`\n${rounds} alternating fresh processes per variant; medians.\n`);
    console.log('| measure | result | target |\n| --- | --- | --- |');
    console.log(
      `| cold \`import('cortexis')\`, process wall time | ${ms(median(cold.wall))} vs bare Node ${ms(median(bare.wall))}: **${ratio.toFixed(2)}×** (the import itself ${ms(median(inProcess))}) | ≤ 1.3× |`,
    );
    console.log(
      `| same, process CPU time | ${ms(median(cold.cpu))} vs ${ms(median(bare.cpu))}: **${cpuRatio.toFixed(2)}×** | — |`,
    );
    console.log(
      `| installed size (\`npm install <tarball>\`, \`du\` of node_modules) | **${mb(installed)}** (cortexis itself ${mb(own)}; tarball ${mb(packed.size)}) | ≤ 25 MB |`,
    );
    console.log(
      `| browser bundle of the core entry, loaded by \`import\` | ${kb(bundle.eagerMin)} min, **${kb(bundle.eager)} gzip** | ≤ 250 KB gzip |`,
    );
    console.log(
      `| + default tokenizer table (cl100k_base, on first use) | ${kb(table)} gzip (total ${kb(bundle.eager + table)}) | — |`,
    );
    console.log(
      `\nLoaded on demand: ${[...bundle.lazy].map(([chunk, size]) => `${chunk} ${kb(size)}`).join(', ')} (gzip).`,
    );
    console.log(
      `\nLargest installed packages: ${largestPackages(modules)
        .map(([name, size]) => `${name} ${mb(size)}`)
        .join(', ')}.`,
    );
    console.log(
      `\nTokenizer (${hasSciFact(dir) ? 'SciFact' : 'generated text'}, ${(characters / 1e6).toFixed(1)} M characters, 5 alternating passes; load in ${Math.min(rounds, 7)} fresh processes; CPU time, medians):\n`,
    );
    console.log(
      '| encoding | load + first count: cortexis / gpt-tokenizer | `count()`: cortexis / gpt-tokenizer | speed-up | check |\n| --- | --- | --- | --- | --- |',
    );
    for (const row of throughput) console.log(`| ${row.join(' | ')} |`);
    if (argv.includes('--keep')) console.log(`\nkept: ${work}`);
  } finally {
    if (!argv.includes('--keep')) rmSync(work, { recursive: true, force: true });
  }
}

await main();
