/**
 * Snapshot files for the CLI (Node only): the in-memory stores saved to a folder with a
 * manifest naming the fingerprint of the settings that shaped them and the hash of each
 * ingested document, so a later run restores them and re-ingests only what changed
 * (`incremental.ts`).
 *
 * @example
 * ```ts
 * const loaded = await loadSnapshot(dir, settingsFingerprint);
 * if (loaded?.documents) restoreStores(stores, loaded);
 * const changes = diffDocuments(loaded?.documents, hashDocuments(docs));
 * // ingest changes.added and changes.changed, delete changes.removed, then:
 * await saveSnapshot(dir, stores, settingsFingerprint, hashDocuments(docs));
 * ```
 */
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CortexisError } from '../errors/index.js';
import { parseSourceRecord, type SourceRecord } from './source-stamp.js';

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

/**
 * Bytes read back from a snapshot folder, one entry per store that was saved, and the
 * document hashes saved with them (for incremental indexing), when there were any.
 */
export type LoadedSnapshot = { -readonly [Key in keyof SnapshotStores]?: Uint8Array } & {
  documents?: Record<string, string>;
  /** The stamp of the files the index was built from, when it was saved with one. */
  sources?: SourceRecord;
};

const MANIFEST = 'manifest.json';
const MANIFEST_VERSION = 1;
const STORE_KEYS = ['vectors', 'keywords', 'graph'] as const;

/**
 * Writes each store's snapshot to `dir` (created when missing), then a manifest with the
 * fingerprint and, when given, the hash of each indexed document (id → hash). Files are
 * written to temporary names and renamed, the manifest last, so an interrupted save never
 * leaves a manifest pointing at partial files.
 */
export async function saveSnapshot(
  dir: string,
  stores: SnapshotStores,
  fingerprint: string,
  documents?: Readonly<Record<string, string>>,
  sources?: SourceRecord,
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
    ...(documents ? { documents } : {}),
    ...(sources ? { sources } : {}),
    createdAt: new Date().toISOString(),
  };
  await writeManifest(dir, manifest);
}

async function writeManifest(dir: string, manifest: Record<string, unknown>): Promise<void> {
  const temporary = join(dir, `${MANIFEST}.${process.pid}.tmp`);
  await writeFile(temporary, `${JSON.stringify(manifest, null, 2)}\n`);
  await rename(temporary, join(dir, MANIFEST));
}

/**
 * Replaces the file stamp in the manifest of `dir` (the index itself is unchanged: files were
 * touched, not changed). Does nothing when the manifest is not one `loadSnapshot` would read.
 */
export async function saveSnapshotSources(dir: string, sources: SourceRecord): Promise<void> {
  let manifest: unknown;
  try {
    manifest = JSON.parse(await readFile(join(dir, MANIFEST), 'utf8'));
  } catch {
    return;
  }
  if (!isRecord(manifest) || manifest['version'] !== MANIFEST_VERSION) return;
  await writeManifest(dir, { ...manifest, sources });
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
  const documents = manifest['documents'];
  if (documents !== undefined) {
    if (!isRecord(documents) || !Object.values(documents).every((v) => typeof v === 'string')) {
      return null;
    }
    loaded.documents = { ...(documents as Record<string, string>) };
  }
  const sources = parseSourceRecord(manifest['sources']);
  if (sources) loaded.sources = sources;
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
