import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createChatEngine } from 'cortexis';
import { createMockLLM } from 'cortexis/testing';

// Issue 28: no text function backtracks. Every exported function of the text modules (and of
// the other modules that scan documents or answers) is fed runs of each ASCII punctuation
// character and of `…`, at 10k and 100k characters. The check is a ratio of the CPU time this
// process spent, not a time budget and not wall time: linear work takes about 10× as much on
// 10× the input; quadratic work takes 100×. Waiting for a core on a loaded machine is not
// counted, so other processes move neither size. Whatever the `answers` task renames in src/text, the
// enumeration below picks it up.
const SRC = join(import.meta.dirname, '../../src');
const MODULES = [
  ...readdirSync(join(SRC, 'text')).map((name) => `text/${name}`),
  'ingest/chunk.ts',
  'ingest/chunk-structure.ts',
  'ingest/chunk-atoms.ts',
  'ingest/graph-links.ts',
  'ingest/graph-terms.ts',
  'ingest/html.ts',
  'loaders/text.ts',
  'loaders/markdown.ts',
  'loaders/front-matter-flat.ts',
  'loaders/html.ts',
  'loaders/xml-scan.ts',
  'pipeline/judge/claims.ts',
  'pipeline/rewrite.ts',
  'pipeline/route/intent.ts',
  'pipeline/turn/small-talk.ts',
  'resilience/fallback.ts',
].filter((path) => path.endsWith('.ts'));

/**
 * Exported functions that take no text: fed a string, they measure something else. Each says
 * what bounds its real input.
 */
const NOT_TEXT: Readonly<Record<string, string>> = {
  // A parsed YAML mapping, of at most maxFrontMatterKeys keys (fed a string, it makes an object
  // of 100k integer keys: V8's cost, not a pattern's).
  frontMatterMetadata: 'a mapping of at most limits.maxFrontMatterKeys keys',
};

const CHARACTERS = [
  ...Array.from({ length: 0x7f - 0x21 }, (_, index) => String.fromCharCode(0x21 + index)).filter(
    (char) => !/[A-Za-z0-9]/.test(char),
  ),
  '…',
  ' ',
  '\n',
];

/** A run that also has text around it, as an answer or a document would. */
const input = (char: string, length: number) => `Refunds take two weeks ${char.repeat(length)} x`;

/** CPU ms this process has spent (user + system): waiting for a core is not counted. */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

function timed(run: () => unknown): number {
  const started = cpuMs();
  try {
    const result = run();
    // A function that wants other arguments may reject later: never an unhandled rejection.
    if (result instanceof Promise) result.catch(() => undefined);
  } catch {
    // Functions that want other arguments fail fast; that is linear too.
  }
  return cpuMs() - started;
}

/** CPU ms for `length` characters: the least of `repeat` runs (noise only ever adds time). */
function best(run: (text: string) => unknown, char: string, length: number, repeat: number) {
  const text = input(char, length);
  let least = Infinity;
  for (let index = 0; index < repeat; index++)
    least = Math.min(
      least,
      timed(() => run(text)),
    );
  return least;
}

/** Functions that took super-linear time: `name(char)` with both timings. */
function superLinear(name: string, run: (text: string) => unknown): string[] {
  const slow: string[] = [];
  for (const char of CHARACTERS) {
    const small = best(run, char, 10_000, 3);
    let large = best(run, char, 100_000, 1);
    // 100k at most 40× 10k (linear is 10×, quadratic 100×), with 50 ms of slack for timer,
    // JIT and GC noise on a loaded machine.
    if (large > 40 * small + 50) large = best(run, char, 100_000, 2);
    if (large > 40 * small + 50) {
      slow.push(
        `${name}(${JSON.stringify(char)}): 10k ${small.toFixed(1)} ms, 100k ${large.toFixed(1)} ms`,
      );
    }
  }
  return slow;
}

describe('no text function takes super-linear time on runs of punctuation', () => {
  for (const module of MODULES) {
    it(`src/${module}`, async () => {
      const exports = (await import(join(SRC, module))) as Record<string, unknown>;
      const functions = Object.entries(exports).filter(
        (entry): entry is [string, (text: string) => unknown] =>
          typeof entry[1] === 'function' && !/^[A-Z]/.test(entry[0]) && !(entry[0] in NOT_TEXT),
      );
      const slow = functions.flatMap(([name, run]) => superLinear(name, run));
      expect(slow).toEqual([]);
    }, 300_000);
  }

  it('an engine turn whose model answer ends in a run of one character', async () => {
    const slow: string[] = [];
    for (const char of ['.', '…', '!', '?', '[', ']', '(', '#', '*', '`']) {
      const turn = async (length: number) => {
        const text = `Refunds take two weeks [source: S1] ${char.repeat(length)}`;
        const engine = createChatEngine({ llm: createMockLLM({ responses: [text] }) });
        await engine.ingest([
          { id: 'a', text: 'Refunds take two weeks after the return arrives.' },
        ]);
        const started = cpuMs();
        await engine.chat({ message: 'How long do refunds take?', mode: 'query' });
        return cpuMs() - started;
      };
      const small = Math.min(await turn(5_000), await turn(5_000));
      const large = Math.min(await turn(50_000), await turn(50_000));
      if (large > 25 * small + 50)
        slow.push(`${char}: 5k ${small.toFixed(0)} ms, 50k ${large.toFixed(0)} ms`);
    }
    expect(slow).toEqual([]);
  }, 300_000);
});
