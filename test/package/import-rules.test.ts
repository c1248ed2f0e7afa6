/**
 * The architecture's import rules hold on `src/` (docs/architecture.md), and the checker itself
 * catches each kind of broken rule on a small fixture tree, so a passing run means something.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkImportRules, isAllowed, layerOf } from '../../scripts/import-rules.js';

const root = join(import.meta.dirname, '../..');

describe('import rules', () => {
  it('hold on src/', () => {
    expect(checkImportRules(join(root, 'src')).map((violation) => violation.message)).toEqual([]);
  });

  it('place files in layers', () => {
    expect(layerOf('ports/vector-store.ts')).toBe('ports');
    expect(layerOf('pipeline/judge.ts')).toBe('stage');
    expect(layerOf('pipeline/judge/claims.ts')).toBe('stage');
    expect(layerOf('pipeline/turn.ts')).toBe('orchestrator');
    expect(layerOf('pipeline/turn/state.ts')).toBe('orchestrator');
    expect(layerOf('adapters/memory/vector-store.ts')).toBe('adapter:memory');
    expect(layerOf('engine.ts')).toBe('core');
    expect(layerOf('http/handler.ts')).toBe('entry:http');
    expect(isAllowed('adapter:postgres', 'adapter:sql')).toBe(true);
    expect(isAllowed('adapter:postgres', 'adapter:memory')).toBe(false);
    expect(isAllowed('stage', 'core')).toBe(false);
    expect(isAllowed('ports', 'util')).toBe(false);
  });

  describe('on a fixture tree', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cortexis-import-rules-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const write = (file: string, text: string) => {
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      writeFileSync(join(dir, file), text);
    };
    write('ports/a.ts', "import type { B } from '../util/b.js';\nexport type A = B;\n");
    write('util/b.ts', 'export type B = number;\n');
    write(
      'pipeline/stage.ts',
      "import type { Config } from '../config.js';\nexport const s = 1;\n",
    );
    write(
      'config.ts',
      "import { s } from './pipeline/stage.js';\nexport type Config = typeof s;\n",
    );
    write('adapters/postgres/x.ts', "import { m } from '../memory/y.js';\nexport const x = m;\n");
    write('adapters/memory/y.ts', 'export const m = 1;\n');
    write('index.ts', "export { x } from './adapters/postgres/x.js';\nimport 'node:fs';\n");
    write('pipeline/long.ts', `/** A stage. */\n${'export const a = 1;\n'.repeat(501)}`);
    write(
      'pipeline/long-reasoned.ts',
      `/**\n * Longer than 500 lines: one table.\n */\n${'export const b = 1;\n'.repeat(501)}`,
    );
    write('stray.ts', 'export const stray = 1;\n');
    write('engine.ts', "import { m } from './adapters/memory/y.js';\nexport const e = m;\n");
    write(
      'engine/runtime.ts',
      "import { m } from '../adapters/memory/y.js';\nexport const r = m;\n",
    );
    const messages = checkImportRules(dir).map(
      (violation) => `${violation.rule}: ${violation.message}`,
    );

    it('reports an import a layer may not make, type-only ones included', () => {
      expect(messages).toContain('layer: ports/a.ts (ports) imports util/b.ts (util) [type only]');
      expect(messages).toContain(
        'layer: adapters/postgres/x.ts (adapter:postgres) imports adapters/memory/y.ts (adapter:memory)',
      );
      expect(messages).toContain('layer: stray.ts is in no layer (docs/architecture.md)');
    });

    it('lets only the composition root of the core pick adapters', () => {
      expect(messages).toContain(
        'layer: engine.ts (core) imports adapters/memory/y.ts (adapter:memory)',
      );
      expect(messages.some((message) => message.startsWith('layer: engine/runtime.ts'))).toBe(
        false,
      );
    });

    it('reports cycles', () => {
      expect(messages).toContain('cycle: import cycle: config.ts → pipeline/stage.ts');
    });

    it('reports what the core entry must not load', () => {
      expect(messages).toContain('core-entry: the core entry (src/index.ts) loads node:fs');
      expect(messages).toContain(
        'core-entry: the core entry (src/index.ts) loads adapters/postgres/x.ts (adapter:postgres)',
      );
    });

    it('reports a long file unless its header says why', () => {
      expect(messages).toContain(
        'size: pipeline/long.ts has 502 lines (> 500) and its header does not say why',
      );
      expect(messages.some((message) => message.includes('long-reasoned'))).toBe(false);
    });
  });
});
