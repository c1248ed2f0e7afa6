import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadDocuments } from 'cortexis/loaders';
import {
  docxBomb,
  docxParagraphs,
  frontMatterKeys,
  htmlNested,
  htmlParagraphs,
  pdfInflating,
  pdfPages,
  pdfDenseOperators,
} from '../fixtures/hostile-files.js';
import { buildPdf } from '../fixtures/pdf-files.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cortexis-hostile-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const summary = (skipped: readonly { path: string; code: string }[]) =>
  skipped.map((file) => [file.path.replace(`${dir}/`, ''), file.code]);

function fifo(path: string): void {
  execFileSync('mkfifo', [path]);
}

describe('files that are not files', () => {
  it('skips a symlink to /dev/zero in a folder (outside it), and as a device when followed', async () => {
    writeFileSync(join(dir, 'ok.md'), '# Ok\n\nFine.');
    symlinkSync('/dev/zero', join(dir, 'x.md'));
    const result = await loadDocuments([dir]);
    expect(result.documents.map((doc) => doc.id)).toEqual(['ok.md']);
    expect(summary(result.skipped)).toEqual([['x.md', 'symlink']]);
    const followed = await loadDocuments([dir], { symlinksOutside: true });
    expect(followed.skipped).toMatchObject([
      { code: 'special', reason: 'symlink to a character device, not a regular file' },
    ]);
  });

  it('skips a symlink to /dev/zero given as an argument, even when symlinks may lead anywhere', async () => {
    symlinkSync('/dev/zero', join(dir, 'x.md'));
    const result = await loadDocuments([join(dir, 'x.md')]);
    expect(summary(result.skipped)).toEqual([['x.md', 'symlink']]);
    const followed = await loadDocuments([join(dir, 'x.md')], { symlinksOutside: true });
    expect(followed.documents).toEqual([]);
    expect(summary(followed.skipped)).toEqual([['x.md', 'special']]);
  });

  it('skips a FIFO given explicitly without waiting for a writer', async () => {
    fifo(join(dir, 'pipe.md'));
    writeFileSync(join(dir, 'ok.md'), 'fine');
    const result = await loadDocuments([join(dir, 'pipe.md'), join(dir, 'ok.md')], { root: dir });
    expect(result.documents.map((doc) => doc.id)).toEqual(['ok.md']);
    expect(result.skipped).toMatchObject([
      { code: 'special', reason: 'a FIFO (named pipe), not a regular file' },
    ]);
  });

  it('reports a FIFO inside a folder', async () => {
    mkdirSync(join(dir, 'docs'));
    fifo(join(dir, 'docs', 'pipe.txt'));
    writeFileSync(join(dir, 'docs', 'ok.txt'), 'fine');
    const result = await loadDocuments([join(dir, 'docs')]);
    expect(result.documents.map((doc) => doc.id)).toEqual(['ok.txt']);
    expect(summary(result.skipped)).toEqual([['docs/pipe.txt', 'special']]);
  });

  it('does not follow a symlink given as an argument out of its folder (a shell glob)', async () => {
    mkdirSync(join(dir, 'docs'));
    writeFileSync(join(dir, 'secret.md'), '# Secret\n\nThe password.');
    writeFileSync(join(dir, 'docs', 'ok.md'), '# Ok\n\nFine.');
    symlinkSync(join(dir, 'secret.md'), join(dir, 'docs', 'link.md'));
    symlinkSync(join(dir, 'docs', 'ok.md'), join(dir, 'docs', 'inside.md'));
    const args = ['inside.md', 'link.md', 'ok.md'].map((name) => join(dir, 'docs', name));
    const result = await loadDocuments(args);
    expect(summary(result.skipped)).toEqual([
      ['docs/link.md', 'symlink'],
      ['docs/ok.md', 'duplicate'],
    ]);
    expect(result.documents.map((doc) => doc.text)).toEqual(['# Ok\n\nFine.']);
    // Inside an explicit root it is followed; and anywhere when the caller opts out.
    const rooted = await loadDocuments([join(dir, 'docs', 'link.md')], { root: dir });
    expect(rooted.documents.map((doc) => doc.text)).toEqual(['# Secret\n\nThe password.']);
    const opted = await loadDocuments([join(dir, 'docs', 'link.md')], { symlinksOutside: true });
    expect(opted.documents).toHaveLength(1);
  });
});

describe('files that expand', () => {
  it('skips front matter with more keys than maxFrontMatterKeys, before parsing it', async () => {
    writeFileSync(join(dir, 'keys.md'), frontMatterKeys(40_000));
    writeFileSync(join(dir, 'few.md'), frontMatterKeys(3));
    const result = await loadDocuments([dir]);
    expect(result.documents.map((doc) => doc.id)).toEqual(['few.md']);
    expect(result.skipped).toMatchObject([
      { code: 'too-large', reason: expect.stringContaining('more than maxFrontMatterKeys (1000)') },
    ]);
    // A flow mapping has its keys on one line: counted after parsing.
    const flow = `---\n{${Array.from({ length: 20 }, (_, i) => `k${i}: ${i}`).join(', ')}}\n---\nBody`;
    writeFileSync(join(dir, 'few.md'), flow);
    const limited = await loadDocuments([join(dir, 'few.md')], {
      limits: { maxFrontMatterKeys: 10 },
    });
    expect(limited.skipped).toMatchObject([{ code: 'too-large' }]);
  });

  it('skips HTML nested deeper than maxNesting or with more blocks than maxParagraphs', async () => {
    writeFileSync(join(dir, 'deep.html'), htmlNested(100_000));
    writeFileSync(join(dir, 'ok.html'), htmlNested(20));
    const result = await loadDocuments([dir]);
    expect(result.documents.map((doc) => doc.id)).toEqual(['ok.html']);
    expect(result.skipped).toMatchObject([
      { code: 'too-large', reason: 'elements nested more than maxNesting (500) deep' },
    ]);
    rmSync(join(dir, 'deep.html'));
    writeFileSync(join(dir, 'many.html'), htmlParagraphs(50));
    const limited = await loadDocuments([dir], { limits: { maxParagraphs: 40 } });
    expect(limited.documents.map((doc) => doc.id)).toEqual(['ok.html']);
    expect(limited.skipped).toMatchObject([
      { code: 'too-large', reason: 'more than maxParagraphs (40) block elements' },
    ]);
  });

  it('loads a DOCX of 2,000 paragraphs and skips one past maxParagraphs', async () => {
    writeFileSync(join(dir, 'long.docx'), docxParagraphs(2_000));
    const result = await loadDocuments([dir]);
    expect(result.documents).toHaveLength(1);
    expect(result.documents[0]!.text).toContain('Paragraph 1999 says');
    const limited = await loadDocuments([dir], { limits: { maxParagraphs: 1_000 } });
    expect(limited.skipped).toMatchObject([
      { code: 'too-large', reason: expect.stringContaining('maxParagraphs (1000)') },
    ]);
  });

  it('skips a DOCX ZIP bomb, whether its headers tell the truth or lie', async () => {
    writeFileSync(join(dir, 'honest.docx'), await docxBomb(8 * 1024 * 1024));
    writeFileSync(join(dir, 'liar.docx'), await docxBomb(8 * 1024 * 1024, 1000));
    const result = await loadDocuments([dir], { limits: { maxExpandedBytes: 1024 * 1024 } });
    expect(result.documents).toEqual([]);
    expect(summary(result.skipped)).toEqual([
      ['honest.docx', 'too-large'],
      ['liar.docx', 'too-large'],
    ]);
    for (const file of result.skipped) expect(file.reason).toContain('maxExpandedBytes (1048576');
  });

  it('skips a PDF whose streams inflate past maxExpandedBytes, and reads it under the limit', async () => {
    writeFileSync(join(dir, 'inflates.pdf'), await pdfInflating(4 * 1024 * 1024));
    const limited = await loadDocuments([dir], { limits: { maxExpandedBytes: 1024 * 1024 } });
    expect(limited.skipped).toMatchObject([
      { code: 'too-large', reason: expect.stringContaining('maxExpandedBytes (1048576') },
    ]);
    // 4 MiB from a 4 KB file: a bomb by its ratio with the default limits, read when raised.
    const bomb = await loadDocuments([dir]);
    expect(bomb.skipped).toMatchObject([
      { code: 'too-large', reason: expect.stringContaining('maxPdfExpansionRatio (20) times') },
    ]);
    const result = await loadDocuments([dir], { limits: { maxPdfExpansionRatio: 10_000 } });
    expect(result.documents.map((doc) => doc.text)).toEqual(['A page that inflates.']);
  });

  it('skips a DOCX that inflates past maxExpansionRatio times its bytes, and reads it raised', async () => {
    // 8 MiB from ~8 KB: under maxExpandedBytes, a thousand times the file.
    writeFileSync(join(dir, 'ratio.docx'), await docxBomb(8 * 1024 * 1024));
    const result = await loadDocuments([dir]);
    expect(result.skipped).toMatchObject([
      { code: 'too-large', reason: expect.stringContaining('maxExpansionRatio (100) times') },
    ]);
    const raised = await loadDocuments([dir], { limits: { maxExpansionRatio: 10_000 } });
    // Read to its end: spaces, no text.
    expect(raised.skipped).toMatchObject([{ code: 'empty' }]);
  });

  it('skips a PDF page of cheap operators deflated (26.7 MiB from 41 KB) by its ratio, and reads dense pages that are not bombs', async () => {
    writeFileSync(join(dir, 'dense.pdf'), pdfDenseOperators(4_000_000));
    const bomb = await loadDocuments([dir]);
    expect(bomb.documents).toEqual([]);
    expect(bomb.skipped).toMatchObject([
      { code: 'too-large', reason: expect.stringContaining('maxPdfExpansionRatio (20) times') },
    ]);
    rmSync(join(dir, 'dense.pdf'));
    // The same operators, numbers varying (deflates 6-fold), and a Tj page padded to 20-fold.
    writeFileSync(join(dir, 'varied.pdf'), pdfDenseOperators(20_000, '', { vary: true }));
    writeFileSync(
      join(dir, 'padded.pdf'),
      pdfDenseOperators(200_000, '(a) Tj ', { padding: 80_000 }),
    );
    const read = await loadDocuments([dir]);
    expect(read.skipped).toEqual([]);
    expect(read.documents.map((doc) => doc.text.length > 0)).toEqual([true, true]);
  });

  it('skips a PDF of more pages than maxPages before reading a page', async () => {
    writeFileSync(join(dir, 'pages.pdf'), pdfPages(30));
    const limited = await loadDocuments([dir], { limits: { maxPages: 20 } });
    expect(limited.skipped).toMatchObject([
      { code: 'too-large', reason: 'more than maxPages (20) pages' },
    ]);
    const result = await loadDocuments([dir]);
    expect(result.documents[0]!.metadata?.pages).toBe(30);
  });

  it('loads the good PDFs of a folder of hostile ones and reports each other with a reason', async () => {
    const page =
      '<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>';
    const font = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';
    const content = { dict: '', data: 'BT /F1 12 Tf 72 720 Td (Readable.) Tj ET', deflate: true };
    const withPages = (pages: string) =>
      buildPdf({ objects: ['<< /Type /Catalog /Pages 2 0 R >>', pages, page, font, content] });
    const good = withPages('<< /Type /Pages /Kids [3 0 R] /Count 1 >>');
    const text = good.toString('latin1');
    writeFileSync(join(dir, 'good.pdf'), good);
    // A startxref past the end of the file: rebuilt by scanning, read.
    writeFileSync(
      join(dir, 'xref-outside.pdf'),
      Buffer.from(text.replace(/startxref\n\d+/, 'startxref\n99999999'), 'latin1'),
    );
    writeFileSync(join(dir, 'cut.pdf'), good.subarray(0, 40));
    writeFileSync(
      join(dir, 'cycle.pdf'),
      withPages('<< /Type /Pages /Kids [3 0 R 2 0 R] /Count 2 >>'),
    );
    writeFileSync(
      join(dir, 'count.pdf'),
      withPages('<< /Type /Pages /Kids [3 0 R] /Count 999999999 >>'),
    );
    const result = await loadDocuments([dir]);
    expect(result.documents.map((doc) => [doc.id, doc.text])).toEqual([
      ['good.pdf', 'Readable.'],
      ['xref-outside.pdf', 'Readable.'],
    ]);
    expect(summary(result.skipped)).toEqual([
      ['count.pdf', 'too-large'],
      ['cut.pdf', 'parse-error'],
      ['cycle.pdf', 'parse-error'],
    ]);
  });

  it('refuses limits that are not positive integers', async () => {
    for (const limits of [
      { maxPages: 0 },
      { maxNesting: 1.5 },
      { maxExpandedBytes: -1 },
      { nope: 1 },
    ]) {
      await expect(loadDocuments([dir], { limits: limits as never })).rejects.toThrow(/limits/);
    }
  });
});
