/**
 * Learning from feedback on SciFact: simulated users rate the sources of answers to the
 * *train* claims (relevant sources helpful, the top irrelevant source unhelpful), then
 * nDCG@10 is measured on the test claims (must not drop more than 0.005) and on the train
 * claims asked again (must rise by ≥ 0.05).
 *
 *   node --import tsx bench/learning.ts [--data DIR] [--sweep] [--harness]
 *
 * `--sweep` tunes the boost settings on the train split only: gain on the train claims asked
 * again, the similarity floor on a 2-fold split of train (feedback on one half, measured on
 * the other), by reranking cached `engine.search` results with the boost applied the way
 * retrieval applies it (fused score × graphBoost^0.25 × learned boost). `--harness` uses that
 * reranking instead of `engine.feedback` for the main table too.
 */
import { readFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

import { createHashingEmbedder } from '../src/adapters/hashing/embedder.js';
import { createChatEngine } from '../src/index.js';
import {
  createLearnedBoost,
  feedbackSignals,
  type LearnedBoostSettings,
} from '../src/learning/learned-boost.js';
import type { Source } from '../src/ports/chat-records.js';
import { DEFAULT_GRAPH_RERANK_WEIGHT } from '../src/pipeline/retrieve.js';
import { dedupe, meanMetric, ndcgAtK, parseQrels, type Qrels } from './metrics.js';
import { hasSciFact, loadCorpus, loadQueries, sciFactDir, type SciFactQuery } from './scifact.js';

type Engine = ReturnType<typeof createChatEngine>;

/** One simulated rating: what `engine.feedback` is given, plus the question it rates. */
interface Rating {
  readonly query: string;
  readonly messageId: string;
  readonly sources: readonly Source[];
  readonly rating: 'good' | 'bad';
  readonly sourceHelpfulness: Record<string, number>;
}

const QUERIES_PER_SESSION = 20;
const USER = 'sim';

function ndcg10(run: Map<string, string[]>, qrels: Qrels): number {
  return meanMetric(run, qrels, (ranking, judgements) => ndcgAtK(ranking, judgements, 10));
}

function judged(queries: readonly SciFactQuery[], qrels: Qrels): SciFactQuery[] {
  return queries.filter((query) => qrels.has(query.id));
}

/** `engine.search` results per query id (k 100), kept for reranking. */
async function searchAll(
  engine: Engine,
  queries: readonly SciFactQuery[],
): Promise<Map<string, Source[]>> {
  const results = new Map<string, Source[]>();
  for (const query of queries) results.set(query.id, await engine.search(query.text, { k: 100 }));
  return results;
}

function toRun(results: ReadonlyMap<string, readonly Source[]>): Map<string, string[]> {
  return new Map(
    [...results].map(([id, sources]) => [id, dedupe(sources.map((source) => source.documentId))]),
  );
}

/** Simulated users: one chat per train claim, rated against qrels-train. */
async function simulate(
  engine: Engine,
  queries: readonly SciFactQuery[],
  qrels: Qrels,
): Promise<Rating[]> {
  const ratings: Rating[] = [];
  let sessionId: string | undefined;
  for (const [index, query] of queries.entries()) {
    if (index % QUERIES_PER_SESSION === 0) sessionId = undefined;
    const reply = await engine.chat({
      ...(sessionId === undefined ? {} : { sessionId }),
      userId: USER,
      message: query.text,
      topK: 10,
    });
    sessionId = reply.sessionId ?? undefined;
    const relevant = qrels.get(query.id) ?? new Map<string, number>();
    const sourceHelpfulness: Record<string, number> = {};
    let anyRelevant = false;
    let irrelevantRated = false;
    for (const source of reply.sources) {
      if ((relevant.get(source.documentId) ?? 0) > 0) {
        sourceHelpfulness[source.id] = 1;
        anyRelevant = true;
      } else if (!irrelevantRated) {
        sourceHelpfulness[source.id] = 0;
        irrelevantRated = true;
      }
    }
    ratings.push({
      query: query.text,
      messageId: reply.messageId,
      sources: reply.sources,
      rating: anyRelevant ? 'good' : 'bad',
      sourceHelpfulness,
    });
  }
  return ratings;
}

/** Reorders cached search results as retrieval would with the learned boost. */
function rerank(
  results: ReadonlyMap<string, readonly Source[]>,
  vectors: ReadonlyMap<string, Float32Array>,
  boost: (chunkId: string, vector: Float32Array) => number,
): Map<string, string[]> {
  const run = new Map<string, string[]>();
  for (const [id, sources] of results) {
    const vector = vectors.get(id)!;
    const ranked = sources
      .map((source) => ({
        documentId: source.documentId,
        score:
          source.fusedScore *
          source.graphBoost ** DEFAULT_GRAPH_RERANK_WEIGHT *
          boost(source.chunkId, vector),
      }))
      .sort((a, b) => b.score - a.score);
    run.set(id, dedupe(ranked.map((source) => source.documentId)));
  }
  return run;
}

async function embedAll(queries: readonly { id: string; text: string }[]) {
  const embedder = createHashingEmbedder();
  const vectors = await embedder.embed(queries.map((query) => query.text));
  return new Map(queries.map((query, index) => [query.id, vectors[index]!]));
}

function harnessBoost(
  ratings: readonly Rating[],
  queryVectors: ReadonlyMap<string, Float32Array>,
  settings: LearnedBoostSettings,
) {
  const model = createLearnedBoost(settings);
  for (const rating of ratings) {
    const vector = queryVectors.get(rating.query)!;
    for (const { chunkId, signal } of feedbackSignals(
      rating.sources,
      rating.sourceHelpfulness,
      rating.rating,
    )) {
      if (signal !== 0) model.record({ queryVector: vector, chunkId, signal });
    }
  }
  return model;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      data: { type: 'string', default: sciFactDir([]) },
      sweep: { type: 'boolean', default: false },
      harness: { type: 'boolean', default: false },
    },
  });
  const directory = values.data;
  if (!hasSciFact(directory)) {
    console.log(`SciFact data not found in ${directory}; pass --data DIR. Skipping.`);
    return;
  }
  const documents = loadCorpus(directory);
  const testQrels = parseQrels(readFileSync(join(directory, 'qrels-test.tsv'), 'utf8'));
  const trainQrels = parseQrels(readFileSync(join(directory, 'qrels-train.tsv'), 'utf8'));
  const test = judged(loadQueries(directory, 'test'), testQrels);
  const train = judged(loadQueries(directory, 'train'), trainQrels);

  const engine = createChatEngine();
  await engine.ingest(documents);
  const baselineTest = await searchAll(engine, test);
  const baselineTrain = await searchAll(engine, train);
  const before = {
    test: ndcg10(toRun(baselineTest), testQrels),
    train: ndcg10(toRun(baselineTrain), trainQrels),
  };

  const started = performance.now();
  const ratings = await simulate(engine, train, trainQrels);
  const chatMs = performance.now() - started;
  const good = ratings.filter((rating) => rating.rating === 'good').length;

  const byText = await embedAll(
    ratings.map((rating) => ({ id: rating.query, text: rating.query })),
  );
  const testVectors = await embedAll(test);
  const trainVectors = await embedAll(train);

  if (values.sweep) {
    // Train only: gain on the same claims asked again; floor on a 2-fold split of train.
    const folds = [0, 1].map((fold) => ({
      feedback: ratings.filter((_, index) => index % 2 === fold),
      heldOut: new Map([...baselineTrain].filter((_, index) => index % 2 !== fold)),
    }));
    // Each half is scored on its own judgements.
    const halfQrels = (results: ReadonlyMap<string, unknown>): Qrels =>
      new Map([...trainQrels].filter(([id]) => results.has(id)));
    const heldOutBase =
      folds.reduce((sum, fold) => sum + ndcg10(toRun(fold.heldOut), halfQrels(fold.heldOut)), 0) /
      2;
    console.log(`sweep (train only): held-out half baseline nDCG@10 ${heldOutBase.toFixed(4)}`);
    console.log('| floor | gain | train again | Δ | held-out train half | Δ |');
    console.log('| ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const similarityFloor of [0.2, 0.3, 0.4, 0.5, 0.6, 0.7]) {
      for (const gain of [0.25, 0.5, 1, 2, 4]) {
        const settings = { similarityFloor, gain };
        const model = harnessBoost(ratings, byText, settings);
        const again = ndcg10(rerank(baselineTrain, trainVectors, model.boost), trainQrels);
        let heldOut = 0;
        for (const fold of folds) {
          const half = harnessBoost(fold.feedback, byText, settings);
          const run = rerank(fold.heldOut, trainVectors, half.boost);
          heldOut += ndcg10(run, halfQrels(fold.heldOut)) / 2;
        }
        console.log(
          `| ${similarityFloor} | ${gain} | ${again.toFixed(4)} | ${(again - before.train).toFixed(4)} | ${heldOut.toFixed(4)} | ${(heldOut - heldOutBase).toFixed(4)} |`,
        );
      }
    }
    return;
  }

  let after: { test: number; train: number };
  let path: string;
  const feedback = (engine as { feedback?: (params: unknown) => Promise<unknown> }).feedback;
  if (!values.harness && typeof feedback === 'function') {
    path = 'engine.feedback → engine.search';
    for (const rating of ratings) {
      await feedback.call(engine, {
        messageId: rating.messageId,
        userId: USER,
        rating: rating.rating,
        sourceHelpfulness: rating.sourceHelpfulness,
      });
    }
    after = {
      test: ndcg10(toRun(await searchAll(engine, test)), testQrels),
      train: ndcg10(toRun(await searchAll(engine, train)), trainQrels),
    };
  } else {
    path = 'harness (createLearnedBoost defaults, cached search reranked)';
    const model = harnessBoost(ratings, byText, {});
    after = {
      test: ndcg10(rerank(baselineTest, testVectors, model.boost), testQrels),
      train: ndcg10(rerank(baselineTrain, trainVectors, model.boost), trainQrels),
    };
  }

  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  console.log(
    `\nMachine: ${cpu} × ${cpus().length}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`,
  );
  console.log('Command: `node --import tsx bench/learning.ts`');
  console.log(
    `Feedback: ${ratings.length} train claims (${good} good, ${ratings.length - good} bad), ${Math.ceil(ratings.length / QUERIES_PER_SESSION)} sessions, chats ${(chatMs / 1000).toFixed(1)} s; path: ${path}\n`,
  );
  const delta = (value: number): string => `${value >= 0 ? '+' : ''}${value.toFixed(4)}`;
  console.log('| nDCG@10 (SciFact) | no feedback | after feedback | Δ | target |');
  console.log('| --- | ---: | ---: | ---: | --- |');
  console.log(
    `| test claims (${test.length}) | ${before.test.toFixed(4)} | ${after.test.toFixed(4)} | ${delta(after.test - before.test)} | ≥ −0.005 ${after.test - before.test >= -0.005 ? '✓' : '✗'} |`,
  );
  console.log(
    `| train claims asked again (${train.length}) | ${before.train.toFixed(4)} | ${after.train.toFixed(4)} | ${delta(after.train - before.train)} | ≥ +0.05 ${after.train - before.train >= 0.05 ? '✓' : '✗'} |`,
  );
}

await main();
