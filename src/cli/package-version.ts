/**
 * The package's version, read from the package.json next to the sources or the build: printed
 * by `--version` and part of the CLI index's fingerprint, so that a new release rebuilds an
 * index an older one saved.
 */
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package version, from the package.json next to the sources or the build. */
export async function packageVersion(): Promise<string> {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 4; depth += 1) {
    try {
      const parsed: unknown = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8'));
      if (
        typeof parsed === 'object' &&
        parsed !== null &&
        (parsed as { name?: unknown }).name === 'cortexis' &&
        typeof (parsed as { version?: unknown }).version === 'string'
      ) {
        return (parsed as { version: string }).version;
      }
    } catch {
      // not here: look one folder up
    }
    dir = dirname(dir);
  }
  return 'unknown';
}
