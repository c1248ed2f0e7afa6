/**
 * What ingestion writes, as digests to compare two trees: run it in a copy of the commit
 * before a change and in the changed tree, and diff the output (or `--out` files).
 *
 * Per corpus (SciFact, the `docs/` pages, the handbook fixtures, the language fixtures with
 * language `'auto'` and their own, a re-ingest of the handbook):
 * - `chunks`: every chunk the vector store receives (id, metadata without the random
 *   `revision`), and `chunkText`'s chunks with exact token counts at chunk sizes 512, 256, 128;
 * - `vectors`: the vectors' bytes;
 * - `keyword`: every text the keyword index tokenizes with its terms (the postings follow from
 *   them), and its search results (ids, scores) for the corpus's questions;
 * - `graph`: every graph store write (node upserts, edge upserts, node deletes), in order;
 * - `search`: `engine.search` results (ids, scores) for the questions, from an engine with its
 *   own default stores (whose keyword index gets its terms from the ingest workers).
 *
 * ```
 * node --import tsx bench/ingest-dump.ts --data ../shared/data/scifact --docs docs [--out FILE]
 * ```
 *
 * `--concurrency N` ingests with N threads (`engine.ingest(docs, { concurrency })`; default
 * 1, the calling thread): the dump must not change with N.
 *
 * ```
 * node --import tsx bench/ingest-dump.ts --data ../shared/data/scifact --docs docs --concurrency 2
 * ```
 *
 * `--hashing D` gives both engines an embedder of the caller's, `createHashingEmbedder({
 * dimensions: D })`, as `bench:peers` does (ingestion then runs on the calling thread, the
 * engine's own hashing embedder reading the chunks' shared analysis).
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  chunkText,
  createChatEngine,
  createGptTokenizer,
  createHashingEmbedder,
  createMemoryGraphStore,
  createMemoryKeywordIndex,
  createMemoryVectorStore,
  type GraphStore,
  type IngestDocument,
  type KeywordIndex,
  type VectorStore,
} from '../src/index.js';
import { sharedIngestPool } from '../src/engine/ingest-pool.js';
import { tokenizeForIndex } from '../src/query/bm25.js';
import { createTextAnalyzer } from '../src/text/analyzer.js';
import type { LanguageSetting } from '../src/text/language-detection.js';
import { bikeShareHandbook } from '../test/fixtures/bike-share-handbook.js';
import { handbook } from '../test/fixtures/handbook.js';
import { hasSciFact, loadCorpus, loadQueries, sciFactDir } from './scifact.js';

function flag(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

const concurrency = Number(flag('--concurrency') ?? 1);
const hashing = flag('--hashing');
/** The caller's embedder of each engine (`--hashing D`), or none: the engine's default. */
const embedderOption = () =>
  hashing === undefined ? {} : { embedder: createHashingEmbedder({ dimensions: Number(hashing) }) };
// The pool `engine.ingest` loads (the same module): how many groups its workers prepared.
const pool = sharedIngestPool();

/** A running SHA-256 of JSON values. */
class Digest {
  private readonly hash = createHash('sha256');
  count = 0;
  add(value: unknown): void {
    this.hash.update(JSON.stringify(value));
    this.hash.update('\n');
    this.count++;
  }
  bytes(bytes: Uint8Array): void {
    this.hash.update(bytes);
    this.count++;
  }
  hex(): string {
    return this.hash.digest('hex').slice(0, 16);
  }
}

interface Corpus {
  readonly name: string;
  readonly docs: readonly IngestDocument[];
  readonly queries: readonly string[];
  readonly language?: LanguageSetting;
  /** Ingest the documents a second time into the same engine. */
  readonly again?: boolean;
}

function withoutRevision(metadata: Record<string, unknown> | undefined): unknown {
  const { revision: _, ...rest } = metadata ?? {};
  return rest;
}

async function dumpCorpus(corpus: Corpus): Promise<Record<string, string>> {
  const chunks = new Digest();
  const vectors = new Digest();
  const keyword = new Digest();
  const graph = new Digest();
  const memoryVectors = createMemoryVectorStore();
  const vectorStore: VectorStore = {
    ...memoryVectors,
    async upsert(namespace, records, options) {
      for (const record of records) {
        chunks.add([record.id, withoutRevision(record.metadata)]);
        const vector = Float32Array.from(record.vector);
        vectors.bytes(new Uint8Array(vector.buffer));
      }
      return memoryVectors.upsert(namespace, records, options);
    },
  };
  const analyse =
    corpus.language === undefined || corpus.language === 'auto'
      ? tokenizeForIndex
      : createTextAnalyzer({ language: corpus.language }).terms;
  const keywordIndex: KeywordIndex = createMemoryKeywordIndex({
    tokenize: (text) => {
      const terms = analyse(text);
      keyword.add([text, terms]);
      return terms;
    },
  });
  const memoryGraph = createMemoryGraphStore();
  const graphStore: GraphStore = {
    ...memoryGraph,
    async upsertNodes(namespace, nodes, options) {
      graph.add(['nodes', nodes]);
      return memoryGraph.upsertNodes(namespace, nodes, options);
    },
    async upsertEdges(namespace, edges, options) {
      graph.add(['edges', edges]);
      return memoryGraph.upsertEdges(namespace, edges, options);
    },
    async deleteNodes(namespace, ids, options) {
      graph.add(['delete', ids]);
      return memoryGraph.deleteNodes(namespace, ids, options);
    },
  };
  const engine = createChatEngine({
    vectorStore,
    keywordIndex,
    graphStore,
    ...embedderOption(),
    ...(corpus.language === undefined ? {} : { text: { language: corpus.language } }),
  });
  await engine.ingest([...corpus.docs], { concurrency });
  if (corpus.again) await engine.ingest([...corpus.docs], { concurrency });
  for (const query of corpus.queries) {
    const found = await keywordIndex.search('default', query, { k: 20 });
    keyword.add([query, found.map((match) => [match.id, match.score, match.coverage])]);
  }
  const tokenizer = await createGptTokenizer();
  for (const chunkSize of [512, 256, 128]) {
    for (const doc of corpus.docs) {
      const cut = chunkText(doc.text, { tokenizer, chunkSize, chunkOverlap: chunkSize / 8 });
      chunks.add([
        doc.id,
        chunkSize,
        cut.map((c) => [c.start, c.end, c.tokenCount, c.headingPath]),
      ]);
    }
  }
  // The engine's own stores (its keyword index gets its terms from the ingest workers): what
  // `engine.search` answers for the corpus's questions.
  const search = new Digest();
  const plain = createChatEngine({
    ...embedderOption(),
    ...(corpus.language === undefined ? {} : { text: { language: corpus.language } }),
  });
  await plain.ingest([...corpus.docs], { concurrency });
  if (corpus.again) await plain.ingest([...corpus.docs], { concurrency });
  for (const query of corpus.queries) {
    const hits = await plain.search(query, { k: 10 });
    search.add([query, hits.map((hit) => [hit.id, hit.score])]);
  }
  return {
    search: `${search.hex()} (${search.count})`,
    chunks: `${chunks.hex()} (${chunks.count})`,
    vectors: `${vectors.hex()} (${vectors.count})`,
    keyword: `${keyword.hex()} (${keyword.count})`,
    graph: `${graph.hex()} (${graph.count})`,
  };
}

function languageCorpora(): Corpus[] {
  const dir = join(import.meta.dirname, '../test/fixtures/languages');
  const corpora: Corpus[] = [];
  for (const file of readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort()) {
    const data = JSON.parse(readFileSync(join(dir, file), 'utf8')) as {
      language: LanguageSetting;
      documents: IngestDocument[];
      questions?: { question: string }[];
    };
    const queries = (data.questions ?? []).map((q) => q.question);
    const fallback = data.documents.map((doc) => doc.title ?? doc.text.slice(0, 40));
    const base = { docs: data.documents, queries: queries.length > 0 ? queries : fallback };
    corpora.push({ name: `${file} auto`, ...base });
    corpora.push({ name: `${file} ${data.language}`, ...base, language: data.language });
  }
  return corpora;
}

function docsCorpus(dir: string): Corpus {
  const docs = readdirSync(dir)
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => ({ id: name, title: name, text: readFileSync(join(dir, name), 'utf8') }));
  return { name: 'docs', docs, queries: ['What does guard mode do?', 'ingest SciFact CPU'] };
}

async function main(): Promise<void> {
  const corpora: Corpus[] = [
    { name: 'handbook', docs: handbook, queries: ['How fast are refunds?'], again: true },
    { name: 'bike-share', docs: bikeShareHandbook, queries: ['Do students get a discount?'] },
    ...languageCorpora(),
    docsCorpus(resolve(flag('--docs') ?? join(import.meta.dirname, '../docs'))),
  ];
  const dir = sciFactDir();
  if (hasSciFact(dir)) {
    corpora.push({
      name: 'scifact',
      docs: loadCorpus(dir).map((doc) => ({ id: doc.id, title: doc.title, text: doc.text })),
      queries: loadQueries(dir).map((query) => query.text),
    });
  }
  const lines: string[] = [];
  for (const corpus of corpora) {
    const parts = await dumpCorpus(corpus);
    const line = `${corpus.name}: ${Object.entries(parts)
      .map(([part, digest]) => `${part} ${digest}`)
      .join(', ')}`;
    console.log(line);
    lines.push(line);
  }
  const out = flag('--out');
  if (out !== undefined) writeFileSync(out, `${lines.join('\n')}\n`);
  // Not in the dump (it must not differ): whether the workers did the work.
  console.log(
    `concurrency ${concurrency}: workers started ${pool.started}, groups prepared by them ` +
      `${pool.answered}, failed ${pool.failed}`,
  );
}

await main();
