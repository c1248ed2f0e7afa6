/**
 * A digest of the memory keyword index's snapshot bytes after a SciFact ingest into it on the
 * calling thread (as the engine's own index: `keywordLanguage: 'auto'`), with the tree in
 * `--root DIR` (default: this one). The chunks' revision ids (random per ingest) are replaced
 * before hashing; run it in two trees and compare the lines: a change to the keyword analysis
 * or the postings that keeps the index must print the same digest.
 *
 * ```
 * node --import tsx bench/ingest-snapshot.ts --data ../shared/data/scifact [--root /tmp/base]
 * ```
 */
import { createHash } from 'node:crypto';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { hasSciFact, loadCorpus, sciFactDir } from './scifact.js';

function flag(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

/** Bytes before a snapshot's JSON (`src/adapters/memory/snapshot.ts`). */
const HEADER_BYTES = 24;

const root = resolve(flag('--root') ?? join(import.meta.dirname, '..'));
/** The factories of the tree's entry and its `ingestDocuments`, loosely typed (any tree). */
type Factories = Record<string, (...args: never[]) => never>;
const [index, ingest] = (await Promise.all(
  ['src/index.ts', 'src/ingest/ingest.ts'].map(
    (path) => import(pathToFileURL(join(root, path)).href),
  ),
)) as [Factories, { ingestDocuments: (...args: unknown[]) => Promise<{ chunks: number }> }];
const dir = sciFactDir();
if (!hasSciFact(dir)) throw new Error(`SciFact not found in ${dir} (pass --data DIR)`);
const docs = loadCorpus(dir).map((doc) => ({ id: doc.id, title: doc.title, text: doc.text }));
const keywordIndex = index.createMemoryKeywordIndex!() as unknown as {
  snapshot(): Uint8Array;
};
const result = await ingest.ingestDocuments(
  {
    vectorStore: index.createMemoryVectorStore!(),
    keywordIndex,
    embedder: index.createHashingEmbedder!(),
    tokenizer: await index.createGptTokenizer!(),
  },
  docs,
  {
    namespace: 'default',
    chunkSize: 512,
    chunkOverlap: 64,
    maxDocumentLength: 10_000_000,
    keywordLanguage: 'auto',
  },
);
const bytes = keywordIndex.snapshot();
const json = new TextDecoder()
  .decode(bytes.subarray(HEADER_BYTES))
  .replace(/"revision":"[0-9A-Z]{26}"/g, '"revision":"-"');
const digest = createHash('sha256').update(json).digest('hex').slice(0, 16);
console.log(`${root}: ${result.chunks} chunks, keyword snapshot ${bytes.length} bytes, ${digest}`);
