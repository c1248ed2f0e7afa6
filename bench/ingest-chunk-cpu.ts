/**
 * CPU time of chunking SciFact alone (`chunkText` of every abstract with the default
 * `cl100k_base` tokenizer, exact token counts), `--runs N` times (default 3) in one process, the
 * corpus read again before each run: the first run pays the BPE of every piece the chunker's
 * piece table has not seen and the JIT, later ones look the pieces up. With `--fresh` each run
 * gets a tokenizer of its own (`createBpeTokenizer`, no piece counts or merges remembered): the
 * JIT is warm from the second run on, the vocabulary is not. Chunks and their token counts are
 * printed so that two builds can be compared for identical output.
 *
 * ```
 * node --import tsx bench/ingest-chunk-cpu.ts --data ../shared/data/scifact [--dist DIR] [--runs 3] [--fresh]
 * ```
 */
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { hasSciFact, loadCorpus, sciFactDir } from './scifact.js';

const { argv } = process;
const valueOf = (name: string): string | undefined =>
  argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined;

async function main(): Promise<void> {
  const dir = sciFactDir();
  if (!hasSciFact(dir)) throw new Error(`No SciFact corpus in ${dir}: give --data DIR`);
  const fresh = argv.includes('--fresh');
  const dist = valueOf('--dist');
  const { chunkText, createBpeTokenizer, createGptTokenizer } = (await import(
    dist === undefined ? '../src/index.js' : pathToFileURL(join(resolve(dist), 'index.js')).href
  )) as typeof import('../src/index.js');
  const table = fresh
    ? ((await import(
        dist === undefined
          ? '../src/adapters/tokenizer/encodings/cl100k_base.js'
          : pathToFileURL(join(resolve(dist), 'encodings/cl100k_base.js')).href
      )) as { default: Parameters<typeof createBpeTokenizer>[0]['data'] })
    : undefined;
  const shared = await createGptTokenizer();
  for (let run = 1, runs = Number(valueOf('--runs') ?? 3); run <= runs; run++) {
    const texts = loadCorpus(dir).map((doc) => doc.text);
    const tokenizer = table === undefined ? shared : createBpeTokenizer({ data: table.default });
    const start = process.cpuUsage();
    let chunks = 0;
    let tokens = 0;
    for (const text of texts) {
      for (const chunk of chunkText(text, { tokenizer })) {
        chunks++;
        tokens += chunk.tokenCount;
      }
    }
    const used = process.cpuUsage(start);
    const ms = (used.user + used.system) / 1000;
    console.log(`run ${run}: chunks ${chunks} tokens ${tokens} cpu ${ms.toFixed(0)} ms`);
  }
}

await main();
