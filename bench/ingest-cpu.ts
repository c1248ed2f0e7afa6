/**
 * CPU and wall time per SciFact ingest: one warm-up ingest, then `--runs N` (default 4)
 * ingests, each into a fresh engine with the defaults, in one process. Prints one line per
 * run and the medians. Profile with `node --cpu-prof --import tsx bench/ingest-cpu.ts`.
 *
 * ```
 * node --import tsx bench/ingest-cpu.ts --data ../shared/data/scifact [--runs 4]
 * ```
 */
import { loadavg } from 'node:os';
import { createChatEngine } from '../src/index.js';
import { hasSciFact, loadCorpus, sciFactDir } from './scifact.js';

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function main(): Promise<void> {
  const dir = sciFactDir();
  if (!hasSciFact(dir)) throw new Error(`SciFact not found in ${dir} (pass --data DIR)`);
  const flag = process.argv.indexOf('--runs');
  const runs = flag >= 0 ? Number(process.argv[flag + 1]) : 4;
  const docs = loadCorpus(dir).map((doc) => ({ id: doc.id, title: doc.title, text: doc.text }));
  await createChatEngine().ingest(docs);
  const cpu: number[] = [];
  const wall: number[] = [];
  let chunks = 0;
  for (let run = 0; run < runs; run++) {
    const engine = createChatEngine();
    const usage = process.cpuUsage();
    const started = performance.now();
    chunks = (await engine.ingest(docs)).chunks;
    wall.push(performance.now() - started);
    const used = process.cpuUsage(usage);
    cpu.push((used.user + used.system) / 1000);
  }
  const load = loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
  console.log(
    `chunks ${chunks}; CPU per ingest ${cpu.map((v) => v.toFixed(0)).join(' / ')} ms ` +
      `(median ${median(cpu).toFixed(0)}); wall ${wall.map((v) => v.toFixed(0)).join(' / ')} ms ` +
      `(median ${median(wall).toFixed(0)}); load ${load}`,
  );
}

await main();
