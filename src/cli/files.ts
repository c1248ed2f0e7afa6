import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, extname, join, relative, resolve } from 'node:path';
import { htmlToText } from '../ingest/html.js';
import type { IngestDocument } from '../types.js';

/** File endings the CLI ingests. */
export const SUPPORTED_EXTENSIONS = ['.md', '.markdown', '.txt', '.html', '.htm'] as const;

async function walk(path: string, found: string[]): Promise<void> {
  const info = await stat(path);
  if (info.isDirectory()) {
    const entries = await readdir(path, { withFileTypes: true });
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
      await walk(join(path, entry.name), found);
    }
  } else if ((SUPPORTED_EXTENSIONS as readonly string[]).includes(extname(path).toLowerCase())) {
    found.push(path);
  }
}

/** Every supported file under the given files and folders, sorted, without duplicates. */
export async function findFiles(paths: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  for (const path of paths) await walk(resolve(path), found);
  return [...new Set(found)];
}

/** A title: the first markdown heading, else the file name without its ending. */
export function titleOf(text: string, path: string): string {
  const heading = /^#{1,6}\s+(.+?)\s*#*\s*$/m.exec(text);
  return heading?.[1] ?? basename(path, extname(path));
}

/** Reads files as documents; HTML is converted to text with headings kept. */
export async function readDocuments(
  files: readonly string[],
  root: string,
): Promise<IngestDocument[]> {
  const docs: IngestDocument[] = [];
  for (const file of files) {
    const raw = await readFile(file, 'utf8');
    const ext = extname(file).toLowerCase();
    const text = ext === '.html' || ext === '.htm' ? htmlToText(raw) : raw;
    if (text.trim().length === 0) continue;
    const id = relative(root, file) || basename(file);
    docs.push({ id, text, title: titleOf(text, file), uri: file });
  }
  return docs;
}
