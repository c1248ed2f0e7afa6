/**
 * An ingest worker: prepares groups of documents (chunks, token counts, vectors) off the
 * calling thread with the engine's defaults, known by their settings: the default chunker, the
 * hashing embedder of the job's settings (default: the engine's) and the tokenizer named in the
 * job. Built as
 * `dist/ingest-worker.js` (tsup.config.ts); started by `ingest-pool.ts`. Like
 * `engine/runtime.ts`, it picks concrete adapters, the default ones only.
 */
import { parentPort } from 'node:worker_threads';
import { createHashingEmbedder } from '../adapters/hashing/embedder.js';
import { defaultKeywordTerms } from '../adapters/memory/keyword-index.js';
import { createEstimateTokenizer } from '../adapters/tokenizer/estimate.js';
import { createGptTokenizer, type GptEncodingName } from '../adapters/tokenizer/gpt-tokenizer.js';
import { prepareJob, type PrepareJob } from '../ingest/prepare.js';
import type { EmbeddingProvider } from '../ports/embedding-provider.js';
import type { Tokenizer } from '../ports/tokenizer.js';
import type { IngestWorkerReply } from './ingest-protocol.js';

/** Hashing embedders by their settings (`''`: the default), each reused across jobs. */
const embedders = new Map<string, EmbeddingProvider>();

/**
 * Distinct settings whose embedders a worker keeps: each remembers the features of up to 200k
 * words, and a process rarely has more than one or two.
 */
const EMBEDDERS_KEPT = 4;

/** The hashing embedder a job names by its settings, built once. */
function embedderFor(job: PrepareJob): EmbeddingProvider {
  // The settings come from one function (`createHashingEmbedder`), so their key order is fixed.
  const key = job.embedder === undefined ? '' : JSON.stringify(job.embedder);
  let embedder = embedders.get(key);
  if (!embedder) {
    if (embedders.size >= EMBEDDERS_KEPT) embedders.delete(embedders.keys().next().value!);
    embedder = createHashingEmbedder(job.embedder);
    embedders.set(key, embedder);
  }
  return embedder;
}
const tokenizers = new Map<string, Promise<Tokenizer>>();

/** The tokenizer a job names: one the engine picks by default, loaded once. */
function tokenizerNamed(name: string): Promise<Tokenizer> {
  let tokenizer = tokenizers.get(name);
  if (!tokenizer) {
    if (name === 'utf8-estimate') tokenizer = Promise.resolve(createEstimateTokenizer());
    else if (name === 'cl100k_base' || name === 'o200k_base') {
      tokenizer = createGptTokenizer({ encoding: name satisfies GptEncodingName });
    } else return Promise.reject(new Error(`no default tokenizer is named '${name}'`));
    tokenizers.set(name, tokenizer);
  }
  return tokenizer;
}

const keywordTerms = new Map<string, (text: string) => string[]>();

/** The default keyword index's analysis in the job's language, when the job asks for terms. */
function keywordTermsFor(job: PrepareJob): ((text: string) => string[]) | undefined {
  const language = job.keywordLanguage;
  if (language === undefined) return undefined;
  let terms = keywordTerms.get(language);
  if (!terms) {
    terms = defaultKeywordTerms(language);
    keywordTerms.set(language, terms);
  }
  return terms;
}

const port = parentPort;
if (!port) throw new Error('the ingest worker runs in a worker thread');
port.on('message', (job: PrepareJob) => {
  tokenizerNamed(job.tokenizer)
    .then((tokenizer) => prepareJob(job, tokenizer, embedderFor(job), keywordTermsFor(job)))
    .then(
      (wire) => {
        const reply: IngestWorkerReply = { type: 'prepared', wire };
        port.postMessage(reply, [wire.vectors.buffer as ArrayBuffer]);
      },
      (error: unknown) => {
        const failure = error instanceof Error ? error : new Error(String(error));
        const reply: IngestWorkerReply = {
          type: 'error',
          name: failure.name,
          message: failure.message,
        };
        port.postMessage(reply);
      },
    );
});
port.postMessage({ type: 'ready' } satisfies IngestWorkerReply);
