/**
 * Extractive-answer benchmark (`node --import tsx bench/extractive-answers.ts`): the offline
 * model's answers to the docs questions of `bench/trust-docs-questions.ts` (and the e-bike
 * handbook's), over an engine that ingested the pages. Per question set it reports how many
 * answers state the expected fact, and the share of quoted sentences citing a page other than
 * the one that answers (issue 13 targets: ≥ 90 % and ≤ 10 %), also counted over the answers
 * whose answering page retrieval found (when it did not, every quote is from another page
 * whatever the model does). Two engines: the defaults (the guard may refuse), and the guard
 * off (`minSimilarity: 0`) to measure the model alone. `--misses` lists the answers that do
 * not state the fact.
 */
import { bikeShareHandbook } from '../test/fixtures/bike-share-handbook.js';
import { createChatEngine } from '../src/index.js';
import { loadDocsPages } from './trust.js';
import {
  BIKE_QUESTIONS,
  DOCS_QUESTIONS,
  splitHalves,
  type DocsQuestion,
} from './trust-docs-questions.js';

interface Row {
  readonly set: string;
  readonly guard: string;
  readonly questions: number;
  readonly answered: number;
  readonly 'fact stated': string;
  readonly 'fact stated (answered)': string;
  readonly 'quoted sentences': number;
  readonly 'from another page': string;
  readonly 'from another page (page retrieved)': string;
}

const percent = (part: number, whole: number): string =>
  whole === 0 ? '—' : `${((100 * part) / whole).toFixed(1)} %`;

async function measure(
  set: string,
  pages: readonly { id: string; title: string; text: string }[],
  questions: readonly DocsQuestion[],
  guardOff: boolean,
  misses: string[],
): Promise<Row> {
  const engine = createChatEngine(guardOff ? { retrieval: { minSimilarity: 0 } } : {});
  await engine.ingest(pages);
  let answered = 0;
  let stated = 0;
  let quoted = 0;
  let foreign = 0;
  let quotedRetrieved = 0;
  let foreignRetrieved = 0;
  for (const item of questions) {
    const reply = await engine.chat({ message: item.question, mode: 'query' });
    if (reply.sources.length === 0) continue;
    answered++;
    if (reply.text.toLowerCase().includes(item.fact.toLowerCase())) stated++;
    else if (guardOff) misses.push(`${set}: ${item.question}\n    → ${reply.text.slice(0, 240)}`);
    const pageOf = new Map(reply.sources.map((source) => [source.id, source.documentId]));
    const retrieved = reply.sources.some((source) => source.documentId === item.page);
    for (const match of reply.text.matchAll(/\[source: ([^\]]+)\]/g)) {
      const other = pageOf.get(match[1]!.trim()) !== item.page;
      quoted++;
      if (other) foreign++;
      if (retrieved) {
        quotedRetrieved++;
        if (other) foreignRetrieved++;
      }
    }
  }
  return {
    set,
    guard: guardOff ? 'off' : 'default',
    questions: questions.length,
    answered,
    'fact stated': percent(stated, questions.length),
    'fact stated (answered)': percent(stated, answered),
    'quoted sentences': quoted,
    'from another page': percent(foreign, quoted),
    'from another page (page retrieved)': `${percent(foreignRetrieved, quotedRetrieved)} of ${quotedRetrieved}`,
  };
}

async function main(): Promise<void> {
  const docs = loadDocsPages();
  const { tune, test } = splitHalves(DOCS_QUESTIONS);
  const rows: Row[] = [];
  const misses: string[] = [];
  for (const guardOff of [false, true]) {
    rows.push(await measure('docs (tune half)', docs, tune, guardOff, misses));
    rows.push(await measure('docs (test half)', docs, test, guardOff, misses));
    rows.push(
      await measure('e-bike handbook', bikeShareHandbook, BIKE_QUESTIONS, guardOff, misses),
    );
  }
  console.table(rows);
  if (process.argv.includes('--misses')) console.log(misses.join('\n'));
}

await main();
