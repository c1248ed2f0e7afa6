/**
 * The README's first command's questions over this repository's `docs/`, as the CLI indexes it
 * (its `.cortexisignore` honoured): the sources the offline model is given and its answer.
 *
 *   node --import tsx bench/docs/cli-probe.ts [--k N] "question" …
 */
import { join } from 'node:path';
import { createChatEngine, createExtractiveProvider } from '../../src/index.js';
import { loadDocuments } from '../../src/loaders/index.js';
import type { LLMRequest } from '../../src/ports/llm-provider.js';

const args = process.argv.slice(2);
const kAt = args.indexOf('--k');
const topK = kAt >= 0 ? Number(args.splice(kAt, 2)[1]) : undefined;
const folder = join(import.meta.dirname, '../../docs');
const { documents } = await loadDocuments([folder], { ignoreFile: '.cortexisignore' });
const inner = createExtractiveProvider();
const seen: { last?: LLMRequest | undefined } = {};
const lastCall = () => seen.last;
const llm = {
  ...inner,
  async generate(request: LLMRequest) {
    seen.last = request;
    return inner.generate(request);
  },
};
const engine = createChatEngine({
  llm,
  ...(topK === undefined ? {} : { retrieval: { topK, maxK: Math.max(topK, 10) } }),
});
await engine.ingest(documents);
for (const question of args) {
  seen.last = undefined;
  const reply = await engine.chat({ message: question, mode: 'query' });
  console.log(`=== ${question}`);
  for (const source of lastCall()?.sources ?? []) {
    console.log(
      `  [${source.label}] ${source.section ?? source.title}: ${source.text.slice(0, 160).replace(/\n/g, ' ')}`,
    );
  }
  console.log(`  → ${reply.text.replace(/\n/g, ' ').slice(0, 400)} (${reply.confidence.level})`);
  // With PROBE_SOURCES=1: the sources the model was given, as JSON (for a test's fixture).
  if (process.env.PROBE_SOURCES) console.log(JSON.stringify(lastCall()?.sources ?? []));
}
