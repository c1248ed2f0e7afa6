import { constants, type Dirent, type Stats } from 'node:fs';
import { lstat, open, readdir, realpath, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { ConfigError } from '../errors/index.js';
import { globBase, globToRegExp, ignoreMatcher, isGlob, parseIgnoreFile } from './glob.js';

/** A file found by `walkPaths`. */
export interface FoundFile {
  /** Absolute path as walked (through symlinks inside the folder). */
  readonly path: string;
}

/** Why a path was not loaded. */
export type SkipCode =
  | 'not-found'
  | 'unreadable'
  | 'unsupported'
  | 'binary'
  | 'too-large'
  | 'parse-error'
  | 'empty'
  | 'missing-dependency'
  | 'symlink'
  | 'duplicate'
  | 'special'
  | 'invalid'
  | 'timeout';

/** A path that was not loaded, and why. */
export interface SkippedFile {
  /** The file's path (a record's is `file:line`). */
  readonly path: string;
  /** Why, in words. */
  readonly reason: string;
  /** Why, as a stable code. */
  readonly code: SkipCode;
}

/** Names never walked into unless named explicitly: dot-files and folders, `node_modules`. */
export const DEFAULT_IGNORE = ['.*', 'node_modules'] as const;

/** Largest ignore file read (bytes); a larger one is a `ConfigError`. */
export const MAX_IGNORE_FILE_BYTES = 64 * 1024;

/**
 * The patterns of the ignore file `name` in `folder` (none when there is no such file). A file
 * that is not a regular one (a symlink, a folder), too large, unreadable or with a bad line is a
 * `ConfigError` naming the file (and the line): a walk that silently dropped what the file
 * asked to leave out would index what the user meant to keep out.
 */
export async function readIgnoreFile(folder: string, name: string): Promise<string[]> {
  const path = join(folder, name);
  // Checked and read through one handle, so the file cannot be swapped for a symlink, a FIFO
  // or a larger file between the check and the read. `O_NOFOLLOW` refuses a symlink where the
  // platform has it (elsewhere `lstat` does, before the open); `O_NONBLOCK` keeps a FIFO from
  // blocking the open.
  const info = await lstat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return undefined;
    throw ignoreFileError(path, `cannot be read: ${error.message}`);
  });
  if (info === undefined) return [];
  if (!info.isFile()) throw ignoreFileError(path, 'is not a regular file');
  const flags = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
  const handle = await open(path, flags).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ELOOP') throw ignoreFileError(path, 'is not a regular file');
    throw ignoreFileError(path, `cannot be read: ${error.message}`);
  });
  let text: string;
  try {
    if (!(await handle.stat()).isFile()) throw ignoreFileError(path, 'is not a regular file');
    const buffer = Buffer.alloc(MAX_IGNORE_FILE_BYTES + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    if (bytesRead > MAX_IGNORE_FILE_BYTES) {
      throw ignoreFileError(path, `is larger than ${MAX_IGNORE_FILE_BYTES} bytes`);
    }
    text = buffer.toString('utf8', 0, bytesRead);
  } catch (error) {
    if (ConfigError.isInstance(error)) throw error;
    throw ignoreFileError(path, `cannot be read: ${(error as Error).message}`);
  } finally {
    await handle.close();
  }
  const parsed = parseIgnoreFile(text);
  if ('line' in parsed) throw ignoreFileError(`${path}:${parsed.line}`, parsed.message);
  return parsed.patterns;
}

function ignoreFileError(path: string, message: string): ConfigError {
  return new ConfigError(`Ignore file ${path} ${message}`, [{ path, message }]);
}

interface WalkState {
  readonly files: FoundFile[];
  readonly skipped: SkippedFile[];
  /** Real paths of folders entered, to stop symlink loops. */
  readonly folders: Set<string>;
  /** Real path of each file found → the path it was found under. */
  readonly seen: Map<string, string>;
  readonly ignored: (relativePath: string) => boolean;
  readonly signal: AbortSignal | undefined;
  /** Follow symlinks that lead outside the walked folder (or the root). */
  readonly symlinksOutside: boolean;
}

/** What a path is when it is neither a file, a folder nor a symlink; undefined otherwise. */
export function specialKind(info: Stats | Dirent): string | undefined {
  if (info.isFIFO()) return 'a FIFO (named pipe)';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  return undefined;
}

function skipSpecial(state: WalkState, path: string, kind: string): void {
  state.skipped.push({ path, code: 'special', reason: `${kind}, not a regular file` });
}

function toPosix(path: string): string {
  return sep === '/' ? path : path.split(sep).join('/');
}

function within(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !rel.startsWith(`..${sep}`) && rel !== '..');
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

function addFile(state: WalkState, path: string, real: string): void {
  const first = state.seen.get(real);
  if (first !== undefined) {
    if (first !== path) {
      state.skipped.push({ path, code: 'duplicate', reason: `same file as ${first}` });
    }
    return;
  }
  state.seen.set(real, path);
  state.files.push({ path });
}

/**
 * Walks a folder: entries sorted by name, ignored names left out silently, symlinks followed
 * only when they stay inside `rootReal` and do not lead back into a folder already walked.
 */
async function walkFolder(
  state: WalkState,
  folder: string,
  folderReal: string,
  root: string,
  rootReal: string,
  accept: (path: string) => boolean,
): Promise<void> {
  state.signal?.throwIfAborted();
  if (state.folders.has(folderReal)) return;
  state.folders.add(folderReal);
  let entries: Dirent[];
  try {
    entries = await readdir(folder, { withFileTypes: true });
  } catch (error) {
    state.skipped.push({
      path: folder,
      code: 'unreadable',
      reason: `cannot read folder: ${(error as Error).message}`,
    });
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const path = join(folder, entry.name);
    if (state.ignored(toPosix(relative(root, path)))) continue;
    let real = path;
    let isDirectory = entry.isDirectory();
    let isFile = entry.isFile();
    if (entry.isSymbolicLink()) {
      try {
        real = await realpath(path);
      } catch {
        state.skipped.push({ path, code: 'symlink', reason: 'broken symlink' });
        continue;
      }
      if (!state.symlinksOutside && !within(rootReal, real)) {
        state.skipped.push({
          path,
          code: 'symlink',
          reason: `symlink to ${real}, outside ${root}`,
        });
        continue;
      }
      const info = await stat(real);
      isDirectory = info.isDirectory();
      isFile = info.isFile();
      const kind = specialKind(info);
      if (kind !== undefined) {
        skipSpecial(state, path, `symlink to ${kind}`);
        continue;
      }
      if (isDirectory && state.folders.has(real)) {
        state.skipped.push({ path, code: 'symlink', reason: `symlink loop back to ${real}` });
        continue;
      }
    } else if (isDirectory || isFile) {
      real = join(folderReal, entry.name);
    } else {
      const kind = specialKind(entry);
      if (kind !== undefined) skipSpecial(state, path, kind);
      continue;
    }
    if (isDirectory) await walkFolder(state, path, real, root, rootReal, accept);
    else if (isFile && accept(path)) addFile(state, path, real);
  }
}

/**
 * Files under the given files, folders and glob patterns, in order, each once. A file named
 * explicitly is always taken; inside folders, ignored names are left out silently.
 */
export async function walkPaths(
  paths: readonly string[],
  options: {
    ignore?: readonly string[] | undefined;
    signal?: AbortSignal | undefined;
    /** A symlink given as an argument must lead inside this folder (default: its own folder). */
    root?: string | undefined;
    /** Follow symlinks wherever they lead (default: only inside the folder or root). */
    symlinksOutside?: boolean | undefined;
    /**
     * The name of an ignore file (`.cortexisignore`) read at the top of each folder walked:
     * its patterns are left out of that folder, like `ignore`'s.
     */
    ignoreFile?: string | undefined;
  } = {},
): Promise<{ files: FoundFile[]; skipped: SkippedFile[] }> {
  const patterns = [...DEFAULT_IGNORE, ...(options.ignore ?? [])];
  const state: WalkState = {
    files: [],
    skipped: [],
    folders: new Set(),
    seen: new Map(),
    ignored: ignoreMatcher(patterns),
    signal: options.signal,
    symlinksOutside: options.symlinksOutside === true,
  };
  for (const argument of paths) {
    // A name with glob characters that exists (`notes [old].md`) is taken as it is.
    const glob = isGlob(argument) && !(await exists(argument));
    const target = resolve(glob ? globBase(argument) : argument);
    const pattern = glob ? globToRegExp(toPosix(resolve(argument))) : undefined;
    const before = state.files.length;
    let info;
    try {
      info = await stat(target);
    } catch {
      state.skipped.push({ path: argument, code: 'not-found', reason: 'no such file or folder' });
      continue;
    }
    const targetReal = await realpath(target);
    const link = await lstat(target).then(
      (own) => own.isSymbolicLink(),
      () => false,
    );
    if (link && !state.symlinksOutside) {
      // What a shell's `docs/*.md` passes may be a symlink: it must stay inside the root.
      const root = resolve(options.root ?? dirname(target));
      const rootReal = await realpath(root).catch(() => root);
      if (!within(rootReal, targetReal)) {
        state.skipped.push({
          path: argument,
          code: 'symlink',
          reason: `symlink to ${targetReal}, outside ${root}`,
        });
        continue;
      }
    }
    const kind = specialKind(info);
    if (kind !== undefined) {
      skipSpecial(state, argument, link ? `symlink to ${kind}` : kind);
      continue;
    }
    if (info.isDirectory()) {
      // A new walk root: folders seen under another argument may be walked again from here.
      state.folders.clear();
      const accept = pattern ? (path: string) => pattern.test(toPosix(path)) : () => true;
      const own = options.ignoreFile ? await readIgnoreFile(target, options.ignoreFile) : [];
      const walk =
        own.length === 0 ? state : { ...state, ignored: ignoreMatcher([...patterns, ...own]) };
      await walkFolder(walk, target, targetReal, target, targetReal, accept);
    } else if (!pattern || pattern.test(toPosix(target))) {
      addFile(state, target, targetReal);
    }
    if (pattern && state.files.length === before) {
      state.skipped.push({
        path: argument,
        code: 'not-found',
        reason: 'no file matches the pattern',
      });
    }
  }
  return { files: state.files, skipped: state.skipped };
}
