/**
 * Trust benchmark (issue 13): does an answer tell the user how far to trust it, on corpora the
 * defaults were never tuned on? `createChatEngine()` defaults (offline), one stateless turn per
 * question. Corpora: SciFact (relevance by the qrels), this repository's `docs/` (questions in
 * `bench/trust-docs-questions.ts`), corpora of 1, 3 and 10 docs pages cut from it, and the
 * 8-page e-bike handbook of `test/fixtures/bike-share-handbook.ts`.
 *
 * Per corpus: answerable questions answered with the right top source, off-topic questions
 * refused, per-level precision (share of answers whose top source is relevant), ECE (10 bins)
 * of `overall` against "top source relevant and the answer states the fact" (SciFact: relevant
 * only), and the judge's view of the answers. Reported on the test parts (SciFact test claims,
 * odd docs questions); `--part tune` reports the tuning parts.
 *
 *   npm run bench:trust                       # test parts
 *   npm run bench:trust -- --part tune        # tuning parts
 *   npm run bench:trust -- --scifact 100      # SciFact claims per part (default 300; 0 skips)
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createChatEngine, type ChatResponse } from '../src/index.js';
import { parseQrels } from './metrics.js';
import { hasSciFact, loadCorpus, loadQueries, sciFactDir } from './scifact.js';
import { bikeShareHandbook } from '../test/fixtures/bike-share-handbook.js';
import {
  BIKE_QUESTIONS,
  DOCS_OFF_TOPIC,
  DOCS_QUESTIONS,
  splitHalves,
} from './trust-docs-questions.js';

/** One question of a corpus. */
export interface TrustCase {
  readonly question: string;
  /** Documents whose top rank counts as relevant; empty for off-topic questions. */
  readonly relevant: ReadonlySet<string>;
  /** The fact the answer must state (docs); undefined: relevance alone (SciFact). */
  readonly fact?: string | undefined;
}

/** One corpus with its questions. */
export interface TrustCorpus {
  readonly name: string;
  readonly documents: readonly { id: string; title: string; text: string }[];
  readonly cases: readonly TrustCase[];
  /** Share of answerable questions that must be answered (0.95; SciFact 0.9). */
  readonly answeredTarget: number;
}

/** What one turn gave. */
export interface TrustOutcome {
  readonly corpus: string;
  readonly answerable: boolean;
  readonly answered: boolean;
  readonly topRelevant: boolean;
  readonly factStated: boolean;
  /** Top source relevant and (docs) the fact stated: the event `overall` should predict. */
  readonly correct: boolean;
  readonly overall: number;
  readonly level: ChatResponse['confidence']['level'];
  readonly confidence: ChatResponse['confidence'];
  readonly topScore: number;
  readonly scores: readonly number[];
  readonly supportedRatio: number | null;
  /** The top source (features for `bench/fit-confidence.ts`). */
  readonly top: ChatResponse['sources'][number] | null;
  readonly question: string;
}

const normalize = (text: string): string => text.toLowerCase().replace(/\s+/g, ' ');

/** Runs every question of a corpus through a fresh engine. */
export async function runCorpus(
  corpus: TrustCorpus,
  config: Parameters<typeof createChatEngine>[0] = {},
): Promise<TrustOutcome[]> {
  const engine = createChatEngine(config);
  await engine.ingest(corpus.documents.map((document) => ({ ...document })));
  return askCorpus(engine, corpus);
}

/** Asks every question of a corpus an engine has ingested (the ablation reuses one engine). */
export async function askCorpus(
  engine: ReturnType<typeof createChatEngine>,
  corpus: TrustCorpus,
): Promise<TrustOutcome[]> {
  let topScore = 0;
  const stop = engine.on('retrieval', (event) => (topScore = event.topScore));
  const outcomes: TrustOutcome[] = [];
  for (const item of corpus.cases) {
    topScore = 0;
    const reply = await engine.chat({ message: item.question, mode: 'query' });
    const top = reply.sources[0];
    const answered = !reply.guard && top !== undefined;
    const topRelevant = answered && item.relevant.has(top.documentId);
    const factStated =
      item.fact === undefined || normalize(reply.text).includes(normalize(item.fact));
    outcomes.push({
      corpus: corpus.name,
      question: item.question,
      answerable: item.relevant.size > 0,
      answered,
      topRelevant,
      factStated: answered && factStated,
      correct: topRelevant && factStated,
      overall: reply.confidence.overall,
      level: reply.confidence.level,
      confidence: reply.confidence,
      topScore,
      scores: reply.sources.map((source) => source.score),
      top: top ?? null,
      supportedRatio: reply.grounding?.supportedRatio ?? null,
    });
  }
  stop();
  return outcomes;
}

/** Expected calibration error over 10 equal-width bins of `predicted`. */
export function expectedCalibrationError(
  predicted: readonly number[],
  actual: readonly boolean[],
  bins = 10,
): number {
  if (predicted.length === 0) return 0;
  const sums = Array.from({ length: bins }, () => ({ n: 0, p: 0, y: 0 }));
  predicted.forEach((value, index) => {
    const bin = sums[Math.min(bins - 1, Math.floor(value * bins))]!;
    bin.n++;
    bin.p += value;
    bin.y += actual[index] ? 1 : 0;
  });
  return (
    sums.reduce((sum, bin) => sum + (bin.n === 0 ? 0 : Math.abs(bin.p - bin.y)), 0) /
    predicted.length
  );
}

const DOCS_DIR = join(import.meta.dirname, '../docs');

/**
 * Pages left out of the docs corpus: `benchmarks.md` is this benchmark's own report. It quotes
 * the benchmark's questions and misses word for word ("How do I bake sourdough bread?", "What
 * happens in the half-open breaker state?"), so with it in the corpus the questions retrieve
 * their own report: two of the three off-topic test questions answered on the docs corpus were
 * answered from it. No real corpus holds its own question set.
 */
const NOT_IN_DOCS_CORPUS = new Set(['benchmarks.md']);

/** The docs pages as documents (id = file name without `.md`). */
export function loadDocsPages(): { id: string; title: string; text: string }[] {
  return readdirSync(DOCS_DIR)
    .filter((file) => file.endsWith('.md') && !NOT_IN_DOCS_CORPUS.has(file))
    .sort()
    .map((file) => {
      const text = readFileSync(join(DOCS_DIR, file), 'utf8');
      const id = file.slice(0, -3);
      return { id, title: /^#\s+(.+)$/m.exec(text)?.[1] ?? id, text };
    });
}

/** Pages of the small corpora cut from docs/. */
export const SMALL_CORPORA: Readonly<Record<string, readonly string[]>> = {
  'docs-1': ['resilience'],
  'docs-3': ['resilience', 'http', 'learning'],
  'docs-10': [
    'resilience',
    'http',
    'learning',
    'memory',
    'errors',
    'getting-started',
    'grounding',
    'retrieval',
    'web-chat',
    'scaling-out',
  ],
};

/** The docs corpora (full and small) for one part. */
export function docsCorpora(part: 'tune' | 'test'): TrustCorpus[] {
  const pages = loadDocsPages();
  const questions = splitHalves(DOCS_QUESTIONS)[part];
  const offTopic = splitHalves(DOCS_OFF_TOPIC)[part];
  const offTopicCases = offTopic.map((question) => ({ question, relevant: new Set<string>() }));
  const corpora: TrustCorpus[] = [
    {
      name: 'docs',
      documents: pages,
      cases: [
        ...questions.map((q) => ({
          question: q.question,
          relevant: new Set([q.page]),
          fact: q.fact,
        })),
        ...offTopicCases,
      ],
      answeredTarget: 0.95,
    },
  ];
  for (const [name, ids] of Object.entries(SMALL_CORPORA)) {
    const inCorpus = new Set(ids);
    corpora.push({
      name,
      documents: pages.filter((page) => inCorpus.has(page.id)),
      cases: [
        ...questions
          .filter((q) => inCorpus.has(q.page))
          .map((q) => ({ question: q.question, relevant: new Set([q.page]), fact: q.fact })),
        ...offTopicCases,
        // Questions about pages not in this corpus are off-topic here.
        ...questions
          .filter((q) => !inCorpus.has(q.page))
          .map((q) => ({ question: q.question, relevant: new Set<string>() })),
      ],
      answeredTarget: 0.95,
    });
  }
  const bike = splitHalves(BIKE_QUESTIONS)[part];
  corpora.push({
    name: 'bike-8',
    documents: bikeShareHandbook,
    cases: [
      ...bike.map((q) => ({ question: q.question, relevant: new Set([q.page]), fact: q.fact })),
      ...offTopicCases,
    ],
    answeredTarget: 0.95,
  });
  return corpora;
}

/** SciFact: claims of one split with their relevant abstracts, plus off-topic questions. */
export function sciFactCorpus(part: 'tune' | 'test', claims: number): TrustCorpus | null {
  const dir = sciFactDir();
  if (!hasSciFact(dir) || claims === 0) return null;
  const split = part === 'tune' ? 'train' : 'test';
  const qrels = parseQrels(readFileSync(join(dir, `qrels-${split}.tsv`), 'utf8'));
  const queries = loadQueries(dir, split).filter((query) => qrels.has(query.id));
  // Deterministic subsample: every n-th claim.
  const step = Math.max(1, Math.floor(queries.length / claims));
  const picked = queries.filter((_, index) => index % step === 0).slice(0, claims);
  return {
    name: 'scifact',
    documents: loadCorpus(dir),
    cases: [
      ...picked.map((query) => ({
        question: query.text,
        relevant: new Set(qrels.get(query.id)?.keys() ?? []),
      })),
      ...splitHalves(DOCS_OFF_TOPIC)[part].map((question) => ({
        question,
        relevant: new Set<string>(),
      })),
    ],
    answeredTarget: 0.9,
  };
}

/** The figures of one corpus. */
export interface TrustReport {
  readonly corpus: string;
  readonly answerable: number;
  readonly offTopic: number;
  /** Answerable questions answered (any top source). */
  readonly answered: number;
  /** Answerable questions answered with a relevant top source. */
  readonly answeredRight: number;
  readonly refused: number;
  readonly levels: Record<'low' | 'medium' | 'high', { n: number; relevant: number }>;
  readonly ece: number;
  /** Answers that state the expected fact (docs), among answerable answered. */
  readonly factStated: number;
  /** Mean share of supported cited claims over the answers. */
  readonly supportedRatio: number;
  /** Answers with mostly unsupported claims rated high (must be 0). */
  readonly unsupportedHigh: number;
  readonly answeredTarget: number;
}

export function report(
  corpus: string,
  outcomes: readonly TrustOutcome[],
  answeredTarget: number,
): TrustReport {
  const answerable = outcomes.filter((o) => o.answerable);
  const offTopic = outcomes.filter((o) => !o.answerable);
  const answers = outcomes.filter((o) => o.answered);
  const levels = {
    low: { n: 0, relevant: 0 },
    medium: { n: 0, relevant: 0 },
    high: { n: 0, relevant: 0 },
  };
  for (const o of answers) {
    levels[o.level].n++;
    if (o.topRelevant) levels[o.level].relevant++;
  }
  const ratios = answers.flatMap((o) => (o.supportedRatio === null ? [] : [o.supportedRatio]));
  return {
    corpus,
    answerable: answerable.length,
    offTopic: offTopic.length,
    answered: answerable.filter((o) => o.answered).length,
    answeredRight: answerable.filter((o) => o.topRelevant).length,
    refused: offTopic.filter((o) => !o.answered).length,
    levels,
    ece: expectedCalibrationError(
      answers.map((o) => o.overall),
      answers.map((o) => o.correct),
    ),
    factStated: answerable.filter((o) => o.answered && o.factStated).length,
    supportedRatio: ratios.length ? ratios.reduce((a, b) => a + b, 0) / ratios.length : 1,
    unsupportedHigh: answers.filter((o) => o.level === 'high' && (o.supportedRatio ?? 1) < 0.5)
      .length,
    answeredTarget,
  };
}

const pct = (part: number, whole: number): string =>
  whole === 0 ? '   n/a' : `${((100 * part) / whole).toFixed(1).padStart(5)}%`;
const mark = (ok: boolean): string => (ok ? 'MET' : 'NOT MET');

/** Each target of a corpus, by name, and whether it is met. */
export function targetChecks(r: TrustReport): [string, boolean][] {
  const answeredShare = r.answerable ? r.answered / r.answerable : 1;
  const refusedShare = r.offTopic ? r.refused / r.offTopic : 1;
  const high = r.levels.high;
  const low = r.levels.low;
  return [
    [`answerable answered ≥ ${r.answeredTarget * 100}%`, answeredShare >= r.answeredTarget],
    ['off-topic refused ≥ 90%', refusedShare >= 0.9],
    ['ECE ≤ 0.08', r.ece <= 0.08],
    ['high: relevant top source ≥ 90%', high.n === 0 || high.relevant / high.n >= 0.9],
    ['low: relevant top source ≤ 50%', low.n === 0 || low.relevant / low.n <= 0.5],
    ['no high answer with mostly unsupported claims', r.unsupportedHigh === 0],
  ];
}

/** Prints one corpus' figures with each target as MET / NOT MET. */
export function printReport(r: TrustReport): boolean {
  const checks = targetChecks(r);
  console.log(`\n## ${r.corpus} (${r.answerable} answerable, ${r.offTopic} off-topic)`);
  console.log(
    `answerable answered ${pct(r.answered, r.answerable)} (${r.answered}/${r.answerable}), ` +
      `with the right top source ${pct(r.answeredRight, r.answerable)} (${r.answeredRight}/${r.answerable})`,
  );
  console.log(`off-topic refused   ${pct(r.refused, r.offTopic)} (${r.refused}/${r.offTopic})`);
  for (const level of ['high', 'medium', 'low'] as const) {
    const { n, relevant } = r.levels[level];
    console.log(`level ${level.padEnd(6)} precision ${pct(relevant, n)} (${relevant}/${n})`);
  }
  console.log(`ECE (10 bins) ${r.ece.toFixed(3)}`);
  if (r.corpus !== 'scifact') {
    console.log(
      `answer states the fact ${pct(r.factStated, r.answerable)} (${r.factStated}/${r.answerable})`,
    );
  }
  console.log(
    `judge: mean supported share of cited claims ${r.supportedRatio.toFixed(3)}, ` +
      `high answers with mostly unsupported claims ${r.unsupportedHigh}`,
  );
  for (const [name, ok] of checks) console.log(`  ${mark(ok).padEnd(7)} ${name}`);
  return checks.every(([, ok]) => ok);
}

function argument(name: string, fallback: string): string {
  const index = process.argv.indexOf(name);
  return index >= 0 ? (process.argv[index + 1] ?? fallback) : fallback;
}

/** Every corpus of a part. */
export function trustCorpora(part: 'tune' | 'test', sciFactClaims: number): TrustCorpus[] {
  const scifact = sciFactCorpus(part, sciFactClaims);
  return [...(scifact ? [scifact] : []), ...docsCorpora(part)];
}

async function main(): Promise<void> {
  const part = argument('--part', 'test') === 'tune' ? 'tune' : 'test';
  const claims = Number(argument('--scifact', '300'));
  console.log(`# Trust benchmark — ${part} part (createChatEngine() defaults, offline)`);
  if (claims > 0 && !hasSciFact(sciFactDir())) console.log('SciFact not found: skipped');
  let allMet = true;
  for (const corpus of trustCorpora(part, claims)) {
    const started = performance.now();
    const outcomes = await runCorpus(corpus);
    allMet = printReport(report(corpus.name, outcomes, corpus.answeredTarget)) && allMet;
    console.log(
      `(${corpus.documents.length} documents, ${((performance.now() - started) / 1000).toFixed(1)} s)`,
    );
  }
  console.log(`\n${allMet ? 'Every target MET' : 'Some targets NOT MET'} on the ${part} part.`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main();
}
