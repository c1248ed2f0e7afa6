import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadDocuments } from 'cortexis/loaders';

// Many packages and repositories ship their README with no file ending.
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cortexis-readme-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('loadDocuments: a README with no file ending', () => {
  it('reads README (any case) as Markdown and still skips other files with no ending', async () => {
    mkdirSync(join(dir, 'pkg'));
    writeFileSync(join(dir, 'README'), '# Widget\n\nInstall with `npm i widget`.\n');
    writeFileSync(join(dir, 'pkg', 'Readme'), '# Pkg\n\n**Bold** text.\n');
    writeFileSync(join(dir, 'LICENSE'), 'MIT License\n');
    writeFileSync(join(dir, 'Makefile'), 'all:\n\techo hi\n');
    const { documents, skipped } = await loadDocuments([dir]);
    expect(documents.map((doc) => [doc.id, doc.title, doc.metadata?.fileType])).toEqual([
      ['README', 'Widget', 'markdown'],
      ['pkg/Readme', 'Pkg', 'markdown'],
    ]);
    expect(documents[1]?.text).toContain('Bold text.');
    expect(skipped.map((file) => [file.path.replace(`${dir}/`, ''), file.code]).sort()).toEqual([
      ['LICENSE', 'unsupported'],
      ['Makefile', 'unsupported'],
    ]);
    expect(skipped[0]?.reason).toMatch(/unsupported file type \(no file ending\)/);
  });

  it('does not take a README with another ending, or a name that only starts with README', async () => {
    writeFileSync(join(dir, 'README.rst'), 'Widget\n======\n');
    writeFileSync(join(dir, 'README-old'), '# Old\n');
    const { documents, skipped } = await loadDocuments([dir]);
    expect(documents).toEqual([]);
    expect(skipped.map((file) => file.code)).toEqual(['unsupported', 'unsupported']);
  });
});
