/**
 * The architecture's import rules (docs/architecture.md), checked over the TypeScript import
 * graph of `src/`: every `import`, `export … from`, `import()` and `import('…')` type, type-only
 * ones included. `test/package/import-rules.test.ts` runs it in CI; `npm run check:imports`
 * prints the same report.
 *
 * Each file of `src/` belongs to one layer (`layerOf`); `ALLOWED` lists the layers a layer may
 * import. On top of that: no import cycle (type-only edges included), the core entry's runtime
 * closure holds no `node:` module and no remote adapter, and no file is longer than
 * `MAX_LINES` unless its header says why ("Longer than 500 lines: …"). In the core, only the
 * composition root (`engine/runtime.ts`) picks adapters, and only the default ones.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/** One import of one file. */
export interface ImportEdge {
  /** The importing file, relative to `src/` with `/` separators. */
  readonly from: string;
  /** The imported file relative to `src/` (`.ts`), or the bare package name / `node:` module. */
  readonly to: string;
  /** Whether the edge is erased at run time (`import type`, type-only specifiers, `import('…')` types). */
  readonly typeOnly: boolean;
  /** Whether it is a dynamic `import()`. */
  readonly dynamic: boolean;
}

/** A broken rule, with the edge or file that breaks it. */
export interface ImportViolation {
  readonly rule: 'layer' | 'cycle' | 'core-entry' | 'size';
  readonly message: string;
}

/** Longest source file without a stated reason in its header. */
export const MAX_LINES = 500;

const FOUNDATION: readonly string[] = ['errors', 'ports', 'util', 'text', 'query'];

/** Remote or native adapters the core entry must never pull in. */
const NOT_IN_CORE = [
  'adapter:anthropic',
  'adapter:http',
  'adapter:lancedb',
  'adapter:ollama',
  'adapter:openai',
  'adapter:postgres',
  'adapter:providers',
  'adapter:redis',
  'adapter:rerank',
  'adapter:sql',
  'adapter:sqlite',
  'adapter:usearch',
];

/** The adapters the engine falls back to (in-memory stores, offline models), all in the core entry. */
const DEFAULT_ADAPTERS = [
  'adapter:memory',
  'adapter:hashing',
  'adapter:extractive',
  'adapter:tokenizer',
];

/** The core files that pick concrete adapters, the defaults: the engine's, an ingest worker's. */
const COMPOSITION_ROOTS = new Set(['engine/runtime.ts', 'engine/ingest-worker.ts']);

/** Core modules: the engine's composition and the public types and events. */
const CORE_FILES = new Set([
  'config.ts',
  'engine.ts',
  'events.ts',
  'logger.ts',
  'runtime.ts',
  'stream.ts',
  'types.ts',
  'ui-message-stream.ts',
  'validate.ts',
]);

/**
 * The layer of a file of `src/`: `ports`, `errors`, `util`, `text`, `query`, `learning`,
 * `stage` (pipeline stages), `orchestrator` (`pipeline/turn.ts` and `pipeline/turn/`),
 * `ingest`, `resilience`, `core`, `adapter:<name>` or `entry:<name>` (public entries:
 * `index`, `http`, `cli`, `testing`, `loaders`, `integrations`).
 */
export function layerOf(file: string): string {
  const parts = file.split('/');
  const [top = '', second = ''] = parts;
  if (parts.length === 1) {
    if (file === 'index.ts') return 'entry:index';
    if (CORE_FILES.has(file)) return 'core';
    return 'unknown';
  }
  if (top === 'pipeline') {
    return file === 'pipeline/turn.ts' || second === 'turn' ? 'orchestrator' : 'stage';
  }
  if (top === 'adapters') return `adapter:${second}`;
  if (top === 'engine') return 'core';
  if (
    ['ports', 'errors', 'util', 'text', 'query', 'learning', 'ingest', 'resilience'].includes(top)
  ) {
    return top;
  }
  if (['http', 'cli', 'testing', 'loaders', 'integrations'].includes(top)) return `entry:${top}`;
  return 'unknown';
}

const ADAPTER_BASE = [...FOUNDATION, 'learning', 'adapter:shared'];

/** Extra adapter folders an adapter folder may import (shared wire or SQL code). */
const ADAPTER_EXTRA: Readonly<Record<string, readonly string[]>> = {
  'adapter:sqlite': ['adapter:sql'],
  'adapter:postgres': ['adapter:sql'],
  'adapter:openai': ['adapter:http'],
  'adapter:anthropic': ['adapter:http'],
  'adapter:ollama': ['adapter:http'],
  'adapter:rerank': ['adapter:http'],
  'adapter:providers': ['adapter:http', 'adapter:openai', 'adapter:anthropic', 'adapter:ollama'],
};

/** Whether a file of layer `from` may import a file of layer `to`. */
export function isAllowed(from: string, to: string): boolean {
  if (from === to) return true;
  switch (from) {
    case 'ports':
    case 'errors':
      return false;
    case 'util':
      return ['errors', 'ports'].includes(to);
    case 'text':
      return ['errors', 'ports', 'util'].includes(to);
    case 'query':
      return ['errors', 'ports', 'util', 'text'].includes(to);
    case 'learning':
    case 'stage':
      return [...FOUNDATION, 'learning'].includes(to);
    case 'resilience':
      return [...FOUNDATION].includes(to);
    case 'ingest':
      return [...FOUNDATION, 'learning', 'core'].includes(to);
    case 'orchestrator':
      return [...FOUNDATION, 'learning', 'stage', 'resilience', 'ingest', 'core'].includes(to);
    case 'core':
      // Adapters only from the composition root (checked per file in `checkImportRules`).
      return !to.startsWith('entry:') && to !== 'unknown';
    default:
      if (from.startsWith('adapter:')) {
        return ADAPTER_BASE.includes(to) || (ADAPTER_EXTRA[from] ?? []).includes(to);
      }
      // Entries compose everything (but never one another's internals: they go through the core).
      return from.startsWith('entry:') && to !== 'unknown';
  }
}

/** `.ts` files under `dir`, relative to it with `/` separators. */
function sourceFiles(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((entry) => {
    const path = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) return sourceFiles(dir, path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

function isTypeOnlyImport(node: ts.ImportDeclaration): boolean {
  const clause = node.importClause;
  if (!clause) return false;
  if (clause.isTypeOnly) return true;
  const bindings = clause.namedBindings;
  return (
    !clause.name &&
    bindings !== undefined &&
    ts.isNamedImports(bindings) &&
    bindings.elements.length > 0 &&
    bindings.elements.every((element) => element.isTypeOnly)
  );
}

function isTypeOnlyExport(node: ts.ExportDeclaration): boolean {
  if (node.isTypeOnly) return true;
  const clause = node.exportClause;
  return (
    clause !== undefined &&
    ts.isNamedExports(clause) &&
    clause.elements.length > 0 &&
    clause.elements.every((element) => element.isTypeOnly)
  );
}

/** Every import of every `.ts` file under `srcDir`. */
export function importGraph(srcDir: string): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const file of sourceFiles(srcDir)) {
    const path = join(srcDir, file);
    const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest);
    const add = (specifier: string, typeOnly: boolean, dynamic: boolean) => {
      const to = specifier.startsWith('.')
        ? relative(srcDir, resolve(dirname(path), specifier.replace(/\.js$/, '.ts')))
            .split(sep)
            .join('/')
        : specifier;
      edges.push({ from: file, to, typeOnly, dynamic });
    };
    const visit = (node: ts.Node): void => {
      if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
        add(node.moduleSpecifier.text, isTypeOnlyImport(node), false);
      } else if (
        ts.isExportDeclaration(node) &&
        node.moduleSpecifier &&
        ts.isStringLiteral(node.moduleSpecifier)
      ) {
        add(node.moduleSpecifier.text, isTypeOnlyExport(node), false);
      } else if (
        ts.isCallExpression(node) &&
        node.expression.kind === ts.SyntaxKind.ImportKeyword &&
        node.arguments[0] &&
        ts.isStringLiteral(node.arguments[0])
      ) {
        add(node.arguments[0].text, false, true);
      } else if (
        ts.isImportTypeNode(node) &&
        ts.isLiteralTypeNode(node.argument) &&
        ts.isStringLiteral(node.argument.literal)
      ) {
        add(node.argument.literal.text, true, false);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return edges;
}

/** Import cycles (strongly connected components of more than one file, or a self-import). */
export function importCycles(edges: readonly ImportEdge[]): string[][] {
  const next = new Map<string, Set<string>>();
  for (const edge of edges) {
    if (!edge.to.endsWith('.ts')) continue;
    const targets = next.get(edge.from) ?? new Set<string>();
    targets.add(edge.to);
    next.set(edge.from, targets);
  }
  // Tarjan's algorithm, iterative so a deep graph cannot overflow the stack.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let counter = 0;
  for (const start of next.keys()) {
    if (index.has(start)) continue;
    const work: Array<{ node: string; targets: string[]; at: number }> = [];
    const open = (node: string) => {
      index.set(node, counter);
      low.set(node, counter);
      counter += 1;
      stack.push(node);
      onStack.add(node);
      work.push({ node, targets: [...(next.get(node) ?? [])], at: 0 });
    };
    open(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      if (frame.at < frame.targets.length) {
        const target = frame.targets[frame.at]!;
        frame.at += 1;
        if (!index.has(target)) open(target);
        else if (onStack.has(target)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(target)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        const selfImport = next.get(frame.node)?.has(frame.node) ?? false;
        if (component.length > 1 || selfImport) cycles.push(component.sort());
      }
    }
  }
  return cycles;
}

/** Files the core entry loads at run time (static and dynamic imports, type-only ones erased). */
export function runtimeClosure(edges: readonly ImportEdge[], entry: string): Set<string> {
  const seen = new Set<string>([entry]);
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const edge of edges) {
      if (edge.from !== file || edge.typeOnly || seen.has(edge.to)) continue;
      seen.add(edge.to);
      if (edge.to.endsWith('.ts')) queue.push(edge.to);
    }
  }
  return seen;
}

/** The line count of a file and whether its header states why it is longer than `MAX_LINES`. */
function sizeViolation(srcDir: string, file: string): ImportViolation | undefined {
  const text = readFileSync(join(srcDir, file), 'utf8');
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  if (lines <= MAX_LINES) return undefined;
  const header = /^\/\*\*[\s\S]*?\*\//.exec(text)?.[0] ?? '';
  if (/Longer than 500 lines:/.test(header)) return undefined;
  return {
    rule: 'size',
    message: `${file} has ${lines} lines (> ${MAX_LINES}) and its header does not say why`,
  };
}

/** Every broken rule in `srcDir` (an empty list when the layout holds). */
export function checkImportRules(srcDir: string): ImportViolation[] {
  const edges = importGraph(srcDir);
  const violations: ImportViolation[] = [];
  for (const file of sourceFiles(srcDir)) {
    if (layerOf(file) === 'unknown') {
      violations.push({ rule: 'layer', message: `${file} is in no layer (docs/architecture.md)` });
    }
    const size = sizeViolation(srcDir, file);
    if (size) violations.push(size);
  }
  for (const edge of edges) {
    if (!edge.to.endsWith('.ts')) continue;
    const from = layerOf(edge.from);
    const to = layerOf(edge.to);
    const coreAdapter =
      from === 'core' &&
      to.startsWith('adapter:') &&
      (!COMPOSITION_ROOTS.has(edge.from) || !DEFAULT_ADAPTERS.includes(to));
    if (!isAllowed(from, to) || coreAdapter) {
      violations.push({
        rule: 'layer',
        message: `${edge.from} (${from}) imports ${edge.to} (${to})${edge.typeOnly ? ' [type only]' : ''}`,
      });
    }
  }
  for (const cycle of importCycles(edges)) {
    violations.push({ rule: 'cycle', message: `import cycle: ${cycle.join(' → ')}` });
  }
  for (const file of runtimeClosure(edges, 'index.ts')) {
    const layer = file.endsWith('.ts') ? layerOf(file) : '';
    if (file.startsWith('node:') || NOT_IN_CORE.includes(layer)) {
      violations.push({
        rule: 'core-entry',
        message: `the core entry (src/index.ts) loads ${file}${layer ? ` (${layer})` : ''}`,
      });
    }
  }
  return violations;
}

/** `npm run check:imports`: prints the broken rules and exits 1 when there is any. */
if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const violations = checkImportRules(join(import.meta.dirname, '..', 'src'));
  for (const violation of violations) console.log(`${violation.rule}: ${violation.message}`);
  console.log(violations.length === 0 ? 'import rules: ok' : `${violations.length} broken`);
  process.exitCode = violations.length === 0 ? 0 : 1;
}
