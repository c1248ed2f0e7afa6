/**
 * Ablation of the grounding judge's rules (issue 26 item 6, `npm run bench:judge-ablation`):
 * each rule of `src/pipeline/judge/rules.ts` switched off alone, measured on the tune and the
 * test halves of the three benchmarks the judge serves, against the judge as shipped:
 *
 * - `bench:judge`: SciFact claims citing their abstract (tune = train split, test = test split):
 *   ROC AUC and F1 at the default threshold of SUPPORT against NEI + CONTRADICT and AUC against
 *   NEI alone; perturbed SUPPORT claims not supported; the docs answers' perturbations (docs
 *   questions halved as `bench:trust` halves them); unperturbed claims still supported; SUPPORT
 *   pairs called contradicted (false alarms), CONTRADICT pairs called contradicted.
 * - `bench:trust`: every corpus of its tune or test part through `createChatEngine()`
 *   defaults: its NOT MET lines (summed over the corpora), precision of `high` and `medium`
 *   answers (pooled over the corpora), mean ECE, high answers with mostly unsupported claims,
 *   and each corpus' mean supported share of cited claims (a change is listed, neither better
 *   nor worse).
 * - `bench:docs`: the tuning sets' tune or test halves, every column of its rows: answerable,
 *   structured and follow-up answers correct, right file top, unanswerable and off-topic
 *   questions refused, wrong answers rated high/medium, correct ones rated low, `medium` and
 *   `high` precision.
 *
 * Every figure is deterministic (no sampling, no timing): any change is the rule's effect, and
 * the smallest is one pair, one answer or one claim. A rule earns its lines when switching it
 * off makes a tune figure worse; the report lists, per rule and half, the figures that got
 * worse and those that got better. The judge as shipped is measured first and again last (the
 * engines are reused across switches, so the two must agree).
 *
 *   npm run bench:judge-ablation                          # every rule, every benchmark
 *   npm run bench:judge-ablation -- --rules a,b           # only these rules
 *   npm run bench:judge-ablation -- --off a,b             # base: the judge with these off
 *   npm run bench:judge-ablation -- --skip trust,docs     # leave benchmarks out
 *   npm run bench:judge-ablation -- --json out.json       # every figure as JSON
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createChatEngine, type ChatResponse } from '../src/index.js';
import { loadDocuments } from '../src/loaders/index.js';
import { checkSupport, prepareSource, type PreparedSource } from '../src/pipeline/judge.js';
import { JUDGE_RULES, switchOffJudgeRules, type JudgeRule } from '../src/pipeline/judge/rules.js';
import { casesOf, gradeReply, summarize, type DocsOutcome } from './docs/grade.js';
import { QUESTION_SETS } from './docs/questions/index.js';
import { docsClaims, f1At, loadPairs, rocAuc, type Pair, type TrueClaim } from './judge.js';
import { PERTURBATION_KINDS, namesOf, perturb } from './judge-perturbations.js';
import { hasSciFact, loadCorpus, sciFactDir } from './scifact.js';
import { DOCS_QUESTIONS, splitHalves } from './trust-docs-questions.js';
import {
  askCorpus,
  report,
  targetChecks,
  trustCorpora,
  type TrustCorpus,
  type TrustOutcome,
} from './trust.js';

type Half = 'tune' | 'test';
const HALVES: readonly Half[] = ['tune', 'test'];

/** A figure and which way is better (`none`: a change is reported, neither better nor worse). */
interface Figure {
  readonly value: number;
  readonly better: 'up' | 'down' | 'none';
}
type Figures = Record<string, Figure>;
const up = (value: number): Figure => ({ value, better: 'up' });
const down = (value: number): Figure => ({ value, better: 'down' });
const changed = (value: number): Figure => ({ value, better: 'none' });
const round = (value: number, digits = 4) => Math.round(value * 10 ** digits) / 10 ** digits;

// ---- bench:judge ------------------------------------------------------------------------

interface JudgeHalf {
  readonly rows: readonly { pair: Pair; source: PreparedSource }[];
  /** Perturbed true claims with their sources. */
  readonly perturbedSciFact: readonly TrueClaim[];
  readonly perturbedDocs: readonly TrueClaim[];
  readonly trueClaims: readonly TrueClaim[];
}

/** The SciFact pairs and perturbations of each half, prepared once. */
function judgeHalves(): Record<Half, JudgeHalf> | null {
  const dir = sciFactDir();
  if (!hasSciFact(dir)) return null;
  const corpus = new Map(loadCorpus(dir).map((doc) => [doc.id, `${doc.title}\n\n${doc.text}`]));
  const pairs = loadPairs(dir).filter((pair) => corpus.has(pair.docId));
  const prepared = new Map<string, PreparedSource>();
  const sourceOf = (id: string) => {
    let source = prepared.get(id);
    if (!source) prepared.set(id, (source = prepareSource(corpus.get(id)!)));
    return source;
  };
  const pool = [...new Set(pairs.flatMap((pair) => namesOf(pair.claim)))].sort();
  const perturbed = (claims: readonly TrueClaim[]): TrueClaim[] =>
    claims.flatMap(({ claim, source }) =>
      PERTURBATION_KINDS.flatMap((kind) => {
        const changed = perturb(kind, claim, source.text, pool);
        return changed === undefined || changed === claim ? [] : [{ claim: changed, source }];
      }),
    );
  const docs = splitHalves(DOCS_QUESTIONS);
  const half = (split: 'train' | 'test', part: Half): JudgeHalf => {
    const rows = pairs
      .filter((pair) => pair.split === split)
      .map((pair) => ({ pair, source: sourceOf(pair.docId) }));
    const support = rows
      .filter((row) => row.pair.label === 'SUPPORT')
      .map((row) => ({ claim: row.pair.claim, source: row.source }));
    const docsTrue = docsClaims(docs[part]);
    return {
      rows,
      perturbedSciFact: perturbed(support),
      perturbedDocs: perturbed(docsTrue),
      trueClaims: [...support, ...docsTrue],
    };
  };
  return { tune: half('train', 'tune'), test: half('test', 'test') };
}

function judgeFigures(half: JudgeHalf): Figures {
  const checks = half.rows.map((row) => checkSupport(row.pair.claim, row.source));
  const scores = checks.map((check) => check.score);
  const positive = half.rows.map((row) => row.pair.label === 'SUPPORT');
  const noContradict = half.rows.flatMap((row, index) =>
    row.pair.label === 'CONTRADICT' ? [] : [index],
  );
  const supported = (claims: readonly TrueClaim[]) =>
    claims.filter(({ claim, source }) => checkSupport(claim, source).verdict === 'supported')
      .length;
  const called = (label: Pair['label']) =>
    half.rows.filter(
      (row, index) => row.pair.label === label && checks[index]!.verdict === 'contradicted',
    ).length;
  return {
    'judge AUC S/NEI+C': up(round(rocAuc(scores, positive))),
    'judge AUC S/NEI': up(
      round(
        rocAuc(
          noContradict.map((index) => scores[index]!),
          noContradict.map((index) => positive[index]!),
        ),
      ),
    ),
    'judge F1 S/NEI+C': up(round(f1At(scores, positive, 0.5).f1)),
    'judge perturbed SciFact rejected': up(
      half.perturbedSciFact.length - supported(half.perturbedSciFact),
    ),
    'judge perturbed docs rejected': up(half.perturbedDocs.length - supported(half.perturbedDocs)),
    'judge true claims supported': up(supported(half.trueClaims)),
    'judge SUPPORT called contradicted': down(called('SUPPORT')),
    'judge CONTRADICT called contradicted': up(called('CONTRADICT')),
  };
}

// ---- bench:trust ------------------------------------------------------------------------

/**
 * The figures of a part of `bench:trust`: its NOT MET lines, and per corpus the lines the judge
 * drives (mean supported share of cited claims, high answers with mostly unsupported claims),
 * besides `high` / `medium` precision pooled over the corpora and the mean ECE.
 */
function trustFigures(corpora: readonly TrustCorpus[], answers: readonly TrustOutcome[]): Figures {
  const reports = corpora.map((corpus) =>
    report(
      corpus.name,
      answers.filter((answer) => answer.corpus === corpus.name),
      corpus.answeredTarget,
    ),
  );
  const pooled = (level: TrustOutcome['level']) => {
    const n = reports.reduce((sum, r) => sum + r.levels[level].n, 0);
    const relevant = reports.reduce((sum, r) => sum + r.levels[level].relevant, 0);
    return n === 0 ? 0 : relevant / n;
  };
  const figures: Figures = {
    'trust NOT MET': down(
      reports.reduce((sum, r) => sum + targetChecks(r).filter(([, met]) => !met).length, 0),
    ),
    'trust high precision': up(round(pooled('high'))),
    'trust medium precision': up(round(pooled('medium'))),
    'trust mean ECE': down(round(reports.reduce((sum, r) => sum + r.ece, 0) / reports.length)),
    'trust high with mostly unsupported': down(
      reports.reduce((sum, r) => sum + r.unsupportedHigh, 0),
    ),
  };
  for (const r of reports) {
    figures[`trust ${r.corpus} supported share`] = changed(round(r.supportedRatio, 3));
  }
  return figures;
}

// ---- bench:docs -------------------------------------------------------------------------

function docsFigures(outcomes: readonly DocsOutcome[]): Figures {
  const summary = summarize(outcomes);
  const { calibration } = summary;
  return {
    'docs answerable correct': up(summary.answerableCorrect.count),
    'docs structured correct': up(summary.structuredCorrect.count),
    'docs right file top': up(summary.rightFileTop.count),
    'docs follow-ups correct': up(summary.followUpsCorrect.count),
    'docs unanswerable refused': up(summary.unanswerableRefused.count),
    'docs off-topic refused': up(summary.offTopicRefused.count),
    'docs wrong rated hi/med': down(calibration.wrongRatedHighOrMedium.count),
    'docs correct rated low': down(calibration.correctRatedLow.count),
    'docs medium precision': up(round(calibration.mediumPrecision.share ?? 0)),
    'docs high precision': up(round(calibration.highPrecision.share ?? 0)),
  };
}

// ---- the ablation -----------------------------------------------------------------------

const flag = (name: string): string | undefined => {
  const index = process.argv.indexOf(name);
  return index >= 0 ? process.argv[index + 1] : undefined;
};
const list = (name: string): string[] =>
  (flag(name) ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);

const BASE = '(as shipped)';
const BASE_AGAIN = '(as shipped, again)';

async function main(): Promise<void> {
  const known: readonly JudgeRule[] = JUDGE_RULES;
  for (const rule of [...list('--rules'), ...list('--off')]) {
    if (!known.includes(rule as JudgeRule)) throw new Error(`unknown rule ${rule}`);
  }
  const base = list('--off') as JudgeRule[];
  const chosen = list('--rules') as JudgeRule[];
  const rules = (chosen.length > 0 ? chosen : known).filter((rule) => !base.includes(rule));
  const skip = new Set(list('--skip'));
  const variants = [BASE, ...rules, BASE_AGAIN];
  const switchTo = (variant: string) =>
    switchOffJudgeRules(variant.startsWith('(') ? base : [...base, variant as JudgeRule]);
  // figures[variant][half]
  const figures = new Map<string, Record<Half, Figures>>(
    variants.map((variant) => [variant, { tune: {}, test: {} }]),
  );
  const add = (variant: string, half: Half, found: Figures) =>
    Object.assign(figures.get(variant)![half], found);
  const started = performance.now();

  if (!skip.has('judge')) {
    const halves = judgeHalves();
    if (!halves) console.log('SciFact not found: bench:judge figures skipped');
    for (const half of halves ? HALVES : []) {
      for (const variant of variants) {
        switchTo(variant);
        add(variant, half, judgeFigures(halves![half]));
      }
    }
    console.error(`judge done in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }

  if (!skip.has('trust')) {
    for (const half of HALVES) {
      const answers = new Map<string, TrustOutcome[]>(variants.map((variant) => [variant, []]));
      const corpora = trustCorpora(half, 300);
      for (const corpus of corpora) {
        const engine = createChatEngine();
        await engine.ingest(corpus.documents.map((document) => ({ ...document })));
        for (const variant of variants) {
          switchTo(variant);
          answers.get(variant)!.push(...(await askCorpus(engine, corpus)));
        }
      }
      for (const variant of variants) {
        add(variant, half, trustFigures(corpora, answers.get(variant)!));
      }
    }
    console.error(`trust done in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }

  if (!skip.has('docs')) {
    const outcomes = new Map<string, DocsOutcome[]>(variants.map((variant) => [variant, []]));
    for (const set of QUESTION_SETS) {
      const { documents } = await loadDocuments([
        join(import.meta.dirname, 'docs/corpora', set.corpus),
      ]);
      const engine = createChatEngine();
      await engine.ingest(documents);
      for (const variant of variants) {
        switchTo(variant);
        for (const item of casesOf(set)) {
          let reply: ChatResponse;
          if (item.turns.length === 1) {
            reply = await engine.chat({ message: item.turns[0]!, mode: 'query' });
          } else {
            const session = await engine.createSession({ userId: 'bench-ablation' });
            reply = await engine.chat({ sessionId: session.id, message: item.turns[0]! });
            for (const message of item.turns.slice(1)) {
              reply = await engine.chat({ sessionId: session.id, message });
            }
          }
          outcomes.get(variant)!.push(
            gradeReply(item, {
              text: reply.text,
              refused: reply.refused !== null,
              topFile: reply.sources[0]?.documentId ?? null,
              level: reply.confidence.level,
              overall: reply.confidence.overall,
            }),
          );
        }
      }
    }
    for (const variant of variants) {
      for (const half of HALVES) {
        add(
          variant,
          half,
          docsFigures(outcomes.get(variant)!.filter((outcome) => outcome.case.split === half)),
        );
      }
    }
    console.error(`docs done in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
  switchOffJudgeRules();

  // the report
  const baseline = figures.get(BASE)!;
  const again = figures.get(BASE_AGAIN)!;
  const stable = HALVES.every((half) =>
    Object.entries(baseline[half]).every(([name, f]) => again[half][name]!.value === f.value),
  );
  console.log(`# Judge rule ablation${base.length > 0 ? ` (base: ${base.join(', ')} off)` : ''}\n`);
  for (const half of HALVES) {
    console.log(`## as shipped, ${half}\n`);
    for (const [name, f] of Object.entries(baseline[half])) console.log(`- ${name}: ${f.value}`);
    console.log('');
  }
  console.log(
    `as shipped measured again last: ${stable ? 'identical' : 'DIFFERENT (engine state leaks)'}\n`,
  );
  const delta = (variant: string, half: Half) => {
    const worse: string[] = [];
    const better: string[] = [];
    const other: string[] = [];
    for (const [name, f] of Object.entries(figures.get(variant)![half])) {
      const before = baseline[half][name]!.value;
      if (f.value === before) continue;
      const change = round(f.value - before);
      const text = `${name} ${change > 0 ? '+' : ''}${change}`;
      if (f.better === 'none') other.push(text);
      else if (f.better === 'up' ? f.value > before : f.value < before) better.push(text);
      else worse.push(text);
    }
    return { worse, better, other };
  };
  console.log(
    '| rule (switched off) | tune: worse | tune: better | tune: changed | test: worse | test: better | test: changed |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- |');
  for (const rule of rules) {
    const tune = delta(rule, 'tune');
    const test = delta(rule, 'test');
    const cell = (items: string[]) => (items.length === 0 ? '—' : items.join('; '));
    console.log(
      `| ${rule} | ${cell(tune.worse)} | ${cell(tune.better)} | ${cell(tune.other)} | ${cell(test.worse)} | ${cell(test.better)} | ${cell(test.other)} |`,
    );
  }
  console.log(`\n${((performance.now() - started) / 1000).toFixed(0)} s`);
  const json = flag('--json');
  if (json) {
    writeFileSync(
      json,
      JSON.stringify(
        Object.fromEntries(
          [...figures].map(([variant, byHalf]) => [
            variant,
            Object.fromEntries(
              HALVES.map((half) => [
                half,
                Object.fromEntries(Object.entries(byHalf[half]).map(([k, f]) => [k, f.value])),
              ]),
            ),
          ]),
        ),
        null,
        2,
      ),
    );
  }
}

await main();
