/**
 * A stamp of the files the CLI reads (Node only): the paths walked, each file's size,
 * modification and change times and inode, the files skipped by the walk, and the loader
 * settings. When the stamp kept with the index matches, nothing was added, removed or touched,
 * so the documents are not read, parsed and hashed again: `ask` on an indexed folder goes
 * straight to the saved index.
 */
import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { walkPaths, type SkippedFile } from '../loaders/walk.js';
import { CLI_IGNORE_FILE, type ReadFlags } from './read-options.js';

/** What the index manifest keeps about the files it was built from. */
export interface SourceRecord {
  /** The stamp of the files (see {@link stampSources}). */
  readonly stamp: string;
  /** How many documents they held. */
  readonly documents: number;
  /** The files (or records) left out, with the reason, as the last full read reported them. */
  readonly skipped: readonly SkippedFile[];
}

/**
 * A file modified this recently (ms) is not trusted to its time stamp: a file system with coarse
 * times could show an edit made right after the read with the same size and time. (Any later
 * change to a file, `touch -d` included, also moves its change time, which the stamp holds.)
 */
const SETTLE_MS = 2_000;

// 2: the walk leaves out `--ignore` and `.cortexisignore` patterns, and the stamp names them.
const STAMP_VERSION = 2;

/**
 * The stamp of the files under `paths`, or undefined when one of them changed too recently to
 * tell an edit from its time stamp (the caller then reads every file).
 */
export async function stampSources(
  paths: readonly string[],
  fields: ReadFlags,
  now = Date.now(),
): Promise<string | undefined> {
  const walked = await walkPaths(paths, { ignore: fields.ignore, ignoreFile: CLI_IGNORE_FILE });
  const files: Array<[string, number, number, number, number]> = [];
  for (const { path } of walked.files) {
    let info;
    try {
      info = await stat(path);
    } catch {
      return undefined;
    }
    if (info.mtimeMs > now - SETTLE_MS) return undefined;
    files.push([path, info.size, info.mtimeMs, info.ctimeMs, info.ino]);
  }
  return createHash('sha256')
    .update(
      JSON.stringify({
        version: STAMP_VERSION,
        // Document ids are relative to the one path given, else to the working folder.
        root: paths.length === 1 ? null : resolve('.'),
        paths: paths.map((path) => resolve(path)),
        textField: fields.textField ?? null,
        titleField: fields.titleField ?? null,
        ignore: fields.ignore ?? [],
        files,
        skipped: walked.skipped,
      }),
    )
    .digest('hex');
}

function isSkippedFile(value: unknown): value is SkippedFile {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return (
    typeof record['path'] === 'string' &&
    typeof record['reason'] === 'string' &&
    typeof record['code'] === 'string'
  );
}

/** A `SourceRecord` read back from a manifest, or undefined when it is not one. */
export function parseSourceRecord(value: unknown): SourceRecord | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  const { stamp, documents, skipped } = record;
  if (typeof stamp !== 'string' || !/^[0-9a-f]{64}$/.test(stamp)) return undefined;
  if (typeof documents !== 'number' || !Number.isSafeInteger(documents) || documents < 0) {
    return undefined;
  }
  if (!Array.isArray(skipped) || !skipped.every(isSkippedFile)) return undefined;
  return {
    stamp,
    documents,
    skipped: skipped.map(({ path, reason, code }) => ({ path, reason, code })),
  };
}
