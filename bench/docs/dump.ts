/**
 * Dumps, for each case of a split, what the offline model was given and answered with the
 * graded reply, as JSON lines: the material for measuring a candidate signal's precision and
 * recall on the tune half before adopting it.
 *
 *   node --import tsx bench/docs/dump.ts --split tune > /tmp/tune.jsonl
 *   node --import tsx bench/docs/dump.ts --split tune --category follow-up
 */
import { join } from 'node:path';
import { createChatEngine, createExtractiveProvider, type ChatResponse } from '../../src/index.js';
import { loadDocuments } from '../../src/loaders/index.js';
import type { LLMRequest, LLMResult } from '../../src/ports/llm-provider.js';
import { casesOf, gradeReply } from './grade.js';
import { HELDOUT_SETS } from './heldout/questions/index.js';
import { QUESTION_SETS } from './questions/index.js';

const flag = (name: string): string | undefined => {
  const index = process.argv.indexOf(name);
  return index >= 0 ? process.argv[index + 1] : undefined;
};
const heldout = flag('--set') === 'heldout';
const split = heldout ? 'heldout' : (flag('--split') ?? 'tune');
// `--category follow-up` dumps only that category's cases (answerable, unanswerable, …).
const category = flag('--category');
// `--match TEXT`: only the cases whose last turn contains TEXT (case aside).
const match = flag('--match')?.toLowerCase();

/** The 1-based position of the first source whose text the fact's pattern matches, else null. */
function factPosition(
  pattern: RegExp | undefined,
  sources: readonly { readonly text: string }[],
): number | null {
  if (pattern === undefined) return null;
  const once = new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, ''));
  const index = sources.findIndex((source) => once.test(source.text));
  return index < 0 ? null : index + 1;
}

for (const set of heldout ? HELDOUT_SETS : QUESTION_SETS) {
  const folder = join(import.meta.dirname, heldout ? 'heldout/corpora' : 'corpora', set.corpus);
  const { documents } = await loadDocuments([folder]);
  const inner = createExtractiveProvider();
  const seen: { last?: { request: LLMRequest; result: LLMResult } | undefined } = {};
  const lastCall = () => seen.last;
  const llm = {
    ...inner,
    async generate(request: LLMRequest) {
      const result = await inner.generate(request);
      seen.last = { request, result };
      return result;
    },
  };
  const engine = createChatEngine({ llm });
  await engine.ingest(documents);
  const chosen = casesOf(set, heldout).filter(
    (c) =>
      c.split === split &&
      (category === undefined || c.category === category) &&
      (match === undefined || c.turns.at(-1)!.toLowerCase().includes(match)),
  );
  if (chosen.length === 0) continue;
  for (const item of chosen) {
    seen.last = undefined;
    let reply: ChatResponse;
    if (item.turns.length === 1) {
      reply = await engine.chat({ message: item.turns[0]!, mode: 'query' });
    } else {
      const session = await engine.createSession({ userId: 'dump' });
      reply = await engine.chat({ sessionId: session.id, message: item.turns[0]! });
      for (const message of item.turns.slice(1)) {
        seen.last = undefined;
        reply = await engine.chat({ sessionId: session.id, message });
      }
    }
    const graded = gradeReply(item, {
      text: reply.text,
      refused: reply.refused !== null,
      topFile: reply.sources[0]?.documentId ?? null,
      level: reply.confidence.level,
      overall: reply.confidence.overall,
    });
    console.log(
      JSON.stringify({
        corpus: item.corpus,
        category: item.category,
        kind: item.expected?.kind ?? null,
        question: item.turns.at(-1),
        retrievalQuery: lastCall()?.request.retrievalQuery ?? null,
        sources: lastCall()?.request.sources ?? [],
        // Where the fact is among the sources the model was given (1-based), null when in none.
        factSource: factPosition(item.expected?.pattern, lastCall()?.request.sources ?? []),
        modelAnswer: lastCall()?.result.text ?? null,
        certainty: lastCall()?.result.certainty ?? null,
        // How close the model's runner-up unit came to its lead (score ratio).
        runnerUp: lastCall()?.result.runnerUp ?? null,
        text: reply.text,
        refused: reply.refused,
        correct: graded.correct,
        level: reply.confidence.level,
        overall: reply.confidence.overall,
        confidence: reply.confidence,
        topScore: reply.sources[0]?.score ?? null,
      }),
    );
  }
}
