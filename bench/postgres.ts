/**
 * The Postgres keyword index against the in-memory BM25 on SciFact (test split): nDCG@10,
 * recall@100, identical top-10 rankings, search and filtered-search latency, ingest time and
 * table sizes, in a fresh schema dropped afterwards.
 * Run: `CORTEXIS_TEST_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:postgres`.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { createMemoryKeywordIndex } from '../src/adapters/memory/keyword-index.js';
import { createPostgresStores } from '../src/adapters/postgres/index.js';
import { hasSciFact, loadCorpus, loadQueries, sciFactDir } from './scifact.js';
import { meanMetric, ndcgAtK, parseQrels, percentile, recallAtK } from './metrics.js';
import type { KeywordIndex } from '../src/ports/keyword-index.js';

const url = process.env['CORTEXIS_TEST_POSTGRES_URL'];
const dir = sciFactDir();
if (!url || !hasSciFact(dir)) {
  console.error(
    !url
      ? 'Set CORTEXIS_TEST_POSTGRES_URL (e.g. postgres://postgres@127.0.0.1:5432/test).'
      : `No SciFact data in ${dir} (use --data DIR).`,
  );
  process.exit(1);
}
const corpus = loadCorpus(dir);
const queries = loadQueries(dir, 'test');
const qrels = parseQrels(readFileSync(`${dir}/qrels-test.tsv`, 'utf8'));
const records = corpus.map((d) => ({
  id: d.id,
  text: `${d.title}\n${d.text}`,
  metadata: { title: d.title },
}));
const schema = `kwbench_${Date.now()}`;
const stores = await createPostgresStores({ connectionString: url, schema });
const memory = createMemoryKeywordIndex();
try {
  let start = performance.now();
  await memory.add('scifact', records);
  const memoryIngest = performance.now() - start;
  start = performance.now();
  for (let i = 0; i < records.length; i += 500)
    await stores.keywordIndex.add('scifact', records.slice(i, i + 500));
  const pgIngest = performance.now() - start;
  await stores.pool.query(`ANALYZE "${schema}".keyword_postings`);
  await stores.pool.query(`VACUUM "${schema}".keyword_postings`).catch(() => {});
  async function run(index: KeywordIndex) {
    const ranking = new Map<string, string[]>();
    const times: number[] = [];
    for (const q of queries) {
      const t = performance.now();
      const matches = await index.search('scifact', q.text, { k: 100 });
      times.push(performance.now() - t);
      ranking.set(
        q.id,
        matches.map((m) => m.id),
      );
    }
    return { ranking, times };
  }
  const m = await run(memory);
  const p = await run(stores.keywordIndex);
  const filtered: number[] = [];
  for (const q of queries.slice(0, 100)) {
    const t = performance.now();
    await stores.keywordIndex.search('scifact', q.text, {
      k: 10,
      filter: { title: { $gte: 'M' } },
    });
    filtered.push(performance.now() - t);
  }
  let same10 = 0;
  for (const q of queries) {
    const a = m.ranking.get(q.id)!.slice(0, 10).join();
    const b = p.ranking.get(q.id)!.slice(0, 10).join();
    if (a === b) same10++;
  }
  const ndcg = (r: Map<string, string[]>) => meanMetric(r, qrels, (x, j) => ndcgAtK(x, j, 10));
  const recall = (r: Map<string, string[]>) => meanMetric(r, qrels, (x, j) => recallAtK(x, j, 100));
  const { rows } = await stores.pool.query(
    `SELECT pg_total_relation_size('"${schema}".keyword_postings') AS postings, pg_total_relation_size('"${schema}".keyword_records') AS records, (SELECT count(*) FROM "${schema}".keyword_postings) AS n`,
  );
  console.log(
    JSON.stringify(
      {
        documents: records.length,
        queries: queries.length,
        memory: {
          ndcg10: ndcg(m.ranking),
          recall100: recall(m.ranking),
          ingestMs: memoryIngest,
          p50: percentile(m.times, 50),
          p95: percentile(m.times, 95),
        },
        postgres: {
          ndcg10: ndcg(p.ranking),
          recall100: recall(p.ranking),
          ingestMs: pgIngest,
          p50: percentile(p.times, 50),
          p95: percentile(p.times, 95),
          filteredP50: percentile(filtered, 50),
        },
        identicalTop10: same10,
        sizes: rows[0],
      },
      null,
      2,
    ),
  );
} finally {
  await stores.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await stores.close();
}
