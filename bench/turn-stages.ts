/**
 * `node --import tsx bench/turn-stages.ts FILE.cpuprofile [--per N] [--cpu MS]`: a turn's CPU
 * by stage, from a CPU profile of turns (`bench/turn-profile.ts --profile FILE`, N = 600 for its
 * 300 query turns and 300 session turns). Each sample goes to the innermost stack frame that
 * names a stage (the store's search inside retrieval, the extractive model inside generation,
 * the judge inside the grounding step), so a stage's share holds what it calls (the text
 * analysis and the tokenizer count for the stage that called them); the garbage
 * collector and what runs outside a turn are listed apart. The profiler inflates every figure
 * (about 2× on this machine): the share is the reading; `--cpu MS`, the plain CPU time per turn
 * of the same run without the profiler, converts the shares into ms per turn.
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

export interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string };
  readonly children?: readonly number[];
}

export interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** A stage and how to recognise its frames: a function name (optional) in a file matching `file`. */
interface StageRule {
  readonly stage: string;
  readonly file: RegExp;
  readonly functions?: readonly string[];
}

/** Innermost match wins, so the inner rules (adapters, analyses) come before their callers. */
export const STAGE_RULES: readonly StageRule[] = [
  { stage: 'garbage collector', file: /^$/, functions: ['(garbage collector)'] },
  { stage: 'model (extractive)', file: /adapters\/extractive\// },
  { stage: 'judge', file: /pipeline\/judge(\.ts|\/)/ },
  { stage: 'guard and focus check', file: /pipeline\/guard[\w-]*\.ts/ },
  { stage: 'confidence', file: /pipeline\/score\.ts/ },
  { stage: 'citations', file: /pipeline\/cite(\.ts|\/)/ },
  { stage: 'retrieval: vector store', file: /adapters\/memory\/vector-/ },
  { stage: 'retrieval: embed query', file: /adapters\/hashing\/|pipeline\/embedding-cache/ },
  { stage: 'retrieval: keyword index', file: /adapters\/memory\/keyword-/ },
  { stage: 'retrieval: graph', file: /adapters\/memory\/graph-|pipeline\/graph-rerank/ },
  { stage: 'retrieval: fusion, scores, route', file: /pipeline\/(retrieve|route|rewrite)/ },
  { stage: 'pack (token counts)', file: /pipeline\/pack\.ts/ },
  { stage: 'prompt and sources', file: /pipeline\/(prompt|turn\/sources)\.ts/ },
  { stage: 'recall', file: /pipeline\/recall\.ts/ },
  {
    stage: 'session, history, persist',
    file: /adapters\/memory\/(session|learning)|pipeline\/(compact|remember|learn)|turn\/(finish|user-message|session|position|memory-evidence)/,
  },
  { stage: 'resilience (timeouts, breaker)', file: /src\/resilience\// },
  // Not engine/runtime.ts: its closures wrap the tokenizer and models for the stages above.
  {
    stage: 'rest of the turn',
    file: /src\/(pipeline|engine\/(?!runtime)|util|events|validate|engine\.ts)/,
  },
];

function stageOf(node: ProfileNode): string | undefined {
  const { functionName, url } = node.callFrame;
  for (const rule of STAGE_RULES) {
    if (rule.functions ? rule.functions.includes(functionName) : rule.file.test(url)) {
      return rule.stage;
    }
  }
  return undefined;
}

/** ms of samples per stage (`outside a turn` for stacks without a stage frame). */
export function stageTimes(profile: Profile): Map<string, number> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parent.set(child, node.id);
  const memo = new Map<number, string>();
  const resolve = (id: number): string => {
    const known = memo.get(id);
    if (known !== undefined) return known;
    const own = stageOf(byId.get(id)!);
    const up = parent.get(id);
    const stage = own ?? (up === undefined ? 'outside a turn (idle, bench)' : resolve(up));
    memo.set(id, stage);
    return stage;
  };
  const times = new Map<string, number>();
  profile.samples.forEach((sample, index) => {
    const stage = resolve(sample);
    times.set(stage, (times.get(stage) ?? 0) + (profile.timeDeltas[index] ?? 0) / 1000);
  });
  return times;
}

function option(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

function main(): void {
  const file = process.argv[2];
  if (file === undefined || file.startsWith('--')) {
    throw new Error('usage: bench/turn-stages.ts FILE.cpuprofile [--per N] [--cpu MS]');
  }
  const per = Number(option('--per') ?? '1');
  const cpu = option('--cpu') === undefined ? undefined : Number(option('--cpu'));
  const times = stageTimes(JSON.parse(readFileSync(file, 'utf8')) as Profile);
  const outside = 'outside a turn (idle, bench)';
  const inTurn = [...times].filter(([stage]) => stage !== outside);
  const total = inTurn.reduce((sum, [, ms]) => sum + ms, 0);
  console.log(
    `| stage | profiled ms/turn | share of the turn |${cpu === undefined ? '' : ' ms/turn at the plain CPU |'}`,
  );
  console.log(`| --- | --- | --- |${cpu === undefined ? '' : ' --- |'}`);
  for (const [stage, ms] of inTurn.sort((a, b) => b[1] - a[1])) {
    const share = ms / total;
    console.log(
      `| ${stage} | ${(ms / per).toFixed(3)} | ${(100 * share).toFixed(1)} % |${cpu === undefined ? '' : ` ${(share * cpu).toFixed(2)} |`}`,
    );
  }
  console.log(
    `| all of the turn | ${(total / per).toFixed(3)} | 100 % |${cpu === undefined ? '' : ` ${cpu.toFixed(2)} |`}`,
  );
  console.log(`(${outside}: ${((times.get(outside) ?? 0) / per).toFixed(3)} ms per turn)`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main();
}
