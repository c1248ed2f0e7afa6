/**
 * `node --import tsx bench/resilience-ab.ts --b-dir DIR [--calls N] [--rounds R]`: CPU µs per
 * call of the resilient wrapper alone (`createResilientLLM` / `createResilientEmbedder` around
 * an instant in-process provider, and `withTimeout`), this tree (A) against the tree in DIR
 * (B), both loaded in one process and run alternately per case (A B, then B A, …). Prints the
 * median and range per side and the ratio B/A per round (> 1: this tree is cheaper).
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

function flag(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index >= 0 ? process.argv[index + 1] : undefined;
}
const bDir = flag('--b-dir');
if (!bDir) throw new Error('usage: bench/resilience-ab.ts --b-dir DIR [--calls N] [--rounds R]');
const A = await import('../src/resilience/index.js');
const B = (await import(pathToFileURL(resolve(bDir, 'src/resilience/index.ts')).href)) as typeof A;
const N = Number(flag('--calls') ?? 30_000);
const ROUNDS = Number(flag('--rounds') ?? 11);
const cpu = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
type Mod = typeof A;
function llmOf(readSignal: boolean) {
  return {
    name: 'instant',
    specificationVersion: 'v1' as const,
    metadata: {
      provider: 'instant',
      model: 'm',
      type: 'local' as const,
      supportedModels: ['m'],
      contextWindow: 1000,
    },
    async generate(request: { signal?: AbortSignal }) {
      if (readSignal && request.signal?.aborted) throw new Error('aborted');
      return { text: 'ok', finishReason: 'stop' as const };
    },
    async *stream() {
      yield { type: 'text-delta' as const, text: 'x' };
    },
  };
}
function embOf() {
  return {
    name: 'emb',
    specificationVersion: 'v1' as const,
    id: 'e',
    dimensions: 2,
    async embed(texts: readonly string[], options?: { signal?: AbortSignal }) {
      if (options?.signal?.aborted) throw new Error('aborted');
      return texts.map(() => new Float32Array(2));
    },
  };
}
function cases(m: Mod) {
  const read = m
    .createResilientLLM(llmOf(true) as never)
    .withContext({ conversationId: 's', hooks: { onRetry: () => {} } });
  const noread = m.createResilientLLM(llmOf(false) as never);
  const emb = m.createResilientEmbedder(embOf() as never);
  const caller = new AbortController().signal;
  const req = { messages: [{ role: 'user' as const, content: 'hi' }] };
  return {
    'generate (reads signal)': () => read.generate(req as never),
    'generate (caller signal)': () => read.generate({ ...req, signal: caller } as never),
    'generate (ignores signal)': () => noread.generate(req as never),
    'embed (reads signal)': () => emb.embed(['q']),
    withTimeout: () => m.withTimeout(async (s) => s.aborted, { timeoutMs: 60_000 }),
  } as Record<string, () => Promise<unknown>>;
}
const ca = cases(A),
  cb = cases(B);
async function time(fn: () => Promise<unknown>) {
  const t = cpu();
  for (let i = 0; i < N; i++) await fn();
  return (cpu() - t) / N;
}
for (const k of Object.keys(ca)) {
  for (let i = 0; i < 3000; i++) {
    await ca[k]!();
    await cb[k]!();
  }
}
const res: Record<string, { a: number[]; b: number[] }> = {};
for (let r = 0; r < ROUNDS; r++) {
  for (const k of Object.keys(ca)) {
    const e = (res[k] ??= { a: [], b: [] });
    if (r % 2 === 0) {
      e.a.push(await time(ca[k]!));
      e.b.push(await time(cb[k]!));
    } else {
      e.b.push(await time(cb[k]!));
      e.a.push(await time(ca[k]!));
    }
  }
}
const med = (x: number[]) => [...x].sort((p, q) => p - q)[Math.floor(x.length / 2)]!;
console.log(
  'case'.padEnd(28),
  'A µs (med, min-max)'.padEnd(22),
  'B µs (med, min-max)'.padEnd(22),
  'B/A per round: median (min-max)',
);
for (const [k, { a, b }] of Object.entries(res)) {
  const ratios = a.map((x, i) => b[i]! / x);
  console.log(
    k.padEnd(28),
    `${med(a).toFixed(1)} (${Math.min(...a).toFixed(1)}-${Math.max(...a).toFixed(1)})`.padEnd(22),
    `${med(b).toFixed(1)} (${Math.min(...b).toFixed(1)}-${Math.max(...b).toFixed(1)})`.padEnd(22),
    `${med(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)})`,
  );
}
