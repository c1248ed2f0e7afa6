import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { specialKind } from './walk.js';

/** What reading a file gave: its bytes and modification time, or why it was not read. */
export type ReadOutcome =
  | { readonly bytes: Uint8Array; readonly modifiedAt: Date }
  | { readonly skip: 'special' | 'too-large' | 'unreadable'; readonly reason: string };

/** Bytes read per call when a file is larger than it said (or says nothing, as `/proc` does). */
const READ_STEP = 1024 * 1024;

/**
 * Reads a regular file of at most `maxBytes`. The file is opened without blocking (a FIFO opens
 * at once) and checked on the open handle, so what is read is what was checked: a FIFO, socket
 * or device is refused, and a file that holds more than its stated size (`/proc`, a file still
 * growing) is read no further than `maxBytes` + 1.
 */
export async function readRegularFile(path: string, maxBytes: number): Promise<ReadOutcome> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    return { skip: 'unreadable', reason: `cannot read: ${(error as Error).message}` };
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) {
      const kind = specialKind(info) ?? 'not a file';
      return { skip: 'special', reason: `${kind}, not a regular file` };
    }
    const tooLarge = {
      skip: 'too-large',
      reason: `more than maxFileBytes (${maxBytes}) bytes`,
    } as const;
    if (info.size > maxBytes) {
      return { ...tooLarge, reason: `${info.size} bytes, ${tooLarge.reason}` };
    }
    const parts: Uint8Array[] = [];
    let total = 0;
    // The stated size first (one read for an ordinary file), then steps until the end.
    let want = info.size + 1;
    for (;;) {
      const buffer = new Uint8Array(Math.min(want, maxBytes + 1 - total));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, total);
      if (bytesRead === 0) break;
      parts.push(buffer.subarray(0, bytesRead));
      total += bytesRead;
      if (total > maxBytes) return tooLarge;
      want = READ_STEP;
    }
    const bytes = parts.length === 1 ? parts[0]! : concat(parts, total);
    return { bytes, modifiedAt: info.mtime };
  } catch (error) {
    return { skip: 'unreadable', reason: `cannot read: ${(error as Error).message}` };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

function concat(parts: readonly Uint8Array[], total: number): Uint8Array {
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    bytes.set(part, offset);
    offset += part.length;
  }
  return bytes;
}
