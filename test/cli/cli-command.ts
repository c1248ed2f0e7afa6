import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { inject } from 'vitest';

const root = join(import.meta.dirname, '../..');

/**
 * The arguments that start the CLI as `cortexis <args>` with `process.execPath`: the bundle
 * `test/setup/cli-bundle.ts` built from the sources for this run.
 */
export function cliArgs(args: readonly string[]): string[] {
  return [inject('cliScript'), ...args];
}

/**
 * Starts the CLI as `cortexis <args>` from the repository's root, offline: no provider variable
 * reaches it, whatever the developer's shell exports; `env` adds to it (`CORTEXIS_CACHE_DIR`).
 */
export function spawnCli(
  args: readonly string[],
  env: Record<string, string> = {},
): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, cliArgs(args), {
    cwd: root,
    env: {
      ...process.env,
      OPENAI_API_KEY: '',
      OPENAI_BASE_URL: '',
      ANTHROPIC_API_KEY: '',
      OLLAMA_HOST: '',
      ...env,
    },
  });
}
