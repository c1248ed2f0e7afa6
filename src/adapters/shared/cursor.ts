/**
 * The opaque `listSessions` cursor every session store hands out and accepts: the
 * (createdAt, id) of a page's last session, base64url-encoded JSON. One format, so a cursor
 * means the same to every backend.
 */
import type { SessionRecord } from '../../ports/chat-records.js';
import { invalid } from './validate.js';
import { trimTrailing } from '../../util/trim-trailing.js';

/** The opaque `listSessions` cursor: the (createdAt, id) of a page's last session. */
export function encodeCursor(session: Pick<SessionRecord, 'createdAt' | 'id'>): string {
  const bytes = new TextEncoder().encode(JSON.stringify([session.createdAt, session.id]));
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return trimTrailing(btoa(binary).replace(/\+/g, '-').replace(/\//g, '_'), '=');
}

/** The position a cursor names; `ValidationError` for anything `encodeCursor` did not make. */
export function decodeCursor(cursor: string): { createdAt: string; id: string } {
  try {
    const binary = atob(cursor.replace(/-/g, '+').replace(/_/g, '/'));
    const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
    const parsed: unknown = JSON.parse(new TextDecoder().decode(bytes));
    if (
      Array.isArray(parsed) &&
      parsed.length === 2 &&
      typeof parsed[0] === 'string' &&
      typeof parsed[1] === 'string'
    ) {
      return { createdAt: parsed[0], id: parsed[1] };
    }
  } catch {
    // Reported below.
  }
  throw invalid('cursor', 'is not a cursor returned by listSessions');
}
