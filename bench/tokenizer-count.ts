/**
 * What byte-pair encoding costs a process that sees a corpus's words for the first time: the
 * distinct pieces SciFact's texts are cut into for exact token counts (`src/ingest/token-count.ts`
 * cuts at a space between printable ASCII and an ASCII letter), each counted once by a fresh
 * `cl100k_base` tokenizer (cold: every piece is new to it), then once more (its caches warm).
 * Prints the CPU time of loading the encoding and of each pass. Run each tree in a fresh
 * process, alternating:
 *
 * ```
 * node --import tsx bench/tokenizer-count.ts --data ../shared/data/scifact [--root DIR]
 * ```
 *
 * `--root DIR` counts with the tokenizer of another tree (a copy of a commit to compare with).
 */
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadavg } from 'node:os';
import type { Tokenizer } from '../src/ports/tokenizer.js';
import { hasSciFact, loadCorpus, sciFactDir } from './scifact.js';

function flag(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

/** The pieces `token-count.ts` counts: cut at a space after printable ASCII before a letter. */
function pieces(text: string, into: Set<string>): void {
  let start = 0;
  for (let index = 1; index + 1 < text.length; index++) {
    if (text.charCodeAt(index) !== 32 || index === start) continue;
    const before = text.charCodeAt(index - 1);
    const after = text.charCodeAt(index + 1) | 0x20;
    if (before > 32 && before < 127 && after >= 97 && after <= 122) {
      into.add(text.slice(start, index));
      start = index;
    }
  }
  into.add(text.slice(start));
}

/** CPU milliseconds of `work`. */
async function cpuTime<T>(work: () => T | Promise<T>): Promise<[number, T]> {
  const usage = process.cpuUsage();
  const result = await work();
  const used = process.cpuUsage(usage);
  return [(used.user + used.system) / 1000, result];
}

async function main(): Promise<void> {
  const dir = sciFactDir();
  if (!hasSciFact(dir)) throw new Error(`SciFact not found in ${dir} (pass --data DIR)`);
  const root = resolve(flag('--root') ?? join(import.meta.dirname, '..'));
  const distinct = new Set<string>();
  for (const doc of loadCorpus(dir)) pieces(doc.text, distinct);
  // Copies: no piece arrives with a hash or flattened form V8 computed while collecting it.
  const list = [...distinct].map((piece) => ` ${piece}`.slice(1));
  const module = (await import(
    pathToFileURL(join(root, 'src/adapters/tokenizer/gpt-tokenizer.ts')).href
  )) as { createGptTokenizer: () => Promise<Tokenizer> };
  const [loadMs, tokenizer] = await cpuTime(() => module.createGptTokenizer());
  const pass = () => {
    let tokens = 0;
    for (const piece of list) tokens += tokenizer.count(piece);
    return tokens;
  };
  const [coldMs, tokens] = await cpuTime(pass);
  const [warmMs] = await cpuTime(pass);
  const load = loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
  console.log(
    `${root}: ${list.length} pieces, ${tokens} tokens; CPU: encoding loaded ${loadMs.toFixed(0)} ms, ` +
      `cold pass ${coldMs.toFixed(0)} ms, warm pass ${warmMs.toFixed(0)} ms; load ${load}`,
  );
}

await main();
