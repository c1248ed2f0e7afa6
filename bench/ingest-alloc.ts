/**
 * What a SciFact ingest allocates, by stage, and the garbage collections it causes: counts,
 * not times, so that two trees can be compared on a loaded machine (issue 27, item 3).
 *
 * One process: a warm-up ingest of 50 documents (as `bench:peers` does), then `--runs N`
 * (default 3) ingests of the whole corpus, each into a fresh engine with the corpus read again.
 * Per ingest it prints the megabytes allocated (V8's sampling heap profiler, objects collected
 * since included) under each stage of the ingest — chunking and token counts, embedding, the
 * keyword index, the vector store, the graph, the rest — and the number of scavenges and full
 * collections with the bytes they promoted (`--trace-gc-nvp` is not needed: the `gc` entries
 * of `perf_hooks` count them). A stage is the innermost of these frames a sample sits under.
 *
 * `--hashing D` gives each engine an embedder of its own, `createHashingEmbedder({ dimensions:
 * D })`, as `bench:peers` does (ingestion on the calling thread); `--concurrency N` as
 * `engine.ingest(docs, { concurrency })` (allocations of worker threads are not seen: run it
 * with `--concurrency 1` or `--hashing`). `--root DIR` measures another tree's `src/`.
 *
 * ```
 * node --import tsx bench/ingest-alloc.ts --data ../shared/data/scifact --hashing 256
 * node --import tsx bench/ingest-alloc.ts --data ../shared/data/scifact --concurrency 1 --root /tmp/base
 * ```
 */
import { Session } from 'node:inspector/promises';
import { join, resolve } from 'node:path';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { hasSciFact, loadCorpus, sciFactDir } from './scifact.js';

interface SamplingNode {
  readonly callFrame: { readonly functionName: string; readonly url: string };
  readonly selfSize: number;
  readonly children: readonly SamplingNode[];
}

/** Stages by the frame that starts them (function name and the end of its file's path). */
const STAGES: readonly { readonly stage: string; readonly name: string; readonly file: string }[] =
  [
    { stage: 'chunking and token counts', name: 'prepareDocuments', file: 'ingest/prepare.ts' },
    { stage: 'embedding', name: 'embedAll', file: 'ingest/prepare.ts' },
    // One analysis of each chunk for the embedder, the keyword index and the graph (issue 27).
    { stage: 'shared analysis', name: 'analyzeChunk', file: 'text/chunk-analysis.ts' },
    // The engine calls the embedder through its resilience wrapper: not under `embedAll`.
    { stage: 'embedding', name: 'embed', file: 'hashing/embedder.ts' },
    { stage: 'keyword index', name: 'add', file: 'memory/keyword-index.ts' },
    { stage: 'vector store', name: 'upsert', file: 'memory/vector-store.ts' },
    { stage: 'graph', name: 'index', file: 'ingest/graph.ts' },
  ];

/** Every 16 KiB a sample, objects collected since included (a variable: the types lack them). */
const SAMPLING = {
  samplingInterval: 16_384,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
};

function flag(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

function stageOf(node: SamplingNode, current: string): string {
  const { functionName, url } = node.callFrame;
  const found = STAGES.find((entry) => entry.name === functionName && url.endsWith(entry.file));
  return found?.stage ?? current;
}

/** Bytes allocated per stage under `node` (the stage of its nearest stage frame, else `rest`). */
function tally(node: SamplingNode, current: string, into: Map<string, number>): void {
  const stage = stageOf(node, current);
  into.set(stage, (into.get(stage) ?? 0) + node.selfSize);
  for (const child of node.children) tally(child, stage, into);
}

interface GcCounts {
  minor: number;
  major: number;
  other: number;
}

async function main(): Promise<void> {
  const dir = sciFactDir();
  if (!hasSciFact(dir)) throw new Error(`SciFact not found in ${dir} (pass --data DIR)`);
  const runs = Number(flag('--runs') ?? 3);
  const hashing = flag('--hashing') === undefined ? undefined : Number(flag('--hashing'));
  const concurrency =
    flag('--concurrency') === undefined ? undefined : Number(flag('--concurrency'));
  const root = resolve(flag('--root') ?? join(import.meta.dirname, '..'));
  const cortexis = (await import(pathToFileURL(join(root, 'src/index.ts')).href)) as {
    createChatEngine(config?: object): {
      ingest(docs: unknown, options?: object): Promise<{ chunks: number }>;
    };
    createHashingEmbedder(settings: { dimensions: number }): object;
  };
  const engine = () =>
    cortexis.createChatEngine(
      hashing === undefined
        ? {}
        : { embedder: cortexis.createHashingEmbedder({ dimensions: hashing }) },
    );
  const load = () =>
    loadCorpus(dir).map((doc) => ({ id: doc.id, title: doc.title, text: doc.text }));
  let gc: GcCounts = { minor: 0, major: 0, other: 0 };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as unknown as { detail?: { kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MINOR) gc.minor++;
      else if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) gc.major++;
      else gc.other++;
    }
  }).observe({ entryTypes: ['gc'] });
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.enable');
  await engine().ingest(load().slice(0, 50), { concurrency });
  console.log(
    `root ${root}; ${hashing === undefined ? 'default embedder' : `own ${hashing}-d hashing embedder`}; concurrency ${concurrency ?? 'default'}`,
  );
  for (let run = 1; run <= runs; run++) {
    const docs = load();
    const target = engine();
    gc = { minor: 0, major: 0, other: 0 };
    await session.post('HeapProfiler.startSampling', SAMPLING);
    const { chunks } = await target.ingest(docs, { concurrency });
    const { profile } = (await session.post('HeapProfiler.stopSampling')) as {
      profile: { head: SamplingNode };
    };
    // GC entries are delivered after the pause: let them arrive before reading the counts.
    await new Promise((done) => setTimeout(done, 0));
    const stages = new Map<string, number>();
    tally(profile.head, 'rest', stages);
    const total = [...stages.values()].reduce((sum, bytes) => sum + bytes, 0);
    const mb = (bytes: number) => (bytes / 1e6).toFixed(0);
    const parts = [...new Set(STAGES.map((entry) => entry.stage)), 'rest']
      .map((stage) => `${stage} ${mb(stages.get(stage) ?? 0)}`)
      .join(', ');
    console.log(
      `ingest ${run}: ${chunks} chunks; allocated ${mb(total)} MB (${parts}); ` +
        `scavenges ${gc.minor}, full collections ${gc.major}, other ${gc.other}`,
    );
  }
  session.disconnect();
}

await main();
