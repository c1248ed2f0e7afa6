import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { ConfigError } from 'cortexis';

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

  it('loadDocuments skips those files with the reason and loads the rest', async () => {
    const { loadDocuments } = await import('cortexis/loaders');
    // vi.mock reaches this thread only: parse here, not in the worker.
    const result = await loadDocuments([fixtures], { worker: false });
    expect(result.documents.map((doc) => doc.id)).toContain('warranty.md');
    expect(
      result.skipped
        .filter((file) => file.code === 'missing-dependency')
        .map((file) => file.reason),
    ).toEqual(['cortexis/loaders needs unpdf for PDF files: npm install unpdf']);
    expect(result.documents.map((doc) => doc.id)).toContain('warranty.docx');
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
