/**
 * The package's hashing embedder of two trees in one process, alternating: this tree's and the
 * one in `--before DIR` (a `git archive` copy with `node_modules` linked). Each pass embeds the
 * texts a SciFact ingest embeds (title, line break, abstract) with a fresh
 * `createHashingEmbedder({ dimensions })` of each tree (so its feature table starts empty, as in
 * a new engine; module-level word tables stay warm after the first pass, as in one process),
 * in batches of 256. Prints the CPU time per pass and the medians, and checks that both trees
 * give the same vectors.
 *
 * ```
 * node --import tsx bench/embed-ab.ts --before /tmp/base --data ../shared/data/scifact [--rounds 9] [--dimensions 256]
 * ```
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { hasSciFact, loadCorpus, sciFactDir } from './scifact.js';

type Embedder = { embed(texts: readonly string[]): Promise<Float32Array[]> };
type Module = { createHashingEmbedder(settings: { dimensions: number }): Embedder };

const { values: options } = parseArgs({
  options: {
    before: { type: 'string' },
    data: { type: 'string' },
    rounds: { type: 'string', default: '9' },
    dimensions: { type: 'string', default: '256' },
  },
});

/** The middle value (the upper one of an even count). */
const middle = (values: readonly number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const dir = sciFactDir();
  if (!hasSciFact(dir)) throw new Error(`SciFact not found in ${dir} (pass --data DIR)`);
  const before = options.before;
  if (before === undefined) throw new Error('pass --before DIR');
  const rounds = Number(options.rounds);
  const dimensions = Number(options.dimensions);
  const texts = loadCorpus(dir).map((doc) => (doc.title ? `${doc.title}\n${doc.text}` : doc.text));
  const load = async (root: string): Promise<Module> =>
    (await import(pathToFileURL(join(root, 'src/index.ts')).href)) as Module;
  const trees = [
    { name: 'before', module: await load(resolve(before)), cpu: [] as number[] },
    { name: 'after', module: await load(join(import.meta.dirname, '..')), cpu: [] as number[] },
  ];
  const digests: number[][] = [[], []];
  for (let round = -1; round < rounds; round++) {
    for (const [index, tree] of trees.entries()) {
      const embedder = tree.module.createHashingEmbedder({ dimensions });
      const start = process.cpuUsage();
      let sum = 0;
      for (let at = 0; at < texts.length; at += 256) {
        for (const vector of await embedder.embed(texts.slice(at, at + 256))) sum += vector[0]!;
      }
      const used = process.cpuUsage(start);
      if (round >= 0) tree.cpu.push((used.user + used.system) / 1000);
      digests[index]!.push(sum);
    }
  }
  console.log(
    `hashing embedder (${dimensions}-d), ${texts.length} texts, ${rounds} alternating rounds, load ${loadavg()
      .map((value) => value.toFixed(2))
      .join(
        ' ',
      )}; same vectors: ${digests[0]!.every((value, index) => value === digests[1]![index])}`,
  );
  for (const tree of trees) {
    const cpu = tree.cpu.map((value) => value.toFixed(0)).join(' ');
    console.log(`${tree.name}: CPU per pass median ${middle(tree.cpu).toFixed(0)} ms (${cpu})`);
  }
}

await main();
