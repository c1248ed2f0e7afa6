/**
 * Vitest global set-up: bundles the CLI, and the test scripts spawned dozens of times, from the
 * sources once per run, so that their tests spawn `node <bundle>/<script>.js` instead of
 * compiling the sources with tsx at every spawn (about 2.5× the CPU of a spawn;
 * docs/benchmarks.md, "Round 13 merged (lead)"). The bundle holds what
 * the package's build puts next to the CLI and loads by path at run time: the ingest pool and
 * its worker, the loaders' parse worker and the BPE tables. Packages stay external and resolve
 * from the repository's node_modules, inside which the bundle is written (one folder per run,
 * removed at the end; within three folders of package.json, where `--version` looks).
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { TestProject } from 'vitest/node';
import { workerEntries } from '../../tsup.config.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The bundled CLI's script (`cli.js`), built from the sources for this run. */
    cliScript: string;
    /** `test/fixtures/sqlite-turn-writer.ts`, bundled for this run (the crash test's writer). */
    sqliteTurnWriterScript: string;
  }
}

const root = join(import.meta.dirname, '../..');

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const outdir = join(root, 'node_modules/.cache', `cortexis-cli-${process.pid}`);
  await rm(outdir, { recursive: true, force: true });
  await build({
    absWorkingDir: root,
    entryPoints: {
      cli: 'src/cli/main.ts',
      'sqlite-turn-writer': 'test/fixtures/sqlite-turn-writer.ts',
      ...workerEntries,
      'encodings/cl100k_base': 'src/adapters/tokenizer/encodings/cl100k_base.ts',
      'encodings/o200k_base': 'src/adapters/tokenizer/encodings/o200k_base.ts',
    },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    // Chunks sit next to the entries: the code finds the workers and tables relative to itself.
    chunkNames: 'chunk-[hash]',
    logLevel: 'error',
  });
  project.provide('cliScript', join(outdir, 'cli.js'));
  project.provide('sqliteTurnWriterScript', join(outdir, 'sqlite-turn-writer.js'));
  return () => rm(outdir, { recursive: true, force: true });
}
