import { inject } from 'vitest';

/**
 * The arguments that start the CLI as `cortexis <args>` with `process.execPath`: the bundle
 * `test/setup/cli-bundle.ts` built from the sources for this run.
 */
export function cliArgs(args: readonly string[]): string[] {
  return [inject('cliScript'), ...args];
}
