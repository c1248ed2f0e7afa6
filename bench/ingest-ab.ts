/**
 * SciFact ingest of two trees in one process, alternating: this tree's `src/` and the one in
 * `--before DIR` (a copy of the commit to compare with, e.g. `git archive HEAD | tar -x -C DIR`
 * with `node_modules` linked). Each run ingests into a fresh engine with the defaults; after a
 * warm-up ingest of each, `--rounds N` (default 7) rounds of one ingest per tree. Prints the
 * CPU time (`process.cpuUsage`) and wall time per ingest and the medians. On a shared machine
 * alternating in one process keeps the load both trees see alike, which separate processes
 * run one after the other do not.
 *
 * With `--part segment`, times only `segmentText` (`src/text/segment.ts`) of each tree over
 * the texts a SciFact ingest analyses: per document the embedded text (title, line break,
 * abstract), the keyword-indexed one (the title three times) and the graph's 300-character
 * prefix; one pass over all of them per tree and round.
 *
 * ```
 * node --import tsx bench/ingest-ab.ts --before /tmp/head --data ../shared/data/scifact
 * node --import tsx bench/ingest-ab.ts --before /tmp/head --data ../shared/data/scifact --part segment --rounds 11
 * node --import tsx bench/ingest-ab.ts --before /tmp/head --data ../shared/data/scifact --concurrency 1
 * node --import tsx bench/ingest-ab.ts --before /tmp/head --data ../shared/data/scifact --hashing 256
 * node --import tsx bench/ingest-ab.ts --before /tmp/head --data ../shared/data/scifact --part merge
 * node --import tsx bench/ingest-ab.ts --before /tmp/head --data ../shared/data/scifact --part analyze
 * node --import tsx bench/ingest-ab.ts --before /tmp/head --data ../shared/data/scifact --part chunk
 * node --import tsx bench/ingest-ab.ts --before /tmp/head --data ../shared/data/scifact --part keyword-terms
 * ```
 */
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { scaleCorpus } from './scale.js';
import { hasSciFact, loadCorpus, sciFactDir } from './scifact.js';

type Engine = {
  ingest(
    docs: unknown,
    options?: { concurrency?: number | undefined },
  ): Promise<{ chunks: number }>;
};
type Factory = (config?: object) => Engine;
type EmbedderFactory = (settings: { dimensions: number }) => object;

function flag(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/**
 * A tree's engine factory; with `hashing`, each engine gets an embedder of its own,
 * `createHashingEmbedder({ dimensions: hashing })`, as `bench:peers` does.
 */
async function factory(root: string, hashing: number | undefined): Promise<() => Engine> {
  const url = pathToFileURL(join(root, 'src/index.ts')).href;
  const module = (await import(url)) as {
    createChatEngine: Factory;
    createHashingEmbedder: EmbedderFactory;
  };
  if (hashing === undefined) return () => module.createChatEngine();
  return () =>
    module.createChatEngine({
      embedder: module.createHashingEmbedder({ dimensions: hashing }),
    });
}

type Segment = (text: string) => { words: string[] };

async function segmenter(root: string): Promise<Segment> {
  const url = pathToFileURL(join(root, 'src/text/segment.ts')).href;
  return ((await import(url)) as { segmentText: Segment }).segmentText;
}

/** CPU milliseconds of `work`. */
function cpuTime(work: () => void): number {
  const usage = process.cpuUsage();
  work();
  const used = process.cpuUsage(usage);
  return (used.user + used.system) / 1000;
}

async function segmentOnly(
  beforeDir: string,
  docs: readonly { title: string; text: string }[],
  rounds: number,
): Promise<void> {
  const texts: string[] = [];
  for (const { title, text } of docs) {
    const embedded = `${title}\n${text}`;
    texts.push(embedded, `${`${title}\n`.repeat(3)}${text}`, embedded.slice(0, 300));
  }
  const trees = [
    { name: 'before', segment: await segmenter(resolve(beforeDir)), cpu: [] as number[] },
    {
      name: 'after',
      segment: await segmenter(join(import.meta.dirname, '..')),
      cpu: [] as number[],
    },
  ];
  let words = 0;
  for (let round = 0; round < rounds + 1; round++) {
    // Each round swaps which tree goes first: the second ingest of a round pays the first one's garbage.
    for (const tree of round % 2 === 0 ? trees : [...trees].reverse()) {
      const time = cpuTime(() => {
        for (const text of texts) words += tree.segment(text).words.length;
      });
      if (round > 0) tree.cpu.push(time);
    }
  }
  const load = loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
  console.log(`segmentText over ${texts.length} texts, ${rounds} alternating rounds, load ${load}`);
  for (const { name, cpu } of trees) {
    console.log(
      `${name}: CPU per pass median ${median(cpu).toFixed(0)} ms (${cpu.map((v) => v.toFixed(0)).join(' ')})`,
    );
  }
  if (words === 0) throw new Error('no words');
}

type Analyzer = {
  analyzeTerms: (text: string) => string[];
  splitContent: (text: string) => { content: string[] };
};

/**
 * `--part analyze`: the text analysis a SciFact ingest on the calling thread runs, per tree:
 * `analyzeTerms` of each keyword-indexed text (the title three times) and of the graph's
 * 300-character prefix, `splitContent` of each embedded text (the hashing embedder's words).
 */
async function analyzeOnly(
  beforeDir: string,
  docs: readonly { title: string; text: string }[],
  rounds: number,
): Promise<void> {
  const load = async (root: string) =>
    (await import(pathToFileURL(join(root, 'src/text/analyzer.ts')).href)) as Analyzer;
  const keyword: string[] = [];
  const embedded: string[] = [];
  for (const { title, text } of docs) {
    const index = `${title}\n${text}`;
    embedded.push(index);
    keyword.push(`${`${title}\n`.repeat(3)}${text}`, index.slice(0, 300));
  }
  const trees = [
    { name: 'before', analyzer: await load(resolve(beforeDir)), cpu: [] as number[] },
    { name: 'after', analyzer: await load(join(import.meta.dirname, '..')), cpu: [] as number[] },
  ];
  let terms = 0;
  for (let round = 0; round < rounds + 1; round++) {
    // Each round swaps which tree goes first: the second ingest of a round pays the first one's garbage.
    for (const tree of round % 2 === 0 ? trees : [...trees].reverse()) {
      const { analyzeTerms, splitContent } = tree.analyzer;
      const time = cpuTime(() => {
        for (const text of keyword) terms += analyzeTerms(text).length;
        for (const text of embedded) terms += splitContent(text).content.length;
      });
      if (round > 0) tree.cpu.push(time);
    }
  }
  printRounds(
    `analysis of ${keyword.length + embedded.length} texts, ${rounds} alternating rounds`,
    'pass',
    trees,
  );
  if (terms === 0) throw new Error('no terms');
}

type Preparer = {
  prepareDocuments(
    docs: readonly object[],
    revision: string,
    settings: { chunkSize: number; chunkOverlap: number },
    tokenizer: object,
  ): Promise<{ chunks: unknown[] }[]>;
};

/**
 * `--part chunk`: the chunking a SciFact ingest runs (`prepareDocuments`: chunks with exact
 * token counts, the texts to index, metadata), per tree with its own `cl100k_base` tokenizer
 * made once (its piece counts warm after the first round, as in a process's later ingests).
 */
async function chunkOnly(
  beforeDir: string,
  docs: readonly { id: string; title: string; text: string }[],
  rounds: number,
): Promise<void> {
  const load = async (root: string) => {
    const prepare = (await import(
      pathToFileURL(join(root, 'src/ingest/prepare.ts')).href
    )) as Preparer;
    const index = (await import(pathToFileURL(join(root, 'src/index.ts')).href)) as {
      createGptTokenizer(): Promise<object>;
    };
    return { prepare, tokenizer: await index.createGptTokenizer() };
  };
  const trees = [
    { name: 'before', ...(await load(resolve(beforeDir))), cpu: [] as number[] },
    { name: 'after', ...(await load(join(import.meta.dirname, '..'))), cpu: [] as number[] },
  ];
  const settings = { chunkSize: 512, chunkOverlap: 64 };
  let chunks = 0;
  for (let round = 0; round < rounds + 1; round++) {
    for (const tree of round % 2 === 0 ? trees : [...trees].reverse()) {
      const started = process.cpuUsage();
      const prepared = await tree.prepare.prepareDocuments(docs, 'r', settings, tree.tokenizer);
      const used = process.cpuUsage(started);
      for (const entry of prepared) chunks += entry.chunks.length;
      if (round > 0) tree.cpu.push((used.user + used.system) / 1000);
    }
  }
  printRounds(`chunking of ${docs.length} documents, ${rounds} alternating rounds`, 'pass', trees);
  if (chunks === 0) throw new Error('no chunks');
}

type KeywordIndexFactory = () => {
  add(namespace: string, records: readonly object[]): Promise<void>;
};

/**
 * `--part keyword`: adds the keyword records of a SciFact ingest (header-weighted texts with the
 * terms the ingest workers compute) to a fresh memory keyword index of each tree, alternating;
 * `--docs N` takes `bench/scale.ts`'s corpus of N documents instead. `--part keyword-terms`
 * gives the records without terms: each index analyses them with its default analysis, as the
 * engine's own index does in a calling-thread ingest.
 */
async function keywordOnly(
  beforeDir: string,
  docs: readonly { id: string; title: string; text: string }[],
  rounds: number,
  analyse = false,
): Promise<void> {
  const load = async (root: string) => {
    const url = pathToFileURL(join(root, 'src/index.ts')).href;
    return ((await import(url)) as { createMemoryKeywordIndex: KeywordIndexFactory })
      .createMemoryKeywordIndex;
  };
  const { tokenizeForIndex } = (await import(
    pathToFileURL(join(import.meta.dirname, '../src/query/bm25.ts')).href
  )) as { tokenizeForIndex: (text: string) => string[] };
  const records = docs.map((doc) => {
    const text = `${`${doc.title}\n`.repeat(3)}${doc.text}`;
    const record = { id: doc.id, text, metadata: { documentId: doc.id } };
    return analyse ? record : { ...record, terms: tokenizeForIndex(text) };
  });
  const trees = [
    { name: 'before', create: await load(resolve(beforeDir)), cpu: [] as number[] },
    { name: 'after', create: await load(join(import.meta.dirname, '..')), cpu: [] as number[] },
  ];
  for (let round = 0; round < rounds + 1; round++) {
    // Each round swaps which tree goes first: the second ingest of a round pays the first one's garbage.
    for (const tree of round % 2 === 0 ? trees : [...trees].reverse()) {
      const index = tree.create();
      const usage = process.cpuUsage();
      await index.add('default', records);
      const used = process.cpuUsage(usage);
      if (round > 0) tree.cpu.push((used.user + used.system) / 1000);
    }
  }
  printRounds(
    `keyword add of ${records.length} records${analyse ? ' (analysed by the index)' : ''}, ${rounds} alternating rounds (CPU of the add, collections during it included)`,
    'pass',
    trees,
  );
}

/** The run's title with the load, then each tree's CPU per `unit`: median and every round. */
function printRounds(
  title: string,
  unit: string,
  trees: readonly { name: string; cpu: number[] }[],
) {
  const average = loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
  console.log(`${title}, load ${average}`);
  for (const { name, cpu } of trees) {
    console.log(
      `${name}: CPU per ${unit} median ${median(cpu).toFixed(0)} ms (${cpu.map((v) => v.toFixed(0)).join(' ')})`,
    );
  }
}

/** What `--part merge` loads of a tree. */
interface MergeTree {
  readonly name: string;
  readonly ingest: (deps: object, docs: unknown, settings: object) => Promise<{ chunks: number }>;
  readonly deps: () => object;
  readonly wires: Map<string, unknown>;
  readonly cpu: number[];
}

/**
 * `--part merge`: what the calling thread does when ingest workers prepare the groups. Each
 * tree's groups are prepared once, up front, by its own `prepareJob` (what its workers run);
 * then, alternating, `ingestDocuments` of each tree merges them into fresh default stores (a
 * preparer that answers the prepared group at once): validation, unpacking the groups, the
 * vector store, the keyword index, the graph and the stale-chunk deletes.
 */
async function mergeOnly(
  beforeDir: string,
  docs: readonly { id: string; title: string; text: string }[],
  rounds: number,
): Promise<void> {
  const load = async (name: string, root: string): Promise<MergeTree> => {
    const module = async (path: string) =>
      (await import(pathToFileURL(join(root, path)).href)) as Record<string, unknown>;
    const index = (await module('src/index.ts')) as unknown as Record<
      string,
      (...args: never[]) => never
    >;
    const { ingestDocuments } = (await module('src/ingest/ingest.ts')) as unknown as {
      ingestDocuments: MergeTree['ingest'];
    };
    const { prepareJob } = (await module('src/ingest/prepare.ts')) as unknown as {
      prepareJob: (...args: unknown[]) => Promise<unknown>;
    };
    const { createGraphIndexer } = (await module('src/ingest/graph.ts')) as unknown as {
      createGraphIndexer: (settings: object) => object;
    };
    const { defaultKeywordTerms } = (await module(
      'src/adapters/memory/keyword-index.ts',
    )) as unknown as {
      defaultKeywordTerms: (language: string) => (text: string) => string[];
    };
    const tokenizer = await index.createGptTokenizer!();
    const embedder = index.createHashingEmbedder!();
    const wires = new Map<string, unknown>();
    for (let start = 0; start < docs.length; start += 256) {
      const documents = docs.slice(start, start + 256);
      const job = {
        documents,
        revision: 'r',
        chunkSize: 512,
        chunkOverlap: 64,
        tokenizer: 'cl100k_base',
        keywordLanguage: 'auto',
        graphTerms: { characters: 300, minLength: 4 },
      };
      wires.set(
        documents[0]!.id,
        await prepareJob(job, tokenizer, embedder, defaultKeywordTerms('auto')),
      );
    }
    return {
      name,
      ingest: ingestDocuments,
      wires,
      cpu: [],
      deps: () => ({
        vectorStore: index.createMemoryVectorStore!(),
        keywordIndex: index.createMemoryKeywordIndex!(),
        embedder,
        tokenizer,
        graphIndexer: createGraphIndexer({
          graphStore: index.createMemoryGraphStore!(),
          maxTermsPerChunk: 4,
          maxChunksPerTerm: 50,
          termCharacters: 300,
        }),
      }),
    };
  };
  const trees = [
    await load('before', resolve(beforeDir)),
    await load('after', join(import.meta.dirname, '..')),
  ];
  let chunks = 0;
  for (let round = 0; round < rounds + 1; round++) {
    // Each round swaps which tree goes first: the second ingest of a round pays the first one's garbage.
    for (const tree of round % 2 === 0 ? trees : [...trees].reverse()) {
      // The prepared chunks carry the revision of this call, as a worker's would.
      const preparer = {
        concurrency: 2,
        prepare: (job: { documents: readonly { id: string }[]; revision: string }) => {
          const wire = tree.wires.get(job.documents[0]!.id) as {
            chunks: { metadata: { revision: string } }[][];
          };
          for (const chunks of wire.chunks) {
            for (const chunk of chunks) chunk.metadata.revision = job.revision;
          }
          return Promise.resolve(wire);
        },
      };
      const usage = process.cpuUsage();
      chunks = (
        await tree.ingest(tree.deps(), docs, {
          namespace: 'default',
          chunkSize: 512,
          chunkOverlap: 64,
          maxDocumentLength: 1e6,
          preparer,
          keywordLanguage: 'auto',
          graphTerms: { characters: 300, minLength: 4 },
        })
      ).chunks;
      const used = process.cpuUsage(usage);
      if (round > 0) tree.cpu.push((used.user + used.system) / 1000);
    }
  }
  printRounds(
    `merge of SciFact's prepared groups (${chunks} chunks), ${rounds} alternating rounds`,
    'merge',
    trees,
  );
}

async function main(): Promise<void> {
  const beforeDir = flag('--before');
  if (beforeDir === undefined) throw new Error('pass --before DIR (a copy of the other tree)');
  const dir = sciFactDir();
  if (!hasSciFact(dir)) throw new Error(`SciFact not found in ${dir} (pass --data DIR)`);
  const rounds = Number(flag('--rounds') ?? 7);
  const docs = loadCorpus(dir).map((doc) => ({ id: doc.id, title: doc.title, text: doc.text }));
  if (flag('--part') === 'segment') return segmentOnly(beforeDir, docs, rounds);
  if (flag('--part') === 'keyword') {
    // `--docs N`: `bench/scale.ts`'s corpus of N documents (SciFact's, then generated ones).
    const count = flag('--docs');
    const corpus = count === undefined ? docs : scaleCorpus(Number(count), 0, 17).docs;
    return keywordOnly(beforeDir, corpus as typeof docs, rounds);
  }
  if (flag('--part') === 'analyze') return analyzeOnly(beforeDir, docs, rounds);
  if (flag('--part') === 'chunk') return chunkOnly(beforeDir, docs, rounds);
  if (flag('--part') === 'keyword-terms') return keywordOnly(beforeDir, docs, rounds, true);
  if (flag('--part') === 'merge') return mergeOnly(beforeDir, docs, rounds);
  const hashing = flag('--hashing') === undefined ? undefined : Number(flag('--hashing'));
  const trees: { name: string; create: () => Engine; cpu: number[]; wall: number[] }[] = [
    { name: 'before', create: await factory(resolve(beforeDir), hashing), cpu: [], wall: [] },
    {
      name: 'after',
      create: await factory(join(import.meta.dirname, '..'), hashing),
      cpu: [],
      wall: [],
    },
  ];
  const concurrency =
    flag('--concurrency') === undefined ? undefined : Number(flag('--concurrency'));
  for (const tree of trees) await tree.create().ingest(docs, { concurrency });
  let chunks = 0;
  for (let round = 0; round < rounds; round++) {
    // Each round swaps which tree goes first: the second ingest of a round pays the first one's garbage.
    for (const tree of round % 2 === 0 ? trees : [...trees].reverse()) {
      const engine = tree.create();
      const usage = process.cpuUsage();
      const started = performance.now();
      chunks = (await engine.ingest(docs, { concurrency })).chunks;
      tree.wall.push(performance.now() - started);
      const used = process.cpuUsage(usage);
      tree.cpu.push((used.user + used.system) / 1000);
    }
  }
  const load = loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
  console.log(
    `SciFact, ${chunks} chunks, concurrency ${concurrency ?? 'default'}${hashing === undefined ? '' : `, own ${hashing}-d hashing embedder`}, ${rounds} alternating rounds, load ${load}`,
  );
  for (const { name, cpu, wall } of trees) {
    console.log(
      `${name}: CPU per ingest median ${median(cpu).toFixed(0)} ms ` +
        `(${cpu.map((v) => v.toFixed(0)).join(' ')}); wall median ${median(wall).toFixed(0)} ms`,
    );
  }
}

await main();
