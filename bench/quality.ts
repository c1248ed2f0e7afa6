/**
 * Retrieval quality on SciFact (BEIR): nDCG@10 and recall@100 for BM25 alone, the hashing
 * embedder alone and the default fused retrieval, plus index time, query latency and the
 * guard-score separation of on-topic vs off-topic questions.
 *
 *   npm run bench:quality [-- --data DIR] [-- --split train|test] [-- --sweep] [-- --header-weight N]
 *
 * A system under test is `(query) => Promise<string[]>`: ranked document ids.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

import {
  createHashingEmbedder,
  type HashingEmbedderSettings,
} from '../src/adapters/hashing/embedder.js';
import {
  createMemoryKeywordIndex,
  type MemoryKeywordIndexSettings,
} from '../src/adapters/memory/keyword-index.js';
import { createMemoryGraphStore } from '../src/adapters/memory/graph-store.js';
import { createMemoryVectorStore } from '../src/adapters/memory/vector-store.js';
import { createGraphIndexer } from '../src/ingest/graph.js';
import { stemmedTerms } from '../src/text/stem.js';
import type { EmbeddingProvider } from '../src/ports/embedding-provider.js';
import type { KeywordIndex } from '../src/ports/keyword-index.js';
import type { VectorStore } from '../src/ports/vector-store.js';
import {
  DEFAULT_FUSION_WEIGHTS,
  RECOMMENDED_MIN_SIMILARITY,
  retrieve,
  type FusionWeights,
  type RetrievalDeps,
  type RetrievalOptions,
} from '../src/pipeline/retrieve.js';
import { createChatEngine } from '../src/index.js';
import {
  hasSciFact,
  loadCorpus,
  loadQueries,
  sciFactDir,
  type SciFactDocument,
  type SciFactQuery,
} from './scifact.js';
import {
  dedupe,
  meanMetric,
  ndcgAtK,
  parseQrels,
  percentile,
  recallAtK,
  type Qrels,
} from './metrics.js';

/** Ranked document ids for a query. */
export type SystemUnderTest = (query: string) => Promise<string[]>;

interface Corpus {
  readonly documents: readonly SciFactDocument[];
  readonly queries: readonly SciFactQuery[];
  readonly qrels: Qrels;
}

const NAMESPACE = 'scifact';

/** Questions a SciFact knowledge base cannot answer, for the guard-mode measurement. */
export const OFF_TOPIC_QUESTIONS = [
  "What's the weather in Paris tomorrow?",
  'How do I bake sourdough bread?',
  'Who won the 2018 FIFA World Cup?',
  'What is the capital of Australia?',
  'How do I reset my router password?',
  'Recommend a good science fiction novel.',
  'How do I change a flat tire on my bicycle?',
  'What time does the supermarket close on Sundays?',
  'How do I write a for loop in Python?',
  'What is the best way to learn the guitar?',
  'Can you suggest a weekend itinerary for Rome?',
  'How much does a Tesla Model 3 cost?',
  'What are the rules of chess castling?',
  'How do I file my taxes online?',
  'Who painted the Mona Lisa?',
  'What is a good recipe for vegetarian lasagna?',
  'How do I train my puppy to sit?',
  'When is the next total solar eclipse visible in Europe?',
  'How do I install Kubernetes on Ubuntu?',
  'What movies are playing this weekend?',
  'How can I improve my credit score?',
  'What is the plot of Hamlet?',
  'How do I knit a scarf for beginners?',
  'Which smartphone has the best camera this year?',
  'How long should I boil an egg?',
  'What is the exchange rate between euros and dollars?',
  'How do I convert a PDF to Word?',
  'Where can I buy cheap flights to Tokyo?',
  'How do I grow tomatoes on a balcony?',
  'What are the lyrics of Bohemian Rhapsody?',
  'Tell me a joke about cats.',
  'How do I set up a home aquarium?',
];

export function loadSplit(directory: string, split: 'train' | 'test'): Corpus {
  const qrels = parseQrels(readFileSync(join(directory, `qrels-${split}.tsv`), 'utf8'));
  const queries = loadQueries(directory, split).filter((query) => qrels.has(query.id));
  return { documents: loadCorpus(directory), queries, qrels };
}

interface Stack {
  readonly deps: RetrievalDeps;
  readonly indexMs: number;
  /** Time to build the knowledge graph (when asked for). */
  readonly graphMs: number;
}

/**
 * How many times a document's title counts in the keyword index (`--header-weight`; the engine
 * weighs a chunk's header 3 times, `HEADER_KEYWORD_WEIGHT` in `src/ingest/ingest.ts`). The
 * component systems below default to 1, as they were measured before that weight.
 */
let headerWeight = 1;

/** Indexes every document as one chunk record (title + "\n" + text) in fresh stores. */
export async function buildStack(
  corpus: Corpus,
  embedderSettings: HashingEmbedderSettings,
  keywordSettings: MemoryKeywordIndexSettings,
  withGraph = false,
): Promise<Stack> {
  const embedder: EmbeddingProvider = createHashingEmbedder(embedderSettings);
  const vectorStore: VectorStore = createMemoryVectorStore();
  const keywordIndex: KeywordIndex = createMemoryKeywordIndex(keywordSettings);
  const started = performance.now();
  const batch = embedder.maxBatchSize ?? 64;
  for (let start = 0; start < corpus.documents.length; start += batch) {
    const documents = corpus.documents.slice(start, start + batch);
    const texts = documents.map((document) => `${document.title}\n${document.text}`);
    const records = documents.map((document, index) => ({
      id: document.id,
      text: `${`${document.title}\n`.repeat(headerWeight)}${document.text}`,
      metadata: {
        documentId: document.id,
        chunkIndex: 0,
        text: texts[index]!,
        title: document.title,
      },
    }));
    const vectors = await embedder.embed(texts);
    await vectorStore.upsert(
      NAMESPACE,
      records.map((record, index) => ({
        id: record.id,
        vector: vectors[index]!,
        metadata: record.metadata,
      })),
    );
    await keywordIndex.add(NAMESPACE, records);
  }
  const indexMs = performance.now() - started;
  if (!withGraph) return { deps: { embedder, vectorStore, keywordIndex }, indexMs, graphMs: 0 };
  const graphStore = createMemoryGraphStore();
  const indexer = createGraphIndexer({ graphStore });
  const graphStarted = performance.now();
  for (let start = 0; start < corpus.documents.length; start += 256) {
    const group = corpus.documents.slice(start, start + 256).map((document) => ({
      doc: { id: document.id, title: document.title, text: document.text },
      chunks: [{ id: document.id, text: `${document.title}\n${document.text}` }],
    }));
    await indexer.index(NAMESPACE, group);
  }
  return {
    deps: { embedder, vectorStore, keywordIndex, graphStore },
    indexMs,
    graphMs: performance.now() - graphStarted,
  };
}

function documentIdOf(metadata: Readonly<Record<string, unknown>>, id: string): string {
  return typeof metadata.documentId === 'string' ? metadata.documentId : id;
}

function bm25System(deps: RetrievalDeps): SystemUnderTest {
  return async (query) =>
    dedupe(
      (await deps.keywordIndex.search(NAMESPACE, query, { k: 100 })).map((match) =>
        documentIdOf(match.metadata, match.id),
      ),
    );
}

function vectorSystem(deps: RetrievalDeps): SystemUnderTest {
  return async (query) => {
    const [vector] = await deps.embedder.embed([query]);
    const matches = await deps.vectorStore.query(NAMESPACE, vector!, { k: 100 });
    return dedupe(matches.map((match) => documentIdOf(match.metadata, match.id)));
  };
}

/** The product as a user gets it: `createChatEngine()` defaults, `ingest` and `search`. */
async function engineSystem(
  corpus: Corpus,
  config: Parameters<typeof createChatEngine>[0] = {},
): Promise<{ system: SystemUnderTest; ingestMs: number }> {
  const engine = createChatEngine(config);
  const started = performance.now();
  await engine.ingest(corpus.documents);
  const ingestMs = performance.now() - started;
  const system: SystemUnderTest = async (query) =>
    dedupe((await engine.search(query, { k: 100 })).map((source) => source.documentId));
  return { system, ingestMs };
}

function fusedSystem(
  deps: RetrievalDeps,
  weights: FusionWeights,
  rrfK?: number,
  extra: Partial<RetrievalOptions> = {},
): SystemUnderTest {
  return async (query) => {
    const result = await retrieve(query, deps, {
      namespace: NAMESPACE,
      k: 100,
      maxK: 100,
      candidates: 100,
      threshold: 0,
      weights,
      rrfK,
      ...extra,
    });
    return dedupe(result.chunks.map((chunk) => chunk.documentId));
  };
}

interface Scores {
  readonly ndcg10: number;
  readonly recall100: number;
}

/** Runs a system over every query and scores it. */
export async function evaluate(system: SystemUnderTest, corpus: Corpus): Promise<Scores> {
  const run = new Map<string, string[]>();
  for (const query of corpus.queries) run.set(query.id, await system(query.text));
  return {
    ndcg10: meanMetric(run, corpus.qrels, (ranking, judgements) =>
      ndcgAtK(ranking, judgements, 10),
    ),
    recall100: meanMetric(run, corpus.qrels, (ranking, judgements) =>
      recallAtK(ranking, judgements, 100),
    ),
  };
}

function line(label: string, scores: Scores): string {
  return `${label.padEnd(48)} nDCG@10 ${scores.ndcg10.toFixed(4)}   recall@100 ${scores.recall100.toFixed(4)}`;
}

/** Latency of `retrieve` with chat-turn settings (k 3 → 5, 50 candidates). */
async function latency(deps: RetrievalDeps, corpus: Corpus): Promise<{ p50: number; p99: number }> {
  const options = { namespace: NAMESPACE, k: 3, maxK: 5, candidates: 50, threshold: 0 };
  for (const query of corpus.queries.slice(0, 50)) await retrieve(query.text, deps, options);
  const times: number[] = [];
  for (const query of corpus.queries) {
    const started = performance.now();
    await retrieve(query.text, deps, options);
    times.push(performance.now() - started);
  }
  return { p50: percentile(times, 50), p99: percentile(times, 99) };
}

/** topScore of on-topic vs off-topic questions, and how well a threshold separates them. */
async function guardReport(deps: RetrievalDeps, corpus: Corpus): Promise<void> {
  const options = { namespace: NAMESPACE, k: 3, maxK: 5, candidates: 50, threshold: 0 };
  const top = async (query: string): Promise<number> =>
    (await retrieve(query, deps, options)).topScore;
  const onTopic: number[] = [];
  for (const query of corpus.queries) onTopic.push(await top(query.text));
  const offTopic: number[] = [];
  for (const question of OFF_TOPIC_QUESTIONS) offTopic.push(await top(question));
  const summary = (values: number[]): string =>
    [5, 10, 25, 50, 75, 90, 95].map((p) => `p${p} ${percentile(values, p).toFixed(3)}`).join('  ');
  console.log(`\nguard: topScore of ${onTopic.length} SciFact queries:   ${summary(onTopic)}`);
  console.log(`guard: topScore of ${offTopic.length} off-topic questions: ${summary(offTopic)}`);
  for (const threshold of [0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5]) {
    const answered = onTopic.filter((score) => score >= threshold).length / onTopic.length;
    const refused = offTopic.filter((score) => score < threshold).length / offTopic.length;
    const mark = threshold === RECOMMENDED_MIN_SIMILARITY ? '  <- RECOMMENDED_MIN_SIMILARITY' : '';
    console.log(
      `guard: minSimilarity ${threshold.toFixed(2)}: on-topic answered ${(answered * 100).toFixed(1)}%, off-topic refused ${(refused * 100).toFixed(1)}%${mark}`,
    );
  }
}

/** Stemming, graph rerank and graph expansion settings; train split only. */
async function graphSweep(corpus: Corpus): Promise<void> {
  const { deps } = await buildStack(corpus, {}, { tokenize: stemmedTerms }, true);
  console.log(line('bm25 stemmed', await evaluate(bm25System(deps), corpus)));
  for (const vector of [0.1, 0.2, 0.3]) {
    for (const rrfK of [2, 3, 5]) {
      const scores = await evaluate(fusedSystem(deps, { vector, keyword: 1 }, rrfK), corpus);
      console.log(line(`stemmed fused vector ${vector} rrfK ${rrfK}`, scores));
    }
  }
  for (const gamma of [0.1, 0.25, 0.5, 1]) {
    for (const rounds of [1, 2]) {
      const system = fusedSystem(deps, DEFAULT_FUSION_WEIGHTS, undefined, {
        graphRerank: true,
        graphRerankWeight: gamma,
        graphRounds: rounds,
      });
      console.log(
        line(
          `stemmed fused + graph rerank γ ${gamma} rounds ${rounds}`,
          await evaluate(system, corpus),
        ),
      );
    }
  }
  for (const graph of [0.1, 0.3]) {
    const system = fusedSystem(deps, { ...DEFAULT_FUSION_WEIGHTS, graph }, undefined, {
      graph: { depth: 2 },
    });
    console.log(line(`stemmed fused + graph expansion w ${graph}`, await evaluate(system, corpus)));
  }
}

/** Parameter grid for tuning; run it on the train split only. */
async function sweep(corpus: Corpus): Promise<void> {
  for (const [k1, b] of [
    [0.9, 0.4],
    [1.2, 0.75],
    [1.2, 0.4],
    [0.9, 0.6],
    [1.5, 0.5],
  ] as const) {
    const { deps } = await buildStack(corpus, {}, { k1, b });
    console.log(line(`bm25 k1=${k1} b=${b}`, await evaluate(bm25System(deps), corpus)));
  }
  const initial: HashingEmbedderSettings = { bigramWeight: 0.5, charWeight: 1 };
  const embedders: Array<[string, HashingEmbedderSettings]> = [
    ['initial (pairs 0.5, char 1)', initial],
    ['initial, dims 768', { ...initial, dimensions: 768 }],
    ['initial, dims 1024', { ...initial, dimensions: 1024 }],
    ['initial, no pairs', { ...initial, bigramWeight: 0 }],
    ['initial, no char n-grams', { ...initial, charWeight: 0 }],
    ['initial, char 0.5', { ...initial, charWeight: 0.5 }],
    ['initial, char 2', { ...initial, charWeight: 2 }],
    ['initial, n-grams 3-4', { ...initial, maxNgram: 4 }],
    ['initial, n-grams 4-5', { ...initial, minNgram: 4 }],
    ['no pairs, char 2', { bigramWeight: 0, charWeight: 2 }],
    ['default (no pairs, char 1.5)', {}],
  ];
  for (const [label, settings] of embedders) {
    const { deps } = await buildStack(corpus, settings, {});
    console.log(line(`vector ${label}`, await evaluate(vectorSystem(deps), corpus)));
  }
  await graphSweep(corpus);
  const { deps } = await buildStack(corpus, {}, {});
  for (const vector of [0.05, 0.1, 0.2, 0.3, 0.5, 1]) {
    for (const rrfK of [1, 3, 5, 10, 20, 60]) {
      const weights = { vector, keyword: 1 };
      const scores = await evaluate(fusedSystem(deps, weights, rrfK), corpus);
      console.log(line(`fused vector ${vector} keyword 1 rrfK ${rrfK}`, scores));
    }
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      data: { type: 'string', default: sciFactDir([]) },
      split: { type: 'string', default: 'test' },
      sweep: { type: 'boolean', default: false },
      'header-weight': { type: 'string', default: '1' },
    },
  });
  headerWeight = Number(values['header-weight']);
  if (!Number.isInteger(headerWeight) || headerWeight < 1) {
    throw new Error(`--header-weight must be a whole number ≥ 1 (got ${values['header-weight']})`);
  }
  const directory = values.data;
  if (!hasSciFact(directory)) {
    console.log(
      `SciFact data not found in ${directory}; pass --data DIR. Skipping the quality benchmark.`,
    );
    return;
  }
  if (values.split !== 'test' && values.split !== 'train') {
    throw new Error(`--split must be train or test (got ${values.split})`);
  }
  const corpus = loadSplit(directory, values.split);
  console.log(
    `SciFact ${values.split}: ${corpus.documents.length} documents, ${corpus.queries.length} judged queries`,
  );
  if (values.sweep) {
    await sweep(corpus);
    return;
  }
  const { deps, indexMs } = await buildStack(corpus, {}, {});
  console.log(line('bm25 (memory keyword index)', await evaluate(bm25System(deps), corpus)));
  console.log(line(`vector (${deps.embedder.id})`, await evaluate(vectorSystem(deps), corpus)));
  console.log(
    line(
      `fused (retrieve, weights v${DEFAULT_FUSION_WEIGHTS.vector}/k${DEFAULT_FUSION_WEIGHTS.keyword})`,
      await evaluate(fusedSystem(deps, DEFAULT_FUSION_WEIGHTS), corpus),
    ),
  );
  const stemmed = await buildStack(corpus, {}, { tokenize: stemmedTerms }, true);
  console.log(
    line('bm25 stemmed (src/text/stem.ts)', await evaluate(bm25System(stemmed.deps), corpus)),
  );
  console.log(
    line(
      'fused, stemmed BM25',
      await evaluate(fusedSystem(stemmed.deps, DEFAULT_FUSION_WEIGHTS), corpus),
    ),
  );
  console.log(
    line(
      'fused, stemmed + graph rerank (γ 0.25, 2 rounds)',
      await evaluate(
        fusedSystem(stemmed.deps, DEFAULT_FUSION_WEIGHTS, undefined, {
          graphRerank: true,
          graphRerankWeight: 0.25,
        }),
        corpus,
      ),
    ),
  );
  console.log(
    line(
      'fused, stemmed + graph expansion (depth 2, w 0.3)',
      await evaluate(
        fusedSystem(stemmed.deps, { ...DEFAULT_FUSION_WEIGHTS, graph: 0.3 }, undefined, {
          graph: { depth: 2 },
          graphRerank: true,
          graphRerankWeight: 0.25,
        }),
        corpus,
      ),
    ),
  );
  console.log(
    `graph build (${corpus.documents.length} docs, memory graph store): ${stemmed.graphMs.toFixed(0)} ms`,
  );
  const stemmedEngine = await engineSystem(corpus, {
    keywordIndex: createMemoryKeywordIndex({ tokenize: stemmedTerms }),
  });
  console.log(
    line(
      'engine.search, keyword index with stemmedTerms',
      await evaluate(stemmedEngine.system, corpus),
    ),
  );
  const engine = await engineSystem(corpus);
  console.log(
    line(
      'engine.search (createChatEngine defaults, chunked)',
      await evaluate(engine.system, corpus),
    ),
  );
  console.log(
    `engine.ingest of ${corpus.documents.length} documents: ${engine.ingestMs.toFixed(0)} ms`,
  );
  const timing = await latency(deps, corpus);
  console.log(
    `\nindex build (${corpus.documents.length} docs: embed + vector upsert + keyword add): ${indexMs.toFixed(0)} ms`,
  );
  console.log(
    `retrieve latency (k 3→5, 50 candidates): p50 ${timing.p50.toFixed(3)} ms, p99 ${timing.p99.toFixed(3)} ms`,
  );
  await guardReport(deps, corpus);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main();
}
