/**
 * Documentation benchmark (issue 26): does the offline engine answer questions about
 * documentation nobody here wrote, the way its readers ask them? Each corpus of
 * `bench/docs/corpora/` (or `bench/docs/heldout/corpora/` with `--set heldout`) is read as the
 * CLI reads a folder (`loadDocuments`) and ingested into `createChatEngine()` with its defaults;
 * every question of its set (`bench/docs/questions/`) is asked: single questions statelessly,
 * follow-ups as two turns of one session (the second graded).
 *
 * Graded automatically: an answerable question is correct when no stage refused and the
 * question's pattern matches the answer text; the top source is right when it is a file that
 * states the fact; unanswerable and off-topic questions should be refused (any stage: guard,
 * model, judge: the answer's `refused` field). Calibration is over every answer not refused. Reported per split (tune,
 * test; held-out sets apart) and per corpus.
 *
 *   npm run bench:docs                          # tuning sets, tune and test reported apart
 *   npm run bench:docs -- --split test          # only the test half
 *   npm run bench:docs -- --set heldout         # the held-out sets (measure, never tune)
 *   npm run bench:docs -- --corpus undici-api --verbose   # each question, answer and grade
 *   npm run bench:docs -- --json                # the figures as JSON
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createChatEngine, type ChatResponse } from '../src/index.js';
import { loadDocuments } from '../src/loaders/index.js';
import {
  casesOf,
  gradeReply,
  summarize,
  type DocsCase,
  type DocsOutcome,
  type DocsReply,
  type DocsSummary,
  type Share,
  type Split,
} from './docs/grade.js';
import { HELDOUT_SETS } from './docs/heldout/questions/index.js';
import { QUESTION_SETS } from './docs/questions/index.js';
import type { QuestionSet } from './docs/questions/types.js';

const DOCS_DIR = join(import.meta.dirname, 'docs');

/** The graded view of a reply. */
function toDocsReply(reply: ChatResponse): DocsReply {
  return {
    text: reply.text,
    refused: reply.refused !== null,
    topFile: reply.sources[0]?.documentId ?? null,
    level: reply.confidence.level,
    overall: reply.confidence.overall,
    signals: {
      overall: reply.confidence.overall,
      sourceQuality: reply.confidence.sourceQuality,
      sourceDiversity: reply.confidence.sourceDiversity,
      semanticCohesion: reply.confidence.semanticCohesion,
      llmCertainty: reply.confidence.llmCertainty,
      topScore: reply.sources[0]?.score ?? null,
    },
  };
}

/** Asks every case of one corpus through a fresh default engine. */
export async function runSet(
  set: QuestionSet,
  heldout: boolean,
  keep: (item: DocsCase) => boolean = () => true,
): Promise<DocsOutcome[]> {
  const folder = join(DOCS_DIR, heldout ? 'heldout/corpora' : 'corpora', set.corpus);
  const { documents } = await loadDocuments([folder]);
  const engine = createChatEngine();
  await engine.ingest(documents);
  const outcomes: DocsOutcome[] = [];
  for (const item of casesOf(set, heldout).filter(keep)) {
    let reply: ChatResponse;
    if (item.turns.length === 1) {
      reply = await engine.chat({ message: item.turns[0]!, mode: 'query' });
    } else {
      const session = await engine.createSession({ userId: 'bench-docs' });
      reply = await engine.chat({ sessionId: session.id, message: item.turns[0]! });
      for (const message of item.turns.slice(1)) {
        reply = await engine.chat({ sessionId: session.id, message });
      }
    }
    outcomes.push(gradeReply(item, toDocsReply(reply)));
  }
  return outcomes;
}

const percent = (value: Share): string =>
  value.share === null ? '—' : `${(value.share * 100).toFixed(0)} % (${value.count}/${value.of})`;

/** One row of the report. */
function row(name: string, summary: DocsSummary): string[] {
  const { calibration } = summary;
  return [
    name,
    percent(summary.answerableCorrect),
    percent(summary.structuredCorrect),
    percent(summary.rightFileTop),
    percent(summary.followUpsCorrect),
    percent(summary.unanswerableRefused),
    percent(summary.offTopicRefused),
    percent(calibration.wrongRatedHighOrMedium),
    percent(calibration.correctRatedLow),
    percent(calibration.mediumPrecision),
    percent(calibration.highPrecision),
  ];
}

const HEADER = [
  'corpus',
  'answerable correct',
  'structured correct',
  'right file top',
  'follow-ups',
  'unanswerable refused',
  'off-topic refused',
  'wrong rated hi/med',
  'correct rated low',
  'medium precision',
  'high precision',
];

/** A Markdown table. */
function table(rows: readonly (readonly string[])[]): string {
  const lines = [HEADER, HEADER.map(() => '---'), ...rows].map(
    (cells) => `| ${cells.join(' | ')} |`,
  );
  return lines.join('\n');
}

const flag = (name: string): string | undefined => {
  const index = process.argv.indexOf(name);
  return index >= 0 ? process.argv[index + 1] : undefined;
};

/** Prints one outcome (`--verbose`). */
function printOutcome(outcome: DocsOutcome): void {
  const { case: item, reply } = outcome;
  const grade =
    item.expected === null
      ? reply.refused
        ? 'REFUSED (right)'
        : 'ANSWERED (wrong)'
      : outcome.correct
        ? 'CORRECT'
        : reply.refused
          ? 'REFUSED (wrong)'
          : 'WRONG';
  console.log(`\n[${item.split} ${item.corpus} ${item.category}] ${item.turns.join(' → ')}`);
  if (item.expected) {
    console.log(
      `  expected (${item.expected.kind}): ${item.expected.fact}  in ${item.expected.files.join(' | ')}`,
    );
  }
  console.log(`  answer: ${reply.text.replace(/\s+/g, ' ').slice(0, 600)}`);
  console.log(
    `  ${grade}; top file ${reply.topFile ?? '—'}${item.expected ? (outcome.rightFile ? ' (right)' : ' (not it)') : ''}; confidence ${reply.level} ${reply.overall.toFixed(2)}`,
  );
}

async function main(): Promise<void> {
  const heldout = flag('--set') === 'heldout';
  const splitFlag = flag('--split');
  const corpusFlag = flag('--corpus');
  const json = process.argv.includes('--json');
  const verbose = process.argv.includes('--verbose');
  const sets = (heldout ? HELDOUT_SETS : QUESTION_SETS).filter(
    (set) => corpusFlag === undefined || set.corpus === corpusFlag,
  );
  if (sets.length === 0) {
    const names = (heldout ? HELDOUT_SETS : QUESTION_SETS).map((set) => set.corpus);
    console.error(`No corpus named ${corpusFlag}; corpora: ${names.join(', ')}`);
    process.exitCode = 1;
    return;
  }
  const splits: Split[] = heldout
    ? ['heldout']
    : splitFlag === 'tune' || splitFlag === 'test'
      ? [splitFlag]
      : ['tune', 'test'];
  const started = performance.now();
  const outcomes: DocsOutcome[] = [];
  for (const set of sets) {
    outcomes.push(...(await runSet(set, heldout, (item) => splits.includes(item.split))));
  }
  const seconds = (performance.now() - started) / 1000;
  if (verbose && !json) outcomes.forEach(printOutcome);
  const report = splits.map((split) => {
    const inSplit = outcomes.filter((o) => o.case.split === split);
    return {
      split,
      all: summarize(inSplit),
      corpora: Object.fromEntries(
        sets.map((set) => [
          set.corpus,
          summarize(inSplit.filter((o) => o.case.corpus === set.corpus)),
        ]),
      ),
    };
  });
  if (json) {
    console.log(JSON.stringify({ seconds, report }, null, 2));
    return;
  }
  for (const { split, all, corpora } of report) {
    console.log(`\n## ${split}\n`);
    console.log(
      table([
        ...Object.entries(corpora).map(([name, summary]) => row(name, summary)),
        row('all', all),
      ]),
    );
  }
  console.log(`\n${outcomes.length} cases in ${seconds.toFixed(1)} s`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main();
}
