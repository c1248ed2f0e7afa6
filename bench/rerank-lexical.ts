/**
 * Does an offline lexical reranker help? (issue 18, seed 003 §4.3.) Reranks the top candidates
 * of the default engine's fused retrieval on SciFact with lexical features of the kind the
 * judge uses (IDF-weighted query coverage over the candidates, the best sentence's coverage,
 * adjacent query pairs), blended with the fused rank, and reports nDCG@10 against no reranker.
 *
 *   node --import tsx bench/rerank-lexical.ts [--split train|test] [--data DIR]
 *
 * The blend weights are swept on the split given (train to tune); the best one is printed.
 */
import { parseArgs } from 'node:util';
import { retrieve } from '../src/pipeline/retrieve.js';
import type { RerankCandidate, Reranker } from '../src/ports/reranker.js';
import { splitSentences } from '../src/text/sentences.js';
import { stemmedTerms } from '../src/text/stem.js';
import { dedupe, meanMetric, ndcgAtK } from './metrics.js';
import { buildStack, loadSplit } from './quality.js';
import { hasSciFact, sciFactDir } from './scifact.js';

interface Blend {
  readonly rank: number;
  readonly coverage: number;
  readonly sentence: number;
  readonly pairs: number;
}

/** Lexical features of each candidate against the query, in [0, 1]. */
function features(query: string, candidates: readonly RerankCandidate[]) {
  const terms = [...new Set(stemmedTerms(query))];
  const pairs = new Set<string>();
  const queryStems = stemmedTerms(query);
  for (let i = 1; i < queryStems.length; i++) pairs.add(`${queryStems[i - 1]} ${queryStems[i]}`);
  const docs = candidates.map((candidate) => stemmedTerms(candidate.text));
  const df = new Map<string, number>();
  for (const stems of docs)
    for (const term of new Set(stems)) df.set(term, (df.get(term) ?? 0) + 1);
  const idf = (term: string) => Math.log(1 + (candidates.length + 1) / ((df.get(term) ?? 0) + 0.5));
  const total = terms.reduce((sum, term) => sum + idf(term), 0) || 1;
  const top = Math.max(...candidates.map((candidate) => candidate.score), 1e-9);
  return candidates.map((candidate, index) => {
    const stems = new Set(docs[index]);
    const coverage =
      terms.reduce((sum, term) => sum + (stems.has(term) ? idf(term) : 0), 0) / total;
    let sentence = 0;
    for (const span of splitSentences(candidate.text)) {
      const inSentence = new Set(stemmedTerms(span.text));
      const covered = terms.reduce((sum, term) => sum + (inSentence.has(term) ? idf(term) : 0), 0);
      sentence = Math.max(sentence, covered / total);
    }
    const list = docs[index]!;
    let pairHits = 0;
    const seen = new Set<string>();
    for (let i = 1; i < list.length; i++) {
      const pair = `${list[i - 1]} ${list[i]}`;
      if (pairs.has(pair) && !seen.has(pair)) {
        seen.add(pair);
        pairHits++;
      }
    }
    return {
      id: candidate.id,
      rank: candidate.score / top,
      coverage,
      sentence,
      pairs: pairs.size === 0 ? 0 : pairHits / pairs.size,
    };
  });
}

function lexicalReranker(blend: Blend): Reranker {
  return {
    name: 'lexical',
    specificationVersion: 'v1',
    async rerank(query, candidates) {
      return features(query, candidates)
        .map((f) => ({
          id: f.id,
          score:
            (blend.rank * f.rank +
              blend.coverage * f.coverage +
              blend.sentence * f.sentence +
              blend.pairs * f.pairs) /
            (blend.rank + blend.coverage + blend.sentence + blend.pairs),
        }))
        .sort((a, b) => b.score - a.score);
    },
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { split: { type: 'string', default: 'train' }, data: { type: 'string' } },
  });
  const dir = values.data ?? sciFactDir();
  if (!hasSciFact(dir)) {
    console.log(`SciFact not found in ${dir}; pass --data DIR.`);
    return;
  }
  const split = values.split === 'test' ? 'test' : 'train';
  const corpus = loadSplit(dir, split);
  // The default fused retrieval over title + text, as `bench:quality` measures it.
  const { deps } = await buildStack(corpus, {}, {});
  const score = async (reranker: Reranker | undefined): Promise<number> => {
    const run = new Map<string, string[]>();
    for (const query of corpus.queries) {
      const result = await retrieve(
        query.text,
        { ...deps, reranker },
        {
          namespace: 'scifact',
          k: 100,
          maxK: 100,
          candidates: 100,
          threshold: 0,
          rerank: reranker !== undefined,
        },
      );
      run.set(query.id, dedupe(result.chunks.map((chunk) => chunk.documentId)));
    }
    return meanMetric(run, corpus.qrels, (ranking, judgements) => ndcgAtK(ranking, judgements, 10));
  };
  const none = await score(undefined);
  console.log(
    `${split}: no reranker nDCG@10 ${none.toFixed(4)} (${corpus.queries.length} queries)`,
  );
  let best = { blend: undefined as Blend | undefined, ndcg: none };
  const fixed = process.env.BLEND ? (JSON.parse(process.env.BLEND) as Blend) : undefined;
  const blends: Blend[] = fixed ? [fixed] : [];
  if (!fixed) {
    for (const rank of [1, 2, 4])
      for (const coverage of [0, 0.5, 1])
        for (const sentence of [0, 0.5, 1])
          for (const pairs of [0, 0.25, 0.5])
            if (coverage + sentence + pairs > 0) blends.push({ rank, coverage, sentence, pairs });
  }
  for (const blend of blends) {
    const ndcg = await score(lexicalReranker(blend));
    const delta = ndcg - none;
    console.log(
      `${JSON.stringify(blend)} nDCG@10 ${ndcg.toFixed(4)} (${delta >= 0 ? '+' : ''}${delta.toFixed(4)})`,
    );
    if (ndcg > best.ndcg) best = { blend, ndcg };
  }
  console.log(
    `best on ${split}: ${JSON.stringify(best.blend ?? 'none')} nDCG@10 ${best.ndcg.toFixed(4)}`,
  );
}

await main();
