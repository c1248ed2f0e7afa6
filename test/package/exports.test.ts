import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { entries } from '../../tsup.config.js';

const root = join(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  exports: Record<
    string,
    | string
    | { import: { types: string; default: string }; require: { types: string; default: string } }
  >;
  bin: Record<string, string>;
  types: string;
  typesVersions: Record<string, Record<string, string[]>>;
};

/** The subpath a tsup entry is published under: `index` is `.`, `x` is `./x`. */
const subpathOf = (entry: string) => (entry === 'index' ? '.' : `./${entry}`);

describe('package.json exports and tsup entries', () => {
  const exported = Object.keys(pkg.exports).filter((subpath) => subpath !== './package.json');

  it('publish exactly the built entries', () => {
    expect(exported.sort()).toEqual(Object.keys(entries).map(subpathOf).sort());
  });

  it('point each subpath at the files tsup writes for its entry', () => {
    for (const entry of Object.keys(entries)) {
      const target = pkg.exports[subpathOf(entry)];
      expect(target).toEqual({
        import: { types: `./dist/${entry}.d.ts`, default: `./dist/${entry}.js` },
        require: { types: `./dist/${entry}.d.cts`, default: `./dist/${entry}.cjs` },
      });
    }
  });

  it('resolve every subpath under node10 too (typesVersions, same declarations as `types`)', () => {
    expect(pkg.types).toBe('./dist/index.d.ts');
    expect(pkg.typesVersions).toEqual({
      '*': Object.fromEntries(
        Object.keys(entries)
          .filter((entry) => entry !== 'index')
          .map((entry) => [entry, [`./dist/${entry}.d.ts`]]),
      ),
    });
  });

  it('document every entry in the API reference (typedoc.json)', () => {
    const typedoc = JSON.parse(readFileSync(join(root, 'typedoc.json'), 'utf8')) as {
      entryPoints: string[];
    };
    expect([...typedoc.entryPoints].sort()).toEqual(Object.values(entries).sort());
  });

  it('build every entry from a source file that exists', () => {
    for (const source of Object.values(entries)) {
      expect(() => readFileSync(join(root, source))).not.toThrow();
    }
    expect(pkg.bin.cortexis).toBe('./dist/cli.js');
  });

  it('let tsc resolve every subpath to its sources (tsconfig paths), as vitest does', () => {
    const tsconfig = JSON.parse(readFileSync(join(root, 'tsconfig.json'), 'utf8')) as {
      compilerOptions: { paths: Record<string, string[]> };
    };
    const expected = Object.fromEntries(
      Object.entries(entries).map(([entry, source]) => [
        entry === 'index' ? 'cortexis' : `cortexis/${entry}`,
        [`./${source}`],
      ]),
    );
    expect(tsconfig.compilerOptions.paths).toEqual(expected);
  });
});

describe('core entry', () => {
  it('has no node: imports (it runs in browsers and edge workers)', async () => {
    const { build } = await import('esbuild');
    const result = await build({
      entryPoints: [join(root, 'src/index.ts')],
      bundle: true,
      write: false,
      platform: 'neutral',
      format: 'esm',
      mainFields: ['module', 'main'],
      metafile: true,
      logLevel: 'silent',
      external: ['gpt-tokenizer', 'gpt-tokenizer/*'],
    });
    const inputs = Object.values(result.metafile.inputs).flatMap((input) =>
      input.imports.map((i) => i.path),
    );
    expect(inputs.filter((path) => path.startsWith('node:'))).toEqual([]);
  });
});
