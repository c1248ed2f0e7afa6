import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { ConfigError } from 'cortexis';
import { buildPdf } from '../fixtures/pdf-files.js';

// As if the optional peers were not installed.
vi.mock('unpdf', () => {
  throw new Error("Cannot find package 'unpdf'");
});
vi.mock('mammoth', () => {
  throw new Error("Cannot find package 'mammoth'");
});

const fixtures = join(import.meta.dirname, '../fixtures/loaders');
const bytesOf = (name: string) => readFileSync(join(fixtures, name));

describe('optional parsers that are not installed', () => {
  it('parsePdf throws a ConfigError naming the package to install; parseDocx needs no peer', async () => {
    const { parseDocx, parsePdf } = await import('cortexis/loaders');
    const pdf = await parsePdf(new Uint8Array(8)).catch((error: unknown) => error);
    expect(ConfigError.isInstance(pdf)).toBe(true);
    expect((pdf as Error).message).toBe(
      'cortexis/loaders needs unpdf for PDF files: npm install unpdf',
    );
    const docx = await parseDocx(bytesOf('warranty.docx'));
    expect(docx.title).toBe('Warranty handbook');
  });

  it('parsePdf reads the PDFs its own reader can without unpdf', async () => {
    const { parsePdf } = await import('cortexis/loaders');
    const pdf = await parsePdf(new Uint8Array(bytesOf('retention.pdf')));
    expect(pdf.title).toBe('Data retention policy');
    expect(pdf.pages).toHaveLength(2);
  });

  it('loadDocuments loads those PDFs, skips the ones only unpdf reads with the reason, and loads the rest', async () => {
    const { loadDocuments } = await import('cortexis/loaders');
    const dir = mkdtempSync(join(tmpdir(), 'cortexis-missing-'));
    try {
      for (const name of ['retention.pdf', 'warranty.md', 'warranty.docx']) {
        copyFileSync(join(fixtures, name), join(dir, name));
      }
      // Encrypted: the own reader declines it.
      const encrypted = buildPdf({
        objects: [
          '<< /Type /Catalog /Pages 2 0 R >>',
          '<< /Type /Pages /Kids [] /Count 0 >>',
          '<< /Filter /Standard /V 1 /R 2 /O <00> /U <00> /P -4 >>',
        ],
        trailer: '/Encrypt 3 0 R',
      });
      writeFileSync(join(dir, 'encrypted.pdf'), encrypted);
      // vi.mock reaches this thread only: parse here, not in the worker.
      const result = await loadDocuments([dir], { worker: false });
      expect(
        result.skipped.map((file) => [file.path.slice(dir.length + 1), file.code, file.reason]),
      ).toEqual([
        [
          'encrypted.pdf',
          'missing-dependency',
          'cortexis/loaders needs unpdf for PDF files: npm install unpdf',
        ],
      ]);
      expect(result.documents.map((doc) => doc.id).sort()).toEqual([
        'retention.pdf',
        'warranty.docx',
        'warranty.md',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('uses a library the caller injects instead of importing it', async () => {
    const { loadDocuments, parsePdf } = await import('cortexis/loaders');
    const unpdf = await vi.importActual<typeof import('unpdf')>('unpdf');
    const mammoth = () => vi.importActual<typeof import('mammoth')>('mammoth');
    const result = await loadDocuments([fixtures], { unpdf, mammoth });
    expect(result.skipped.filter((file) => file.code === 'missing-dependency')).toEqual([]);
    expect(result.documents.map((doc) => doc.id)).toEqual(
      expect.arrayContaining(['retention.pdf', 'warranty.docx']),
    );
    expect(
      (await parsePdf(new Uint8Array(bytesOf('retention.pdf')), { library: unpdf })).pages,
    ).toHaveLength(2);
  });
});
