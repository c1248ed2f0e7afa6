import type { MessageRecord, SessionRecord } from '../ports/chat-records.js';
import type { LearningSink } from '../ports/learning-sink.js';
import type { SessionStore } from '../ports/session-store.js';
import { isoNow } from '../util/ids.js';

/** A message as session quality sees it. */
export interface QualityMessage {
  /** Who said it. */
  readonly role: MessageRecord['role'];
  /** Overall confidence of an assistant message. */
  readonly confidence?: number | null | undefined;
  /** Feedback rating, once given. */
  readonly rating?: 'good' | 'neutral' | 'bad' | null | undefined;
  /** Number of sources of an assistant message. */
  readonly sourceCount?: number | undefined;
}

/**
 * Session quality in [0, 1] (seed 000 `assessSessionQuality`): starts at 0.5; + 0.2 × share of
 * high-confidence (> 0.7) answers; ± 0.2 × share of good / bad feedback; + up to 0.2 for the
 * mean number of sources per answer (5 or more earns all of it). Unlike the seed, a session
 * without answers does not divide by zero: its source term is 0.
 */
export function assessSessionQuality(messages: readonly QualityMessage[]): number {
  const total = Math.max(messages.length, 1);
  const answers = messages.filter((message) => message.role === 'assistant');
  let quality = 0.5;
  quality += (answers.filter((message) => (message.confidence ?? 0) > 0.7).length / total) * 0.2;
  quality += (messages.filter((message) => message.rating === 'good').length / total) * 0.2;
  quality -= (messages.filter((message) => message.rating === 'bad').length / total) * 0.2;
  if (answers.length > 0) {
    const sources = answers.reduce((sum, message) => sum + (message.sourceCount ?? 0), 0);
    quality += Math.min((sources / answers.length / 5) * 0.2, 0.2);
  }
  return Math.max(0, Math.min(1, quality));
}

/** Reward of a turn before any feedback: its confidence (0 for a guard answer), in [-1, 1]. */
export function turnReward(confidence: number, guard: boolean): number {
  return guard ? 0 : Math.max(-1, Math.min(1, confidence));
}

/** A learning step was recorded (the `learning` event). */
export interface LearningEvent {
  /** Turn id. */
  readonly turnId: string;
  /** Trajectory id. */
  readonly trajectoryId: string;
  /** Step number. */
  readonly stepNumber: number;
  /** Reward recorded. */
  readonly reward: number;
}

/** Where `recordLearningStep` reports a recorded step (the engine's event bus fits). */
export interface LearningEmitter {
  /** A step was recorded. */
  emit(name: 'learning', event: LearningEvent): unknown;
}

/** What the learn stage reads of the engine (the engine's runtime fits). */
export interface LearnRuntime {
  /** Where trajectories, steps and feedback are kept. */
  readonly learningSink: LearningSink;
  /** The sessions and their messages. */
  readonly sessionStore: SessionStore;
  /** Receives the `learning` event. */
  readonly events: LearningEmitter;
  /** The engine settings: only `learning.idleTimeoutMs` is read. */
  readonly config: {
    readonly learning: {
      /** A session's trajectory idle longer than this is ended as abandoned (ms). */
      readonly idleTimeoutMs: number;
    };
  };
}

/** Session quality (seed 000 `assessSessionQuality`) from the stored messages and feedback. */
export async function sessionQuality(
  runtime: Pick<LearnRuntime, 'sessionStore' | 'learningSink'>,
  sessionId: string,
): Promise<number> {
  const messages = await runtime.sessionStore.listMessages(sessionId);
  const ratings = new Map(
    (await runtime.learningSink.listFeedback({ sessionId })).map((feedback) => [
      feedback.messageId,
      feedback.rating,
    ]),
  );
  return assessSessionQuality(
    messages.map((message) => ({
      role: message.role,
      confidence: message.confidence?.overall ?? null,
      rating: ratings.get(message.id) ?? null,
      sourceCount: message.sources.length,
    })),
  );
}

/**
 * Begins the session's trajectory at its first turn (with the route that turn took:
 * `retrieval`, `relational`, `synthesis`, `hybrid`, or `chat` without retrieval), then records
 * this turn as a step.
 */
export async function recordLearningStep(
  runtime: LearnRuntime,
  session: SessionRecord,
  query: string,
  message: MessageRecord,
  route = 'retrieval',
): Promise<void> {
  const { learningSink, sessionStore, events } = runtime;
  let trajectoryId = session.trajectoryId;
  if (trajectoryId === null) {
    const current = await sessionStore.getSession(session.id);
    trajectoryId = current?.trajectoryId ?? null;
  }
  // A trajectory idle for longer than the timeout is over: it ends as abandoned and this
  // turn begins a new one. `session` was loaded before this turn wrote anything, so its
  // `updatedAt` is the session's last activity (no per-turn read of the steps).
  if (trajectoryId !== null) {
    const idleMs = Date.now() - Date.parse(session.updatedAt);
    if (idleMs > runtime.config.learning.idleTimeoutMs) {
      await learningSink.endTrajectory(trajectoryId, {
        status: 'abandoned',
        quality: await sessionQuality(runtime, session.id),
        endedAt: isoNow(),
      });
      trajectoryId = null;
    }
  }
  if (trajectoryId === null) {
    trajectoryId = await learningSink.beginTrajectory({
      sessionId: session.id,
      userId: session.userId,
      initialQuery: query,
      route,
      startedAt: isoNow(),
    });
    await sessionStore.updateSession(session.id, { trajectoryId, updatedAt: isoNow() });
  }
  const step = await learningSink.recordStep({
    trajectoryId,
    messageId: message.id,
    query,
    chunkIds: message.sources.map((source) => source.chunkId),
    reward: turnReward(message.confidence?.overall ?? 0, message.guard),
    createdAt: isoNow(),
  });
  events.emit('learning', {
    turnId: message.id,
    trajectoryId,
    stepNumber: step.stepNumber,
    reward: step.reward,
  });
}
