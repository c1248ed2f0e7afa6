/**
 * `docs/seeds.md` cannot drift from the code unnoticed: every row that says a seed's item is
 * built names a test, and every file and page a row names exists.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const page = readFileSync(join(root, 'docs', 'seeds.md'), 'utf8');

/** The table rows of the page, as cells (a row's first cell names a seed: `000 …`). */
const rows = page
  .split('\n')
  .filter((line) => /^\| 00\d/.test(line))
  .map((line) =>
    line
      .split(/(?<!\\)\|/)
      .slice(1, -1)
      .map((cell) => cell.trim()),
  );

const label = (cells: string[]) => `${cells[0]} — ${cells[1]!.slice(0, 60)}`;

describe('docs/seeds.md', () => {
  it('has the rows of every seed and of the audits', () => {
    for (const seed of ['000', '001', '002', '003', '004']) {
      expect(rows.filter((cells) => cells[0]!.startsWith(seed)).length).toBeGreaterThan(5);
    }
    expect(page).toContain('## Issue 30 audit');
    expect(rows.every((cells) => cells.length === 4)).toBe(true);
  });

  it('every row whose status is built names a test', () => {
    const missing = rows
      .filter((cells) => cells[2]!.startsWith('built'))
      .filter((cells) => !/`test\/[^`]+\.test\.ts`/.test(cells[3]!))
      .map(label);
    expect(missing).toEqual([]);
  });

  it('every file a row names exists', () => {
    const absent: string[] = [];
    for (const cells of rows) {
      for (const [, path] of cells.join(' ').matchAll(/`((?:src|test|bench|scripts)\/[^`\s]+)`/g)) {
        if (!existsSync(join(root, path!))) absent.push(`${label(cells)}: ${path}`);
      }
      for (const [, target] of cells.join(' ').matchAll(/\]\(([^)#]+)(?:#[^)]*)?\)/g)) {
        if (!existsSync(join(root, 'docs', target!))) absent.push(`${label(cells)}: ${target}`);
      }
    }
    expect(absent).toEqual([]);
  });

  it('every status is one of the page’s four kinds', () => {
    const kinds = /^(built|decision|open|measured|names|nothing to build)/;
    expect(rows.filter((cells) => !kinds.test(cells[2]!)).map(label)).toEqual([]);
  });
});
