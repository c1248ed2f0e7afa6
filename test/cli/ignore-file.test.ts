/**
 * What the CLI leaves out of a folder: `--ignore` patterns and the folder's `.cortexisignore`,
 * the same for indexing, the saved index's file stamp and `mcp`'s documents; a bad ignore file
 * is a `ConfigError` naming its file and line, never a walk that indexes what it meant to leave out.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCommandLine, UsageError } from '../../src/cli/args.js';
import { exitCodeOf } from '../../src/cli/main.js';
import { openQuietly } from './open-quietly.js';
import { stampSources } from '../../src/cli/source-stamp.js';
import { ConfigError } from '../../src/errors/index.js';
import { parseIgnoreFile } from '../../src/loaders/glob.js';
import { loadDocuments } from '../../src/loaders/index.js';
import { readIgnoreFile } from '../../src/loaders/walk.js';

const PAST = new Date(Date.now() - 3_600_000);

async function folder(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cortexis-ignore-'));
  for (const [name, text] of Object.entries(files)) await write(dir, name, text);
  return dir;
}

async function write(dir: string, name: string, text: string): Promise<void> {
  const path = join(dir, name);
  await mkdir(join(path, '..'), { recursive: true });
  await writeFile(path, text);
  await utimes(path, PAST, PAST);
}

function open(dir: string, cache: string, ignore?: string[]) {
  return openQuietly(cache, {
    paths: [dir],
    noCache: false,
    progress: false,
    indexOnly: true,
    ...(ignore ? { ignore } : {}),
  });
}

const FILES = {
  'guide.md': '# Guide\n\nThe retry budget is three attempts.\n',
  'log/bench.md': '# Bench\n\nThe retry budget measured 41 ms.\n',
  'drafts/draft.md': '# Draft\n\nThe retry budget will be five attempts.\n',
};

describe('the ignore file of a folder', () => {
  it('parses gitignore-style lines: comments, blanks, trailing spaces, escaped #', () => {
    expect(parseIgnoreFile('\uFEFF# c\n\nbench.md  \r\nlog/**\n\\#hash.md\n')).toEqual({
      patterns: ['bench.md', 'log/**', '#hash.md'],
    });
    expect(parseIgnoreFile('a.md\n!keep.md\n')).toEqual({
      line: 2,
      message: 'negation (`!`) is not supported',
    });
    expect(parseIgnoreFile(`${'x'.repeat(257)}\n`)).toMatchObject({ line: 1 });
    expect(parseIgnoreFile('a*b*c*d*e*f\n')).toMatchObject({ line: 1 });
  });

  it('leaves its patterns out of the folder, and out of the index once added', async () => {
    const dir = await folder(FILES);
    const cache = await mkdtemp(join(tmpdir(), 'cortexis-ignore-cache-'));
    const first = await open(dir, cache);
    expect(first.opened.documents).toBe(3);

    await write(dir, '.cortexisignore', '# developer pages\nlog/\ndraft*.md\n');
    const second = await open(dir, cache);
    expect(second.opened.documents).toBe(1);
    expect(second.opened.changes.removed.sort()).toEqual(['drafts/draft.md', 'log/bench.md']);
    const hits = await second.opened.engine.search('retry budget', { k: 5 });
    expect(hits.map((hit) => hit.documentId)).toEqual(['guide.md']);
  });

  it('adds --ignore patterns, and the saved stamp tells the two apart', async () => {
    const dir = await folder(FILES);
    const cache = await mkdtemp(join(tmpdir(), 'cortexis-ignore-cache-'));
    expect((await open(dir, cache, ['log'])).opened.documents).toBe(2);
    // Same files, other patterns: the stamp differs, so the folder is read again.
    expect(await stampSources([dir], { ignore: ['log'] })).not.toBe(await stampSources([dir], {}));
    const all = await open(dir, cache);
    expect(all.opened.documents).toBe(3);
    expect(all.opened.changes.added).toEqual(['log/bench.md']);
  });

  it('is read by loadDocuments only when named, at the top of each folder given', async () => {
    const dir = await folder({ ...FILES, '.cortexisignore': 'bench.md\n' });
    const names = async (options = {}) =>
      (await loadDocuments([dir], options)).documents.map((doc) => doc.id).sort();
    expect(await names()).toEqual(['drafts/draft.md', 'guide.md', 'log/bench.md']);
    expect(await names({ ignoreFile: '.cortexisignore' })).toEqual(['drafts/draft.md', 'guide.md']);
    await expect(loadDocuments([dir], { ignoreFile: '../x' })).rejects.toThrow(/ignoreFile/);
  });

  it('refuses a bad ignore file with a ConfigError naming it (exit 2)', async () => {
    const cache = await mkdtemp(join(tmpdir(), 'cortexis-ignore-cache-'));
    const negated = await folder({ ...FILES, '.cortexisignore': 'log\n!log/bench.md\n' });
    const error = await open(negated, cache).catch((caught: unknown) => caught);
    expect(ConfigError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain(`${join(negated, '.cortexisignore')}:2`);
    expect(exitCodeOf(error)).toBe(2);

    const linked = await folder(FILES);
    await symlink(join(linked, 'guide.md'), join(linked, '.cortexisignore'));
    await expect(open(linked, cache)).rejects.toThrow(/is not a regular file/);

    const large = await folder({ ...FILES, '.cortexisignore': `${'a.md\n'.repeat(14_000)}` });
    await expect(open(large, cache)).rejects.toThrow(/larger than 65536 bytes/);

    const nested = await folder(FILES);
    await mkdir(join(nested, '.cortexisignore'));
    await expect(open(nested, cache)).rejects.toThrow(/is not a regular file/);
  });

  it.skipIf(process.platform === 'win32')(
    'refuses a FIFO as ignore file without blocking on it',
    async () => {
      // Opening a FIFO to read waits for a writer unless opened non-blocking: the walk must not hang.
      const dir = await folder(FILES);
      execFileSync('mkfifo', [join(dir, '.cortexisignore')]);
      await expect(readIgnoreFile(dir, '.cortexisignore')).rejects.toThrow(/is not a regular file/);
    },
  );
});

describe('--ignore', () => {
  it('is repeatable on ask, chat and index, and needs a pattern', () => {
    const parsed = parseCommandLine(
      ['ask', 'docs', '--ignore', 'benchmarks.md', '--ignore', 'old/**', 'q?'],
      (path) => path === 'docs',
    );
    expect(parsed).toMatchObject({ ignore: ['benchmarks.md', 'old/**'] });
    expect(parseCommandLine(['index', 'docs'])).not.toHaveProperty('ignore');
    expect(() => parseCommandLine(['index', 'docs', '--ignore', ' '])).toThrow(UsageError);
  });
});
