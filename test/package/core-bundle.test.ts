/**
 * The core entry is bundled the way a user's bundler sees it (esbuild, runtime-neutral, the
 * package's dependencies external as tsup leaves them) and its inputs are checked: the remote
 * provider adapters live behind their own subpaths and `cortexis/providers`, never in
 * `cortexis` itself (issue 15: no implicit remote provider, and no bytes for one).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import tsupConfig, { entries } from '../../tsup.config.js';

const root = join(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
};

/** What tsup leaves external: dependencies, peer dependencies and its `external` list. */
function externals(): string[] {
  const configs = Array.isArray(tsupConfig) ? tsupConfig : [tsupConfig];
  const listed = configs.flatMap((config) =>
    'external' in config && Array.isArray(config.external)
      ? config.external.filter((name): name is string => typeof name === 'string')
      : [],
  );
  const names = new Set([
    ...Object.keys(pkg.dependencies ?? {}),
    ...Object.keys(pkg.peerDependencies ?? {}),
    ...listed,
  ]);
  return [...names].flatMap((name) => [name, `${name}/*`]);
}

/** The source files (relative to the repository) an entry's bundle is built from. */
async function bundleInputs(entry: string): Promise<string[]> {
  const { build } = await import('esbuild');
  const result = await build({
    absWorkingDir: root,
    entryPoints: [join(root, entry)],
    bundle: true,
    write: false,
    platform: 'neutral',
    format: 'esm',
    target: 'es2022',
    mainFields: ['module', 'main'],
    metafile: true,
    logLevel: 'silent',
    external: externals(),
  });
  return Object.keys(result.metafile.inputs);
}

const PROVIDER_CODE = /^src\/adapters\/(openai|anthropic|ollama|providers)\/|provider-factory/;

describe('core entry bundle', () => {
  it('contains no provider adapter, statically or through a dynamic import', async () => {
    const inputs = await bundleInputs(entries.index);
    expect(inputs.length).toBeGreaterThan(10);
    expect(inputs.filter((input) => PROVIDER_CODE.test(input))).toEqual([]);
  });

  it('cortexis/providers carries them instead (so the check above can fail)', async () => {
    const inputs = await bundleInputs(entries.providers);
    for (const adapter of ['openai', 'anthropic', 'ollama']) {
      expect(inputs).toContain(`src/adapters/${adapter}/index.ts`);
    }
  });
});
