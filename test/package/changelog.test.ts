/**
 * `npm run version-packages` (`changeset version`) turns the pending changesets into the
 * version bump and CHANGELOG.md. Run on a temporary copy of package.json and .changeset/ so the
 * repository's pending changesets are not consumed.
 */
import { execFile } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { root } from './pack.js';

const run = promisify(execFile);
const work = mkdtempSync(join(tmpdir(), 'cortexis-changelog-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A changeset file's summary: what follows its front matter. */
const summaryOf = (changeset: string) => changeset.replace(/^---[\s\S]*?---\s*/, '').trim();

describe('changeset version', () => {
  it('writes CHANGELOG.md from the pending changesets and bumps the version', async () => {
    cpSync(join(root, 'package.json'), join(work, 'package.json'));
    cpSync(join(root, '.changeset'), join(work, '.changeset'), { recursive: true });
    // The changelog generator (@changesets/cli/changelog) is resolved from the project.
    symlinkSync(join(root, 'node_modules'), join(work, 'node_modules'), 'dir');
    // One known changeset, so the check holds even when nothing else is pending.
    writeFileSync(
      join(work, '.changeset', 'zz-release-check.md'),
      "---\n'cortexis': patch\n---\n\nRelease check: this line reaches the changelog.\n",
    );
    const pending = readdirSync(join(work, '.changeset')).filter(
      (file) => file.endsWith('.md') && file !== 'README.md',
    );
    const summaries = pending.map((file) =>
      summaryOf(readFileSync(join(work, '.changeset', file), 'utf8')),
    );
    const before = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      version: string;
      scripts: Record<string, string>;
    };
    expect(before.scripts['version-packages']).toBe('changeset version');

    const bin = join(root, 'node_modules/@changesets/cli/bin.js');
    await run(process.execPath, [bin, 'version'], { cwd: work, env: { ...process.env } });

    const changelog = readFileSync(join(work, 'CHANGELOG.md'), 'utf8');
    const after = JSON.parse(readFileSync(join(work, 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(after.version).not.toBe(before.version);
    expect(changelog).toMatch(
      new RegExp(`^# cortexis\\n\\n## ${after.version.replace(/\./g, '\\.')}\\n`),
    );
    for (const summary of summaries) {
      // The first line of each summary, as written (later lines are indented in the list).
      expect(changelog).toContain(summary.split('\n')[0]!);
    }
    // The changesets are consumed (in the copy).
    expect(pending.filter((file) => existsSync(join(work, '.changeset', file)))).toEqual([]);
  }, 60_000);
});
