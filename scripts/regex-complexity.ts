/**
 * Regular expressions of `src/` checked for super-linear backtracking (issue 28) with `recheck`,
 * a ReDoS analyser that runs offline (its native build, else its JavaScript one). Every regex
 * literal and every `new RegExp('…', '…')` / `RegExp('…')` with literal arguments is checked.
 * `test/package/regex-complexity.test.ts` runs it in CI; `npm run check:regex` prints the report.
 *
 * recheck's verdict on a pattern is a function of the pattern, its flags and recheck's version
 * (fixed seed, step limits instead of clocks), so the patterns proven safe are recorded in
 * `scripts/regex-verdicts.json` and the test checks only the patterns not recorded there for
 * the installed recheck: a new or edited pattern is always checked. `npm run check:regex`
 * checks every pattern; `npm run check:regex -- --record` checks every pattern and rewrites the
 * record with those proven safe.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, resolve } from 'node:path';
import { check, type Diagnostics } from 'recheck';
import ts from 'typescript';

/** One regular expression written in the sources. */
export interface FoundRegex {
  /** `file:line`, the file relative to the repository. */
  readonly where: string;
  readonly source: string;
  readonly flags: string;
}

/** What the analyser said of one. */
export interface RegexVerdict extends FoundRegex {
  readonly status: Diagnostics['status'];
  /** The complexity (`2nd degree polynomial`, `exponential`) or the reason it is unknown. */
  readonly detail: string;
  /** An input that makes it backtrack, when vulnerable. */
  readonly attack?: string | undefined;
}

const ROOT = resolve(import.meta.dirname, '..');
const RECORD = join(ROOT, 'scripts/regex-verdicts.json');

/** The installed recheck's version: a recorded verdict holds only for the version that gave it. */
function recheckVersion(): string {
  const require = createRequire(import.meta.url);
  return (require('recheck/package.json') as { version: string }).version;
}

/** What a pattern is checked as: the `g`/`y`/`d` flags do not change what one attempt costs. */
export const patternKey = (regex: Pick<FoundRegex, 'source' | 'flags'>): string =>
  `${regex.flags.replace(/[gyd]/g, '')}/${regex.source}`;

/** The patterns recorded as safe by the installed recheck's version (none for another version). */
export function recordedSafe(): ReadonlySet<string> {
  const record = JSON.parse(readFileSync(RECORD, 'utf8')) as { recheck: string; safe: string[] };
  return new Set(record.recheck === recheckVersion() ? record.safe : []);
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every regex literal and `RegExp` construction with literal arguments under `dir`. */
export function findRegexes(dir = join(ROOT, 'src')): FoundRegex[] {
  const found: FoundRegex[] = [];
  for (const file of sourceFiles(dir)) {
    const text = readFileSync(file, 'utf8');
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const where = (node: ts.Node) =>
      `${relative(ROOT, file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
    const visit = (node: ts.Node): void => {
      if (ts.isRegularExpressionLiteral(node)) {
        const literal = node.text;
        const slash = literal.lastIndexOf('/');
        found.push({
          where: where(node),
          source: literal.slice(1, slash),
          flags: literal.slice(slash + 1),
        });
      } else if (
        (ts.isNewExpression(node) || ts.isCallExpression(node)) &&
        ts.isIdentifier(node.expression) &&
        node.expression.text === 'RegExp'
      ) {
        const [pattern, flags] = node.arguments ?? [];
        if (pattern && ts.isStringLiteralLike(pattern)) {
          found.push({
            where: where(node),
            source: pattern.text,
            flags: flags && ts.isStringLiteralLike(flags) ? flags.text : '',
          });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

/** What recheck says of one pattern. */
async function checkOne(source: string, flags: string, timeout: number) {
  // A fixed seed: recheck's fuzzer is random, and a check in CI must give the same verdicts.
  // Attacks and incubation are bounded by recheck's step limits, not by its clocks: under load
  // a clock ran out on patterns nobody changed and they were reported vulnerable. Only the
  // overall `timeout` is a clock, and running out of it gives `unknown`, never `vulnerable`.
  return check(source, flags, {
    timeout,
    randomSeed: 28,
    attackTimeout: null,
    incubationTimeout: null,
  });
}

/**
 * Checks each regex (`timeout` ms each); unknown verdicts (timeouts) are reported as such. A
 * pattern written in several places is checked once, and `lanes` patterns are checked at a
 * time: recheck's agent is a process of its own, and one pattern at a time left a core idle (the
 * test took 170 s of a 2-core CI run, most of it waiting). A pattern in `recorded` (see
 * `recordedSafe`) is not checked again: its verdict is `safe`, detail `recorded`.
 */
export async function checkRegexes(
  regexes: readonly FoundRegex[],
  options: { timeout?: number; lanes?: number; recorded?: ReadonlySet<string> } = {},
): Promise<RegexVerdict[]> {
  const { timeout = 10_000, lanes = 2, recorded = new Set<string>() } = options;
  const results = new Map<string, ReturnType<typeof checkOne>>();
  const order = [...new Set(regexes.map(patternKey))].filter((key) => !recorded.has(key));
  let next = 0;
  const lane = async () => {
    while (next < order.length) {
      const key = order[next++]!;
      const slash = key.indexOf('/');
      const result = checkOne(key.slice(slash + 1), key.slice(0, slash), timeout);
      results.set(key, result);
      await result;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, lanes) }, lane));
  const verdicts: RegexVerdict[] = [];
  for (const regex of regexes) {
    const pending = results.get(patternKey(regex));
    if (!pending) {
      verdicts.push({ ...regex, status: 'safe', detail: 'recorded' });
      continue;
    }
    const result = await pending;
    if (result.status === 'vulnerable') {
      verdicts.push({
        ...regex,
        status: result.status,
        detail: result.complexity.summary,
        attack: result.attack.pattern,
      });
    } else if (result.status === 'unknown') {
      verdicts.push({ ...regex, status: result.status, detail: result.error.kind });
    } else {
      verdicts.push({ ...regex, status: result.status, detail: result.complexity.summary });
    }
  }
  return verdicts;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const verdicts = await checkRegexes(findRegexes());
  if (process.argv.includes('--record')) {
    const safe = verdicts.filter((verdict) => verdict.status === 'safe').map(patternKey);
    const record = { recheck: recheckVersion(), safe: [...new Set(safe)].sort() };
    writeFileSync(RECORD, `${JSON.stringify(record, null, 2)}\n`);
    console.log(`recorded ${record.safe.length} patterns proven safe in ${relative(ROOT, RECORD)}`);
  }
  const bad = verdicts.filter((verdict) => verdict.status !== 'safe');
  for (const verdict of bad) {
    console.log(
      `${verdict.status}: ${verdict.where} /${verdict.source}/${verdict.flags} — ${verdict.detail}${verdict.attack ? ` (attack: ${verdict.attack})` : ''}`,
    );
  }
  console.log(`${verdicts.length} regular expressions, ${bad.length} not proven safe`);
  process.exitCode = verdicts.some((verdict) => verdict.status === 'vulnerable') ? 1 : 0;
}
