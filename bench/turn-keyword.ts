/**
 * The memory keyword index's search at scale, this tree against another in one process:
 * `node --import tsx bench/turn-keyword.ts --before DIR [--docs 100000] [--rounds 5] [--k 50]`.
 *
 * Builds one namespace of `bench/scale.ts`'s corpus (SciFact, then generated documents: each
 * indexed as its title three times and its text, with its `documentId`) with this tree's
 * postings, then runs SciFact's test queries through this tree's `search` and through the one
 * of `--before DIR` (a checkout of the commit to compare with, `node_modules` linked) over the
 * same postings: unfiltered with `k`, and filtered on the `documentId`s of the ten best
 * matches and ten others (what the graph expansion asks, `k` = 8 per document). Checks that
 * both return the same matches (ids, scores, coverage, order: exits 1 on the first
 * difference), then times them alternately, `--rounds` rounds of every query per side, CPU
 * time (`process.cpuUsage`) per query, with the load average.
 */
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { pathToFileURL } from 'node:url';
import { tokenizeForIndex } from '../src/query/bm25.js';
import type { KeywordMatch, KeywordSearchOptions } from '../src/ports/keyword-index.js';
import { addDocument, createSpace, type Space } from '../src/adapters/memory/keyword-postings.js';
import * as after from '../src/adapters/memory/keyword-scoring.js';
import { scaleCorpus, textFlag } from './scale.js';

const flag = textFlag;
const beforeDir = resolve(flag('before', '/tmp/base-scale'));
const DOCS = Number(flag('docs', '100000'));
const ROUNDS = Number(flag('rounds', '5'));
const K = Number(flag('k', '50'));
const bm25 = { k1: 0.9, b: 0.4 };

type Search = (
  space: Space,
  terms: Map<string, number>,
  options: KeywordSearchOptions,
  parameters: typeof bm25,
) => KeywordMatch[];
const before = (await import(
  pathToFileURL(join(beforeDir, 'src/adapters/memory/keyword-scoring.ts')).href
)) as { search: Search };

const { docs, queries } = scaleCorpus(DOCS, 300, 17);
const space = createSpace();
const built = process.cpuUsage();
for (const doc of docs) {
  const header = doc.title ? `${doc.title}\n`.repeat(3) : '';
  addDocument(
    space,
    { id: doc.id, text: `${header}${doc.text}`, metadata: { documentId: doc.id } },
    tokenizeForIndex,
  );
}
const buildMs = (process.cpuUsage(built).user + process.cpuUsage(built).system) / 1000;
// The base's accumulators are its own (it keeps `matched` where this tree keeps slots).
const beforeSpace = { ...space, scores: new Float64Array(0), matched: new Float64Array(0) };
console.log(
  `${docs.length} documents, ${space.postings.size} terms, built in ${(buildMs / 1000).toFixed(1)} s CPU; ${queries.length} queries, k ${K}`,
);

interface Case {
  readonly terms: Map<string, number>;
  readonly options: KeywordSearchOptions;
}
const cases: Case[] = [];
for (const [index, query] of queries.entries()) {
  const terms = after.queryTerms(tokenizeForIndex(query));
  if (terms.size === 0) continue;
  cases.push({ terms, options: { k: K } });
  const best = before.search(beforeSpace as Space, terms, { k: 10 }, bm25).map((m) => m.id);
  const others = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map(
    (n) => docs[(index * 7919 + n * 104729) % docs.length]!.id,
  );
  const ids = [...new Set([...best, ...others])];
  cases.push({
    terms,
    options: { k: Math.min(1000, ids.length * 8), filter: { documentId: { $in: ids } } },
  });
}

for (const [at, { terms, options }] of cases.entries()) {
  const a = after.search(space, terms, options, bm25);
  const b = before.search(beforeSpace as Space, terms, options, bm25);
  if (!isDeepStrictEqual(a, b)) {
    console.log(
      `DIFFERENT at case ${at} (${[...terms.keys()].join(' ')}, ${JSON.stringify(options)})`,
    );
    console.log(JSON.stringify(a.slice(0, 5)), '\n', JSON.stringify(b.slice(0, 5)));
    process.exit(1);
  }
}
console.log(
  `identical: ${cases.length} searches (${cases.length / 2} unfiltered, ${cases.length / 2} filtered on documentId)`,
);

const time = (search: Search, target: Space, filtered: boolean): number => {
  const started = process.cpuUsage();
  let n = 0;
  for (const { terms, options } of cases) {
    if ((options.filter !== undefined) !== filtered) continue;
    search(target, terms, options, bm25);
    n++;
  }
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1000 / n;
};
const median = (values: number[]): number => [...values].sort((x, y) => x - y)[values.length >> 1]!;
for (const filtered of [false, true]) {
  const a: number[] = [];
  const b: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    b.push(time(before.search, beforeSpace as Space, filtered));
    a.push(time(after.search, space, filtered));
  }
  console.log(
    `${filtered ? 'filtered  ' : 'unfiltered'}: before ${median(b).toFixed(3)} ms (${Math.min(...b).toFixed(3)}–${Math.max(...b).toFixed(3)}), after ${median(a).toFixed(3)} ms (${Math.min(...a).toFixed(3)}–${Math.max(...a).toFixed(3)}) CPU per search; load ${loadavg()
      .map((v) => v.toFixed(1))
      .join(' ')}`,
  );
}
