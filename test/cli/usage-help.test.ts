/** Usage errors that say how to fix the command line (issue 29). */
import { describe, expect, it } from 'vitest';
import { parseCommandLine, UsageError } from '../../src/cli/args.js';
import { editDistance, nearest } from '../../src/cli/suggest.js';

/** The UsageError message `argv` gets, with `existing` the paths that exist. */
function usage(argv: string[], existing: readonly string[] = []): string {
  try {
    parseCommandLine(argv, (path) => existing.includes(path));
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error(`no usage error for ${argv.join(' ')}`);
}

describe('a question given before the path', () => {
  it('says the question goes last, quoting it', () => {
    expect(usage(['ask', 'What is the refund policy?', 'docs'], ['docs'])).toBe(
      'the question goes last, after the paths: cortexis ask <path...> "What is the refund policy?"',
    );
    expect(usage(['ask', 'docs', 'refunds?', 'notes'], ['docs', 'notes'])).toMatch(
      /question goes last.*"refunds\?"/,
    );
  });

  it('names the path when no argument looks like a question', () => {
    expect(usage(['ask', 'docs', 'README.md'], ['docs', 'README.md'])).toBe(
      `the question goes last, after the paths ('README.md' is a file or folder): cortexis ask <path...> "<question>"`,
    );
  });

  it('accepts the question last, even one naming a path that does not exist', () => {
    expect(
      parseCommandLine(['ask', 'docs', 'How do refunds work?'], (path) => path === 'docs'),
    ).toMatchObject({
      paths: ['docs'],
      question: 'How do refunds work?',
    });
    expect(
      parseCommandLine(['ask', 'docs', 'refunds.md'], (path) => path === 'docs'),
    ).toMatchObject({
      question: 'refunds.md',
    });
  });

  it('checks the real file system by default', () => {
    expect(() => parseCommandLine(['ask', 'What is cortexis?', 'package.json'])).toThrow(
      /question goes last/,
    );
  });
});

describe('an unknown flag or command', () => {
  it('suggests the nearest flag of the command', () => {
    expect(usage(['ask', 'docs', 'q', '--topk', '3'])).toBe(
      "Unknown option '--topk'; did you mean '--top-k'?",
    );
    expect(usage(['ask', 'docs', 'q', '--jsno'])).toMatch(/did you mean '--json'\?$/);
    expect(usage(['chat', 'docs', '--sesion', 'x'])).toMatch(/did you mean '--session'\?$/);
    expect(usage(['index', 'docs', '--no-cahce'])).toMatch(/did you mean '--no-cache'\?$/);
    expect(usage(['sessions', '--limt', '3'])).toMatch(/did you mean '--limit'\?$/);
    // --stream belongs to ask, not to index.
    expect(usage(['index', 'docs', '--stream'])).toBe("Unknown option '--stream'");
  });

  it('suggests nothing for a flag far from every one, and top-level typos too', () => {
    expect(usage(['ask', 'docs', 'q', '--temperature', '1'])).toBe(
      "Unknown option '--temperature'",
    );
    expect(usage(['aks', 'docs', 'q'])).toBe("Unknown command 'aks'; did you mean 'ask'?");
    expect(usage(['--verison'])).toBe("Unknown option '--verison'; did you mean '--version'?");
    expect(usage(['frobnicate'])).toBe("Unknown command 'frobnicate'");
  });

  it('survives hostile flag names', () => {
    expect(usage(['ask', 'docs', 'q', '--top\u0000k'])).toMatch(/^Unknown option/);
    expect(usage(['ask', 'docs', 'q', '--\ud800'])).toMatch(/^Unknown option/);
    const huge = `--${'x'.repeat(100_000)}`;
    expect(usage(['ask', 'docs', 'q', huge])).not.toMatch(/did you mean/);
  });
});

describe('nearest', () => {
  it('counts transpositions as one edit and ignores dashes and case', () => {
    expect(editDistance('jsno', 'json')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
    expect(nearest('TOP_K', ['top-k', 'model'])).toBe('top-k');
    expect(nearest('x', ['top-k'])).toBeUndefined();
    expect(nearest('', ['json'])).toBeUndefined();
    expect(nearest('json', [])).toBeUndefined();
  });
});
