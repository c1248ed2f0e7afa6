import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PAGE_BREAK, parsePdf } from 'cortexis/loaders';

const bytes = readFileSync(join(import.meta.dirname, '../fixtures/loaders/retention.pdf'));

describe('parsePdf', () => {
  it('extracts the text of each page of a real PDF, with its title and author', async () => {
    const pdf = await parsePdf(bytes);
    expect(pdf.pages).toEqual([
      'Retention policy\nInvoices are kept for ten years in the archive.\nPage one covers invoices.',
      'Deletion\nChat transcripts are deleted after ninety days.\nBackups rotate every thirty days.',
    ]);
    expect(pdf.title).toBe('Data retention policy');
    expect(pdf.metadata).toEqual({ pages: 2, author: 'ops' });
  });

  it('leaves the caller’s buffer usable (pdf.js detaches the buffer it is given)', async () => {
    const copy = new Uint8Array(bytes);
    await parsePdf(copy);
    expect(copy.byteLength).toBe(bytes.byteLength);
    expect((await parsePdf(copy)).pages).toHaveLength(2);
  });

  it('rejects bytes that are not a PDF', async () => {
    await expect(parsePdf(new TextEncoder().encode('not a pdf'))).rejects.toThrow();
  });

  it('separates pages with a form feed line', () => {
    expect(PAGE_BREAK).toBe('\n\n\f\n\n');
  });
});
