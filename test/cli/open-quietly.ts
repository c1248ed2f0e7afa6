/** Opens the CLI's index of `paths` in process, with stdout dropped and stderr kept. */
import type { CliIO } from '../../src/cli/io.js';
import { openIndex, type OpenOptions } from '../../src/cli/open-index.js';

export async function openQuietly(
  cache: string,
  options: OpenOptions,
): Promise<{ opened: Awaited<ReturnType<typeof openIndex>>; stderr: string }> {
  let stderr = '';
  const io: CliIO = {
    stdout: { write: () => true } as unknown as NodeJS.WritableStream,
    stderr: {
      write: (text: string) => ((stderr += text), true),
    } as unknown as NodeJS.WritableStream,
    stdin: process.stdin,
    env: { CORTEXIS_CACHE_DIR: cache },
  };
  const opened = await openIndex(io, options);
  return { opened, stderr };
}
