/**
 * `node --import tsx bench/profile-summary.ts FILE.cpuprofile [--per N] [--top N]`: prints the
 * functions with the most self time and the most inclusive time in a V8 CPU profile (as
 * `bench/turn-profile.ts --profile` writes), in ms and in ms per turn when `--per N` gives the
 * number of turns profiled.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: {
    readonly functionName: string;
    readonly url: string;
    readonly lineNumber: number;
  };
  readonly children?: readonly number[];
}

interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
  readonly startTime: number;
  readonly endTime: number;
}

function flag(name: string, fallback: string): string {
  const index = process.argv.indexOf(name);
  return index >= 0 ? (process.argv[index + 1] ?? fallback) : fallback;
}

const path = process.argv[2];
if (!path) throw new Error('usage: profile-summary.ts FILE.cpuprofile [--per N] [--top N]');
const profile = JSON.parse(readFileSync(path, 'utf8')) as Profile;
const per = Number(flag('--per', '1'));
const top = Number(flag('--top', '30'));

const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map<number, number>();
for (const node of profile.nodes)
  for (const child of node.children ?? []) parent.set(child, node.id);

const key = (node: ProfileNode): string => {
  const url = node.callFrame.url.replace(/^.*\/(src|node_modules)\//, '$1/');
  return `${node.callFrame.functionName || '(anonymous)'} ${url}:${node.callFrame.lineNumber + 1}`;
};

const self = new Map<string, number>();
const inclusive = new Map<string, number>();
let total = 0;
for (let i = 0; i < profile.samples.length; i++) {
  const delta = (profile.timeDeltas[i + 1] ?? 0) / 1000;
  total += delta;
  let node = byId.get(profile.samples[i]!);
  if (!node) continue;
  self.set(key(node), (self.get(key(node)) ?? 0) + delta);
  const seen = new Set<string>();
  while (node) {
    const name = key(node);
    if (!seen.has(name)) {
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + delta);
    }
    const up = parent.get(node.id);
    node = up === undefined ? undefined : byId.get(up);
  }
}

const print = (title: string, table: Map<string, number>): void => {
  console.log(`\n${title} (total ${total.toFixed(0)} ms, ${(total / per).toFixed(3)} ms/turn)`);
  for (const [name, ms] of [...table].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(
      `${((100 * ms) / total).toFixed(1).padStart(5)} %  ${(ms / per).toFixed(3)} ms  ${name}`,
    );
  }
};
print('self time', self);
print('inclusive time', inclusive);
