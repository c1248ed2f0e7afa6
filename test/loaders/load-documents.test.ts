import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createChatEngine, ValidationError } from 'cortexis';
import { loadDocuments, type LoadProgress } from 'cortexis/loaders';

// Real files as users have them: retention.pdf (two pages, Title/Author; written by
// `python3 .generate/make-pdf.py retention.pdf`, a valid xref table), warranty.docx (Title and
// Heading styles; `.generate/make-docx.py`), markdown with front matter, HTML with page chrome
// and an unterminated <script>, JSONL with bad lines, a binary file behind `.txt`, a PNG.
// The dot-folder `.generate` is itself never walked.
const fixtures = join(import.meta.dirname, '../fixtures/loaders');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cortexis-loaders-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const summary = (skipped: readonly { path: string; code: string }[]) =>
  skipped.map((file) => [file.path.replace(`${dir}/`, '').replace(`${fixtures}/`, ''), file.code]);

describe('loadDocuments', () => {
  it('loads one file of each kind and reports every file it skips, with the reason', async () => {
    const result = await loadDocuments([fixtures], { textField: 'answer', titleField: 'question' });
    expect(result.documents.map((doc) => [doc.id, doc.title, doc.metadata?.fileType])).toEqual([
      ['faq-1', 'How long is shipping?', 'jsonl'],
      ['faq-2', 'Do you ship abroad?', 'jsonl'],
      ['notes.txt', 'notes', 'text'],
      ['retention.pdf', 'Data retention policy', 'pdf'],
      ['shop.html', 'Returns policy', 'html'],
      ['warranty.docx', 'Warranty handbook', 'docx'],
      ['warranty.md', 'Warranty policy', 'markdown'],
    ]);
    for (const doc of result.documents) {
      expect(doc.uri?.startsWith(fixtures)).toBe(true);
      expect(typeof doc.metadata?.modifiedAt).toBe('string');
    }
    expect(summary(result.skipped)).toEqual([
      ['fake.txt', 'binary'],
      ['faq.jsonl:3', 'parse-error'],
      ['faq.jsonl:4', 'empty'],
      ['logo.png', 'unsupported'],
    ]);
    expect(result.skipped.find((file) => file.code === 'unsupported')?.reason).toMatch(
      /unsupported file type '\.png'; supported: .*\.pdf, \.docx/,
    );
  });

  it('joins PDF pages with form feeds so chunks carry their page number', async () => {
    const { documents } = await loadDocuments([join(fixtures, 'retention.pdf')]);
    const engine = createChatEngine();
    await engine.ingest(documents);
    const hits = await engine.search('How long are chat transcripts kept before deletion?');
    expect(hits[0]?.documentId).toBe('retention.pdf');
    expect(hits[0]?.metadata.page).toBe(2);
    const first = await engine.search('How long are invoices kept in the archive?');
    expect(first[0]?.metadata.page).toBe(1);
  });

  it('answers from each kind of file after ingesting a folder', async () => {
    const { documents } = await loadDocuments([fixtures], { textField: 'answer' });
    const engine = createChatEngine();
    await engine.ingest(documents);
    const questions: [string, string][] = [
      ['Is water damage covered by the warranty?', 'warranty.md'],
      ['Within how many days can items be returned?', 'shop.html'],
      ['How long are invoices kept in the archive?', 'retention.pdf'],
      ['What do warranty claims need besides the serial number?', 'warranty.docx'],
      ['When is the store open?', 'notes.txt'],
      ['How long does shipping take?', 'faq-1'],
    ];
    for (const [question, documentId] of questions) {
      const hits = await engine.search(question);
      expect(hits[0]?.documentId, question).toBe(documentId);
    }
  });

  it('walks folders in name order, leaving out ignore patterns, dot-files and node_modules', async () => {
    mkdirSync(join(dir, 'a/drafts'), { recursive: true });
    mkdirSync(join(dir, 'node_modules/pkg'), { recursive: true });
    mkdirSync(join(dir, '.git'));
    writeFileSync(join(dir, 'b.md'), '# B\n\nbee');
    writeFileSync(join(dir, 'a/z.txt'), 'zed');
    writeFileSync(join(dir, 'a/draft-1.md'), 'draft');
    writeFileSync(join(dir, 'a/drafts/x.md'), 'x');
    writeFileSync(join(dir, 'node_modules/pkg/readme.md'), 'pkg');
    writeFileSync(join(dir, '.git/notes.txt'), 'git');
    writeFileSync(join(dir, '.hidden.md'), 'hidden');
    const result = await loadDocuments([dir], { ignore: ['draft-*.md', 'a/drafts/**'] });
    expect(result.documents.map((doc) => doc.id)).toEqual(['a/z.txt', 'b.md']);
    expect(result.skipped).toEqual([]);
  });

  it('never follows a symlink out of the folder or around a loop, and says so', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'cortexis-outside-'));
    try {
      writeFileSync(join(outside, 'secret.md'), 'secret');
      mkdirSync(join(dir, 'docs/sub'), { recursive: true });
      writeFileSync(join(dir, 'docs/sub/page.md'), 'page');
      symlinkSync(join(outside, 'secret.md'), join(dir, 'docs/leak.md'));
      symlinkSync(outside, join(dir, 'docs/outside'));
      symlinkSync(join(dir, 'docs'), join(dir, 'docs/sub/loop'));
      symlinkSync(join(dir, 'docs/sub/page.md'), join(dir, 'docs/alias.md'));
      symlinkSync(join(dir, 'missing.md'), join(dir, 'docs/broken.md'));
      const result = await loadDocuments([join(dir, 'docs')]);
      expect(result.documents.map((doc) => doc.id)).toEqual(['alias.md']);
      expect(summary(result.skipped)).toEqual([
        ['docs/broken.md', 'symlink'],
        ['docs/leak.md', 'symlink'],
        ['docs/outside', 'symlink'],
        ['docs/sub/loop', 'symlink'],
        ['docs/sub/page.md', 'duplicate'],
      ]);
      expect(result.skipped[1]?.reason).toContain('outside');
      expect(result.skipped[3]?.reason).toContain('loop');
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('expands glob patterns and reports paths and patterns that match nothing', async () => {
    cpSync(fixtures, dir, { recursive: true });
    const result = await loadDocuments(
      [join(dir, '**/*.{md,pdf}'), join(dir, 'none/*.md'), join(dir, 'gone.md')],
      { root: dir },
    );
    expect(result.documents.map((doc) => doc.id)).toEqual(['retention.pdf', 'warranty.md']);
    expect(summary(result.skipped)).toEqual([
      ['none/*.md', 'not-found'],
      ['gone.md', 'not-found'],
    ]);
  });

  it('takes an existing name with glob characters as it is', async () => {
    mkdirSync(join(dir, 'notes [old]'));
    writeFileSync(join(dir, 'notes [old]/a.md'), 'alpha');
    const result = await loadDocuments([join(dir, 'notes [old]')]);
    expect(result.documents.map((doc) => doc.id)).toEqual(['a.md']);
    expect(result.skipped).toEqual([]);
  });

  it('skips files over maxFileBytes, empty files and broken ones, and reports progress', async () => {
    writeFileSync(join(dir, 'big.txt'), 'x'.repeat(2000));
    writeFileSync(join(dir, 'blank.md'), '---\ntitle: Only front matter\n---\n\n');
    writeFileSync(join(dir, 'bad.pdf'), 'not a pdf');
    writeFileSync(join(dir, 'bad.json'), '{"text": ');
    writeFileSync(join(dir, 'ok.txt'), 'fine');
    const progress: LoadProgress[] = [];
    const result = await loadDocuments([dir], {
      maxFileBytes: 1000,
      onProgress: (step) => progress.push(step),
    });
    expect(result.documents.map((doc) => doc.id)).toEqual(['ok.txt']);
    expect(summary(result.skipped)).toEqual([
      ['bad.json', 'parse-error'],
      ['bad.pdf', 'parse-error'],
      ['big.txt', 'too-large'],
      ['blank.md', 'empty'],
    ]);
    expect(progress.map((step) => [step.filesDone, step.filesTotal])).toEqual([
      [1, 5],
      [2, 5],
      [3, 5],
      [4, 5],
      [5, 5],
    ]);
  });

  it('skips a document whose text is longer than maxTextLength', async () => {
    writeFileSync(join(dir, 'long.md'), `# Long\n\n${'word '.repeat(10)}`);
    writeFileSync(join(dir, 'short.md'), 'short');
    const result = await loadDocuments([dir], { maxTextLength: 20 });
    expect(result.documents.map((doc) => doc.id)).toEqual(['short.md']);
    expect(result.skipped).toMatchObject([
      { code: 'too-large', reason: expect.stringContaining('more than maxTextLength (20)') },
    ]);
    await expect(loadDocuments([dir], { maxTextLength: 1.5 })).rejects.toThrow(/maxTextLength/);
  });

  it('reports a file that is not a regular file (a socket named .txt) and loads the rest', async () => {
    writeFileSync(join(dir, 'ok.txt'), 'fine');
    const server = createServer();
    await new Promise<void>((done) => server.listen(join(dir, 'socket.txt'), done));
    try {
      const result = await loadDocuments([join(dir, 'ok.txt'), join(dir, 'socket.txt')], {
        root: dir,
      });
      expect(result.documents.map((doc) => doc.id)).toEqual(['ok.txt']);
      expect(summary(result.skipped)).toEqual([['socket.txt', 'special']]);
    } finally {
      await new Promise((done) => server.close(done));
    }
  });

  it('skips a later file or record whose id is already taken, so ingest accepts the batch', async () => {
    writeFileSync(join(dir, 'a.jsonl'), '{"id":"same","text":"one"}\n');
    writeFileSync(join(dir, 'b.jsonl'), '{"id":"same","text":"two"}\n');
    const result = await loadDocuments([dir]);
    expect(result.documents.map((doc) => doc.text)).toEqual(['one']);
    expect(result.skipped).toMatchObject([
      { code: 'duplicate', reason: expect.stringContaining("id 'same'") },
    ]);
  });

  it('gives ids relative to root, with / separators', async () => {
    mkdirSync(join(dir, 'x/y'), { recursive: true });
    writeFileSync(join(dir, 'x/y/z.md'), 'zed');
    const result = await loadDocuments([join(dir, 'x/y/z.md')], { root: dir });
    expect(result.documents[0]?.id).toBe('x/y/z.md');
    expect((await loadDocuments([join(dir, 'x/y/z.md')])).documents[0]?.id).toBe('z.md');
  });

  it('rejects bad options with a ValidationError naming the field', async () => {
    await expect(loadDocuments(['.'], { maxFileBytes: -1 })).rejects.toThrow(ValidationError);
    await expect(loadDocuments(['.'], { maxFileBytes: 0 })).rejects.toThrow(/maxFileBytes/);
    await expect(loadDocuments('docs' as unknown as string[])).rejects.toThrow(/paths/);
    await expect(loadDocuments(['.'], { textField: '' })).rejects.toThrow(/textField/);
  });

  it('stops when the signal is aborted', async () => {
    writeFileSync(join(dir, 'a.txt'), 'a');
    await expect(loadDocuments([dir], { signal: AbortSignal.abort() })).rejects.toThrow();
  });
});
