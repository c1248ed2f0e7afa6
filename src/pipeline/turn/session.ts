/**
 * A turn's conversation: loading it for its owner (or creating it), the session's own model
 * and chat profile, and the quit words that end it.
 */
import type { ResolvedConfig } from '../../config.js';
import { ConfigError, ConflictError, NotFoundError, ValidationError } from '../../errors/index.js';
import type { SessionRecord } from '../../ports/chat-records.js';
import type { SessionStore } from '../../ports/session-store.js';
import type { EngineRuntime } from '../../runtime.js';
import { isoNow, ulid } from '../../util/ids.js';
import { inSpan, type TraceScope } from '../../util/tracing.js';
import { resolveChatProfile } from '../compact.js';
import type { TurnRequest } from './state.js';

/** The message a quit word gets. */
export const QUIT_ANSWER = 'Session ended. Goodbye!';

/** Whether a message is one of the quit words. */
export function isQuitMessage(message: string, quitWords: readonly string[]): boolean {
  const text = message.trim().toLowerCase();
  return quitWords.some((word) => word.trim().toLowerCase() === text);
}

/** Loads a session for its owner; anyone else gets `NotFoundError`, never the data. */
export async function loadOwnedSession(
  store: SessionStore,
  sessionId: string,
  userId: string | undefined,
  signal?: AbortSignal,
): Promise<SessionRecord> {
  const session = await store.getSession(sessionId, { signal });
  if (!session || (userId !== undefined && session.userId !== userId)) {
    throw new NotFoundError('session', sessionId);
  }
  return session;
}

/**
 * The session of a turn: a new one for a chat naming none, the owner's active one, or null for
 * a stateless query (which, naming a conversation, must still be the user's own).
 */
export async function openSession(
  runtime: EngineRuntime,
  request: TurnRequest,
  scope: TraceScope | undefined,
): Promise<SessionRecord | null> {
  const { sessionStore } = runtime;
  const { signal } = request;
  // a stateless query naming none has nothing to load
  const needsSession = request.mode === 'chat' || request.sessionId !== undefined;
  return !needsSession
    ? null
    : await inSpan(scope, 'cortexis.session', async () => {
        if (request.mode === 'chat') {
          if (request.sessionId === undefined) {
            return createSessionRecord(
              runtime,
              request.userId ?? 'anonymous',
              // A new conversation keeps the profile it was started with (seed 001).
              request.chatProfile === undefined ? {} : { chatProfile: request.chatProfile },
            );
          }
          const owned = await loadOwnedSession(
            sessionStore,
            request.sessionId,
            request.userId,
            signal,
          );
          if (owned.status !== 'active') {
            throw new ConflictError(`session '${owned.id}' has ended; start a new session`);
          }
          return owned;
        }
        // A stateless query naming a conversation still needs it to be the user's own.
        if (request.sessionId !== undefined) {
          await loadOwnedSession(sessionStore, request.sessionId, request.userId, signal);
        }
        return null;
      });
}

/** The runtime of a session that chose a model of the engine's registry. */
export function withSessionModel(runtime: EngineRuntime, name: string): EngineRuntime {
  const llm = runtime.models.get(name);
  if (llm === undefined) {
    // Checked when the session was created; a registry changed since then is a config error.
    throw new ConfigError(
      `Session model '${name}' is not in the engine's models (known: ${[...runtime.models.keys()].join(', ') || 'none'})`,
      [{ path: 'models', message: `names no model '${name}'` }],
    );
  }
  return { ...runtime, llm };
}

/** A request's `chatProfile` must name a profile: a `ValidationError` before anything is stored. */
export function checkChatProfile(config: ResolvedConfig, name: string): void {
  try {
    resolveChatProfile(config.compaction, name);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new ValidationError(`Invalid chat request: chatProfile: ${message}`, [
      { path: 'chatProfile', message },
    ]);
  }
}

/** Creates and stores a new conversation of `userId`. */
async function createSessionRecord(
  runtime: EngineRuntime,
  userId: string,
  settings: SessionRecord['settings'] = {},
): Promise<SessionRecord> {
  const now = isoNow();
  const session: SessionRecord = {
    id: ulid(),
    userId,
    title: null,
    status: 'active',
    createdAt: now,
    updatedAt: now,
    endedAt: null,
    trajectoryId: null,
    settings,
    stats: { messageCount: 0, totalSearchMs: 0, totalGenerationMs: 0 },
    metadata: {},
  };
  await runtime.sessionStore.createSession(session);
  runtime.events.emit('session.created', { session });
  return session;
}
