/** Loads the BEIR SciFact files from `../shared/data/scifact` (or `--data DIR`). */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export interface SciFactDocument {
  readonly id: string;
  readonly title: string;
  readonly text: string;
}

export interface SciFactQuery {
  readonly id: string;
  readonly text: string;
}

/** The data folder: `--data DIR`, else `../shared/data/scifact` from the repository root. */
export function sciFactDir(argv: readonly string[] = process.argv): string {
  const flag = argv.indexOf('--data');
  return resolve(
    flag >= 0 && argv[flag + 1]
      ? argv[flag + 1]!
      : join(import.meta.dirname, '../../shared/data/scifact'),
  );
}

export function hasSciFact(dir: string): boolean {
  return existsSync(join(dir, 'corpus.jsonl'));
}

function jsonl<T>(path: string): T[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim().length > 0)
    .map((line) => JSON.parse(line) as T);
}

export function loadCorpus(dir: string): SciFactDocument[] {
  return jsonl<{ _id: string; title: string; text: string }>(join(dir, 'corpus.jsonl')).map(
    (doc) => ({ id: doc._id, title: doc.title, text: doc.text }),
  );
}

export function loadQueries(dir: string, split: 'test' | 'train' = 'test'): SciFactQuery[] {
  const file = split === 'test' ? 'queries.jsonl' : 'queries-train.jsonl';
  return jsonl<{ _id: string; text: string }>(join(dir, file)).map((q) => ({
    id: q._id,
    text: q.text,
  }));
}
