/**
 * `node --trace-opt --trace-deopt --import tsx bench/turn-jit.ts [--tree DIR] [--turns N]
 * [--warm N] > LOG`, then `node --import tsx bench/turn-jit.ts --count LOG`: what V8's JIT
 * still does during `bench:peers` turns, counted (counts hold under load, times do not). The
 * engine is built as `bench/peers/stacks/cortexis.ts` builds it and warmed up as
 * `bench/turn-wall.ts` does (5 turns on a throwaway engine, 20 on the measured one; `--warm N`:
 * N more over train claims); the timed loop's test claims (`--turns`, default 200) are fenced by
 * marker lines in the log. `--count LOG` prints, for the fenced turns only, the optimising
 * compiles and the deoptimisations per function (and deoptimisations per reason).
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadCorpus, loadQueries, sciFactDir } from './scifact.js';

const BEGIN = '=== turn-jit: timed turns begin ===';
const END = '=== turn-jit: timed turns end ===';

function flag(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

/** Count of each key, largest first. */
function tally(keys: readonly string[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

function count(file: string): void {
  const text = readFileSync(file, 'utf8');
  const begin = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  if (begin < 0 || end < 0) throw new Error(`no markers in ${file}`);
  const lines = text.slice(begin, end).split('\n');
  const compiles: string[] = [];
  const compileMs = new Map<string, number>();
  const deopts: string[] = [];
  const reasons: string[] = [];
  for (const line of lines) {
    // `[completed compiling 0x… <JSFunction name (sfi = 0x…)> (target TURBOFAN) - took a, b, c ms]`
    // (b: the compile job's own time, on a helper thread when concurrent)
    const compiled =
      /^\[completed compiling .*?<JSFunction ([^ >]*) ?\(sfi.*took [\d.]+, ([\d.]+)/.exec(line);
    if (compiled) {
      const name = compiled[1] || '(anonymous)';
      compiles.push(name);
      compileMs.set(name, (compileMs.get(name) ?? 0) + Number(compiled[2]));
    }
    // `[bailout (kind: deopt-eager, reason: wrong map): begin. deoptimizing 0x…, <JSFunction name …`
    const bailout = /^\[bailout \(kind: ([^,]+), reason: ([^)]*)\).*?<JSFunction ([^ >]*)/.exec(
      line,
    );
    if (bailout) {
      deopts.push(`${bailout[3] || '(anonymous)'} (${bailout[2]})`);
      reasons.push(`${bailout[1]}: ${bailout[2]}`);
    }
  }
  let totalMs = 0;
  for (const ms of compileMs.values()) totalMs += ms;
  console.log(
    `optimising compiles: ${compiles.length} (${totalMs.toFixed(0)} ms of compile jobs); deoptimisations: ${deopts.length}`,
  );
  console.log('| function | compiles | compile ms |\n| --- | --- | --- |');
  for (const [name, n] of tally(compiles).slice(0, 25)) {
    console.log(`| ${name} | ${n} | ${(compileMs.get(name) ?? 0).toFixed(0)} |`);
  }
  console.log('| function (reason) | deopts |\n| --- | --- |');
  for (const [name, n] of tally(deopts).slice(0, 25)) console.log(`| ${name} | ${n} |`);
  console.log('| kind: reason | deopts |\n| --- | --- |');
  for (const [name, n] of tally(reasons)) console.log(`| ${name} | ${n} |`);
}

async function run(): Promise<void> {
  const tree = flag('--tree') ?? resolve(import.meta.dirname, '..');
  const cortexis = (await import(
    pathToFileURL(join(resolve(tree), 'src/index.ts')).href
  )) as typeof import('../src/index.js');
  const dir = sciFactDir();
  const documents = loadCorpus(dir).map(({ id, title, text }) => ({ id, title, text }));
  const questions = loadQueries(dir, 'test').map((query) => query.text);
  const train = loadQueries(dir, 'train').map((query) => query.text);
  const turns = Number(flag('--turns') ?? 200);
  const open = () =>
    cortexis.createChatEngine({ embedder: cortexis.createHashingEmbedder({ dimensions: 256 }) });
  let users = 0;
  const ask = async (engine: ReturnType<typeof open>, message: string) => {
    const userId = `user-${++users}`;
    const session = await engine.createSession({ userId });
    return engine.chat({ sessionId: session.id, userId, message });
  };
  const idle = (): Promise<void> => new Promise((done) => setImmediate(done));
  const warm = open();
  await warm.ingest(documents.slice(0, 50));
  for (const question of questions.slice(0, 5)) await ask(warm, question);
  const engine = open();
  await engine.ingest(documents);
  for (const question of questions.slice(0, 20)) await ask(engine, question);
  for (const question of train.slice(0, Number(flag('--warm') ?? 0))) await ask(engine, question);
  await idle();
  console.log(BEGIN);
  for (const question of questions.slice(0, turns)) {
    await idle();
    await ask(engine, question);
  }
  console.log(END);
}

const log = flag('--count');
if (log !== undefined) count(log);
else await run();
