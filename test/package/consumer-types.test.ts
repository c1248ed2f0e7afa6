/**
 * The published package as a consumer gets it: built and packed into a temporary directory
 * (never the shared `dist/`), installed into a fresh project, and type-checked there with
 * `skipLibCheck: false` under every common module resolution, importing every subpath.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildAndPack,
  installOffline,
  limitConcurrency,
  readPackageJson,
  typeCheck,
  type PackedPackage,
} from './pack.js';

const pkg = readPackageJson();
/** Every subpath: `.` is `cortexis`, `./http` is `cortexis/http`. */
const subpaths = Object.keys(pkg.exports).filter((subpath) => subpath !== './package.json');
const specifier = (subpath: string) =>
  subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`;

/**
 * Packages whose types a subpath's declarations may import: its own (optional) peers. `zod` is
 * a dependency, not a leak by accident: `engineConfigSchema` and `resilienceSettingsSchema`
 * are exported zod/mini schemas and `EngineConfig` is inferred from one, so every subpath that
 * reaches the engine's types names it (and zod's declarations check cleanly under every
 * resolution below).
 */
const ALLOWED_IN_EVERY_SUBPATH = ['zod'];
const PEERS_OF: Record<string, readonly string[]> = {
  './sqlite': ['better-sqlite3'],
  './postgres': ['pg'],
  './redis': ['redis'],
  './lancedb': ['@lancedb/lancedb', 'apache-arrow'],
  './usearch': ['usearch'],
  './loaders': ['unpdf', 'mammoth'],
  './langchain': ['@langchain/core'],
  './opentelemetry': ['@opentelemetry/api'],
};

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`; `node:fs` stays. */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** The module specifiers a declaration file imports or re-exports (comments ignored). */
function importsOf(declarations: string): string[] {
  const code = declarations.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/(?!\/).*$/gm, '');
  const found = [
    ...code.matchAll(/\b(?:import|export)\s[^'";]*?\bfrom\s*['"]([^'"]+)['"]/g),
    ...code.matchAll(/\bimport\s*['"]([^'"]+)['"]/g),
    ...code.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
    ...code.matchAll(/^\s*\/\/\/\s*<reference\s+types=['"]([^'"]+)['"]/gm),
  ];
  return found.map((match) => match[1]!);
}

/**
 * A consumer using the main entry points with their types, and importing every subpath but
 * `without`; on Node it serves the handler with `node:http` and parses HTML with the loaders.
 */
function consumerSource(without: readonly string[] = [], node = true): string {
  const imported = subpaths.filter((subpath) => !without.includes(subpath));
  const namespaces = imported.map(
    (subpath, index) => `import * as subpath${index} from '${specifier(subpath)}';`,
  );
  return `${[
    ...(node ? [`import { createServer } from 'node:http';`] : []),
    `import { createChatEngine, createMemoryVectorStore, type ChatEngine, type EngineConfig, type SearchHit } from 'cortexis';`,
    `import { createChatHandler, toNodeListener, type ChatHandlerSettings } from 'cortexis/http';`,
    `import { createOpenAIChat } from 'cortexis/openai';`,
    ...(node ? [`import { parseHtml, type HtmlContent } from 'cortexis/loaders';`] : []),
    ...namespaces,
    '',
    `const config: EngineConfig = {`,
    `  vectorStore: createMemoryVectorStore(),`,
    `  llm: createOpenAIChat({ apiKey: 'sk-test', model: 'gpt-4.1-mini' }),`,
    `};`,
    `export const engine: ChatEngine = createChatEngine(config);`,
    `const settings: ChatHandlerSettings = { authenticate: (request) => ({ id: request.headers.get('x-user') ?? 'anonymous' }) };`,
    `export const handler = createChatHandler(engine, settings);`,
    node
      ? `export const server = createServer(toNodeListener(handler));`
      : `export const listener = toNodeListener(handler);`,
    `export async function context(question: string): Promise<string> {`,
    `  const hits: SearchHit[] = await engine.search(question, { k: 3 });`,
    `  const answer = await engine.chat({ message: question, mode: 'query' });`,
    `  return [...hits.map((hit) => hit.text), answer.text].join('\\n');`,
    `}`,
    ...(node ? [`export const page: HtmlContent = parseHtml('<h1>Title</h1><p>Text</p>');`] : []),
    `export const modules = [${imported.map((_, index) => `subpath${index}`).join(', ')}];`,
  ].join('\n')}\n`;
}

interface Mode {
  readonly name: string;
  readonly file: string;
  readonly module: string;
  readonly moduleResolution: string;
  readonly lib: readonly string[];
  /** Subpaths this consumer leaves out. */
  readonly without?: readonly string[];
  /** Whether the project has `@types/node` (default true). */
  readonly node?: boolean;
}

const WITH_DOM = ['es2022', 'dom', 'dom.iterable'];
/** Subpaths for Node only: they read files or drive Node database clients. */
const NODE_ONLY = [
  './loaders',
  './sqlite',
  './postgres',
  './redis',
  './lancedb',
  './usearch',
  './testing',
];

/**
 * Node ESM and CommonJS, bundlers, and node10 (through `typesVersions`), each with `@types/node`
 * and the DOM library; and a Node project without the DOM library, which leaves out
 * `cortexis/lancedb`: the declarations of its peer's own dependency, apache-arrow, need the DOM
 * library (`StreamPipeOptions`, `ReadableStreamReadResult`) whoever imports them; and a web
 * project (browser, edge worker) without `@types/node`, importing every subpath but Node's.
 */
const MODES: readonly Mode[] = [
  {
    name: 'nodenext (ESM)',
    file: 'consumer.ts',
    module: 'nodenext',
    moduleResolution: 'nodenext',
    lib: WITH_DOM,
  },
  {
    name: 'nodenext (CommonJS)',
    file: 'consumer.cts',
    module: 'nodenext',
    moduleResolution: 'nodenext',
    lib: WITH_DOM,
  },
  {
    name: 'esnext + bundler',
    file: 'consumer.ts',
    module: 'esnext',
    moduleResolution: 'bundler',
    lib: WITH_DOM,
  },
  {
    name: 'commonjs + node10',
    file: 'consumer.ts',
    module: 'commonjs',
    moduleResolution: 'node10',
    lib: WITH_DOM,
  },
  {
    name: 'nodenext (ESM) without the DOM library',
    file: 'consumer-node.ts',
    module: 'nodenext',
    moduleResolution: 'nodenext',
    lib: ['es2022'],
    without: ['./lancedb'],
  },
  {
    name: 'esnext + bundler without @types/node (browsers, edge runtimes)',
    file: 'consumer-web.ts',
    module: 'esnext',
    moduleResolution: 'bundler',
    // @langchain/core's declarations name `Symbol.asyncDispose` (@types/node declares it on Node).
    lib: [...WITH_DOM, 'esnext.disposable'],
    without: NODE_ONLY,
    node: false,
  },
];

let work: string;
let packed: PackedPackage;
let project: string;
let installed: string;
const checks = new Map<string, Promise<string>>();
const twoAtATime = limitConcurrency(2);

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'cortexis-package-'));
  packed = await buildAndPack(work);
  project = join(work, 'consumer');
  installed = join(project, 'node_modules', pkg.name);
  await installOffline(packed.tarball, project, pkg.name, [
    ...Object.keys(pkg.dependencies ?? {}),
    ...Object.keys(pkg.peerDependencies ?? {}),
    '@types/node',
    '@types/pg',
    '@types/better-sqlite3',
  ]);
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  );
  MODES.forEach((mode, index) => {
    writeFileSync(join(project, mode.file), consumerSource(mode.without, mode.node !== false));
    const tsconfig = `tsconfig.${index}.json`;
    const compilerOptions = {
      target: 'es2022',
      module: mode.module,
      moduleResolution: mode.moduleResolution,
      lib: mode.lib,
      types: mode.node === false ? [] : ['node'],
      strict: true,
      skipLibCheck: false,
      noEmit: true,
      esModuleInterop: true,
    };
    writeFileSync(join(project, tsconfig), JSON.stringify({ compilerOptions, files: [mode.file] }));
    // Started now, two at a time (each compiler takes a few hundred MB): the checks run while
    // the first assertions do.
    checks.set(
      mode.name,
      twoAtATime(() => typeCheck(project, tsconfig)),
    );
  });
}, 300_000);

afterAll(async () => {
  await Promise.allSettled(checks.values());
  // CORTEXIS_KEEP_PACKAGE_TEST=1 keeps the build and the consumer project for a look.
  if (work && !process.env['CORTEXIS_KEEP_PACKAGE_TEST'])
    rmSync(work, { recursive: true, force: true });
  else if (work) console.log(`package test directory kept: ${work}`);
});

describe('the packed package', () => {
  it('ships the build, LICENSE and README, and every file package.json points at', () => {
    const paths = new Set(packed.files.map((file) => file.path));
    for (const file of ['package.json', 'README.md', 'LICENSE', 'dist/index.js', 'dist/cli.js']) {
      expect(paths, file).toContain(file);
    }
    const targets = JSON.stringify(pkg.exports).match(/\.\/dist\/[^"]+/g) ?? [];
    for (const target of [...targets, ...Object.values(pkg.typesVersions?.['*'] ?? {}).flat()]) {
      expect(paths, target).toContain(target.slice(2));
    }
    expect(
      [...paths].filter((path) => !/^(dist\/|package\.json$|README|LICENSE|CHANGELOG)/.test(path)),
    ).toEqual([]);
    const maps = packed.files.filter((file) => file.path.endsWith('.map'));
    const megabytes = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;
    console.log(
      `tarball: ${packed.files.length} files, ${megabytes(packed.size)} packed, ` +
        `${megabytes(packed.unpackedSize)} unpacked (source maps: ` +
        `${megabytes(maps.reduce((sum, file) => sum + file.size, 0))})`,
    );
  });

  it('has source maps without embedded sources', () => {
    const maps = readdirSync(join(installed, 'dist')).filter((file) => file.endsWith('.map'));
    expect(maps.length).toBeGreaterThan(0);
    for (const map of maps) {
      const content = JSON.parse(readFileSync(join(installed, 'dist', map), 'utf8')) as object;
      expect(content, map).not.toHaveProperty('sourcesContent');
    }
  });

  it('has declarations that import no third-party types but a subpath’s own peers', () => {
    const dist = join(installed, 'dist');
    const read = (file: string) => readFileSync(join(dist, file), 'utf8');
    const leaks: string[] = [];
    for (const subpath of subpaths) {
      const entry = subpath === '.' ? 'index' : subpath.slice(2);
      const allowed = new Set([...ALLOWED_IN_EVERY_SUBPATH, ...(PEERS_OF[subpath] ?? [])]);
      for (const extension of ['.d.ts', '.d.cts']) {
        // The entry's declarations and every chunk they reach.
        const seen = new Set<string>();
        const pending = [`${entry}${extension}`];
        while (pending.length > 0) {
          const file = pending.pop()!;
          if (seen.has(file)) continue;
          seen.add(file);
          for (const imported of importsOf(read(file))) {
            if (imported.startsWith('./')) {
              pending.push(imported.slice(2).replace(/\.c?js$/, extension));
            } else if (!allowed.has(packageOf(imported))) {
              leaks.push(`${specifier(subpath)} (${file}) imports '${imported}'`);
            }
          }
        }
      }
    }
    expect(leaks).toEqual([]);
  });
});

describe('a consumer project type-checks against it with skipLibCheck: false', () => {
  for (const mode of MODES) {
    it(`under ${mode.name}`, async () => {
      const diagnostics = await checks.get(mode.name)!;
      // Paths relative to the consumer, so the message reads well.
      expect(diagnostics.split(project).join('.')).toBe('');
    }, 300_000);
  }
});
