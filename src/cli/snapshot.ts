/**
 * Snapshot files for the CLI (Node only): the in-memory stores saved to a folder with a
 * manifest naming the fingerprint of what was ingested, so an unchanged folder is restored
 * instead of re-ingested.
 *
 * @example
 * ```ts
 * const fingerprint = await fingerprintFiles(files, { embedderId: embedder.id, chunkSize, chunkOverlap });
 * const loaded = await loadSnapshot(dir, fingerprint);
 * if (loaded) restoreStores(stores, loaded);
 * else { await engine.ingest(docs); await saveSnapshot(dir, stores, fingerprint); }
 * ```
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { CortexisError } from '../errors/index.js';

/** A store that can save itself to bytes and load them back (the in-memory stores). */
export interface SnapshotStore {
  /** The store's content as bytes. */
  snapshot(): Uint8Array;
  /** Replaces the store's content; throws `ValidationError` on bad bytes. */
  restore(bytes: Uint8Array): void;
}

/** The stores a CLI snapshot holds; each is optional. */
export interface SnapshotStores {
  /** The vector store (`createMemoryVectorStore`). */
  readonly vectors?: SnapshotStore | undefined;
  /** The keyword index (`createMemoryKeywordIndex`). */
  readonly keywords?: SnapshotStore | undefined;
  /** The graph store (`createMemoryGraphStore`). */
  readonly graph?: SnapshotStore | undefined;
}

/** Bytes read back from a snapshot folder, one entry per store that was saved. */
export type LoadedSnapshot = { -readonly [Key in keyof SnapshotStores]?: Uint8Array };

/** What besides the files decides whether a snapshot is still valid. */
export interface FingerprintSettings {
  /** The embedder's id (a different embedder makes different vectors). */
  readonly embedderId: string;
  /** Chunk size in tokens. */
  readonly chunkSize: number;
  /** Chunk overlap in tokens. */
  readonly chunkOverlap: number;
  /** Anything else that changes the indexes (e.g. a tokenizer name); compared as JSON. */
  readonly extra?: unknown;
}

const MANIFEST = 'manifest.json';
const MANIFEST_VERSION = 1;
const STORE_KEYS = ['vectors', 'keywords', 'graph'] as const;

/**
 * A SHA-256 hex fingerprint of the files (absolute path, size, mtime) and the settings that
 * shape the indexes. Any added, removed, touched or resized file changes it.
 */
export async function fingerprintFiles(
  files: readonly string[],
  settings: FingerprintSettings,
): Promise<string> {
  const hash = createHash('sha256');
  hash.update(
    JSON.stringify({
      embedderId: settings.embedderId,
      chunkSize: settings.chunkSize,
      chunkOverlap: settings.chunkOverlap,
      extra: settings.extra ?? null,
    }),
  );
  for (const file of [...new Set(files.map((path) => resolve(path)))].sort()) {
    const info = await stat(file);
    hash.update(`\n${file}\0${info.size}\0${info.mtimeMs}`);
  }
  return hash.digest('hex');
}

/**
 * The default snapshot folder for a set of input paths:
 * `$XDG_CACHE_HOME/cortexis/<hash of the paths>` (else `~/.cache/cortexis/…`).
 */
export function defaultSnapshotDir(paths: readonly string[]): string {
  const key = createHash('sha256')
    .update(JSON.stringify(paths.map((path) => resolve(path)).sort()))
    .digest('hex')
    .slice(0, 16);
  const cache = process.env['XDG_CACHE_HOME'] || join(homedir(), '.cache');
  return join(cache, 'cortexis', key);
}

/**
 * Writes each store's snapshot to `dir` (created when missing), then a manifest with the
 * fingerprint. Files are written to temporary names and renamed, the manifest last, so an
 * interrupted save never leaves a manifest pointing at partial files.
 */
export async function saveSnapshot(
  dir: string,
  stores: SnapshotStores,
  fingerprint: string,
): Promise<void> {
  await mkdir(dir, { recursive: true });
  await rm(join(dir, MANIFEST), { force: true });
  const files: Record<string, string> = {};
  for (const key of STORE_KEYS) {
    const store = stores[key];
    if (!store) continue;
    const name = `${key}.bin`;
    const temporary = join(dir, `${name}.${process.pid}.tmp`);
    await writeFile(temporary, store.snapshot());
    await rename(temporary, join(dir, name));
    files[key] = name;
  }
  const manifest = {
    version: MANIFEST_VERSION,
    fingerprint,
    files,
    createdAt: new Date().toISOString(),
  };
  const temporary = join(dir, `${MANIFEST}.${process.pid}.tmp`);
  await writeFile(temporary, `${JSON.stringify(manifest, null, 2)}\n`);
  await rename(temporary, join(dir, MANIFEST));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads the snapshot in `dir` when its manifest carries `fingerprint`; null when there is
 * none, it is stale, or its manifest is unreadable (the caller then ingests and saves anew).
 * Throws a `CortexisError` when a file the manifest names is missing. The bytes are checked
 * (header, kind, checksum) by each store's `restore`.
 */
export async function loadSnapshot(
  dir: string,
  fingerprint: string,
): Promise<LoadedSnapshot | null> {
  let manifest: unknown;
  try {
    manifest = JSON.parse(await readFile(join(dir, MANIFEST), 'utf8'));
  } catch {
    return null;
  }
  if (
    !isRecord(manifest) ||
    manifest['version'] !== MANIFEST_VERSION ||
    manifest['fingerprint'] !== fingerprint ||
    !isRecord(manifest['files'])
  ) {
    return null;
  }
  const files = manifest['files'];
  const loaded: LoadedSnapshot = {};
  for (const key of STORE_KEYS) {
    const name = files[key];
    if (name === undefined) continue;
    if (typeof name !== 'string' || name !== `${key}.bin`) return null;
    try {
      const buffer = await readFile(join(dir, name));
      loaded[key] = new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
    } catch (error) {
      throw new CortexisError('not_found', `snapshot file ${join(dir, name)} is missing`, false, {
        cause: error,
      });
    }
  }
  return loaded;
}

/**
 * Restores every store that has bytes in `loaded` (vectors, keywords, graph, in that order).
 * A corrupt file throws the store's `ValidationError` and leaves that store unchanged, but
 * stores before it are already restored: on an error, ingest into fresh stores instead.
 */
export function restoreStores(stores: SnapshotStores, loaded: LoadedSnapshot): void {
  for (const key of STORE_KEYS) {
    const bytes = loaded[key];
    if (bytes !== undefined) stores[key]?.restore(bytes);
  }
}
