/**
 * Pathological input (issue 14 item 10): byte-pair encoding of long runs without a space, a
 * huge single paragraph, and message redaction over long runs. Run: `npm run bench:pathological` (`node --import tsx
 * bench/pathological.ts`). Prints a markdown table: wall time of each case (the work is
 * synchronous, so this is also how long the event loop is blocked) and its result.
 */
import { createGptTokenizer } from '../src/adapters/tokenizer/gpt-tokenizer.js';
import { createChatEngine, redactPII } from '../src/index.js';

interface Row {
  readonly name: string;
  readonly ms: number;
  readonly detail: string;
}

async function measure(name: string, run: () => Promise<string> | string): Promise<Row> {
  const started = performance.now();
  const detail = await run();
  return { name, ms: performance.now() - started, detail };
}

const tokenizer = await createGptTokenizer();
const rows: Row[] = [];

rows.push(
  await measure('ingest a 200k-character `=` run', async () => {
    const engine = createChatEngine();
    const result = await engine.ingest([{ id: 'equals', text: '='.repeat(200_000) }]);
    return `${result.chunks} chunks`;
  }),
);
rows.push(
  await measure('count a 100k-character answer without spaces', () => {
    const text = 'abcdefghij'.repeat(10_000);
    return `${tokenizer.count(text)} tokens`;
  }),
);
rows.push(
  await measure(
    'count a 100k-character `a` run',
    () => `${tokenizer.count('a'.repeat(100_000))} tokens`,
  ),
);
rows.push(
  await measure('ingest a 9.9M-character single paragraph', async () => {
    const engine = createChatEngine();
    const sentence = 'The quick brown fox jumps over the lazy dog again ';
    const text = sentence.repeat(Math.floor(9_900_000 / sentence.length));
    try {
      const result = await engine.ingest([{ id: 'huge', text }]);
      return `${result.chunks} chunks`;
    } catch (error) {
      return `threw ${(error as Error).name}: ${(error as Error).message.slice(0, 80)}`;
    }
  }),
);

rows.push(
  await measure('ingest a 9.9M-character paragraph of 1.4M short sentences', async () => {
    const engine = createChatEngine();
    const text = 'Go on. '.repeat(Math.floor(9_900_000 / 7));
    try {
      const result = await engine.ingest([{ id: 'sentences', text }]);
      return `${result.chunks} chunks`;
    } catch (error) {
      return `threw ${(error as Error).name}: ${(error as Error).message.slice(0, 80)}`;
    }
  }),
);

// `redactPII` on hostile messages (a message is at most `limits.maxMessageLength`, 16,000 by
// default, but a host may raise it): one long run of the characters each pattern accepts.
for (const [name, text] of [
  ['letters', 'a'.repeat(100_000)],
  ['digits', '1'.repeat(100_000)],
  ['an `@` and letters', `a@${'b'.repeat(100_000)}`],
  ['`b.` repeated after an `@`', `a@${'b.'.repeat(50_000)}`],
  ['`+1 ` repeated', '+1 '.repeat(33_000)],
] as const) {
  rows.push(
    await measure(`redactPII on 100k characters: ${name}`, () => {
      const redacted = redactPII(text);
      return redacted === text ? 'unchanged' : `${redacted.length} characters left`;
    }),
  );
}

console.log('| case | wall ms | result |');
console.log('| --- | ---: | --- |');
for (const row of rows) {
  console.log(`| ${row.name} | ${row.ms.toFixed(0)} | ${row.detail} |`);
}
