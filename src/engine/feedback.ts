/**
 * An engine's feedback: recording a user's rating of an answer (its reward replaces the turn's
 * confidence in the learning step), the learned boost it feeds (also from feedback stored by
 * other instances, pulled in the background), and an optional correction ingested as a document.
 */
import type { ResolvedConfig } from '../config.js';
import { NotFoundError, ValidationError } from '../errors/index.js';
import type { EngineEmitter } from '../events.js';
import { calculateFeedbackReward } from '../learning/feedback.js';
import { createFeedbackSync } from '../learning/feedback-sync.js';
import { feedbackSignals } from '../learning/learned-boost.js';
import {
  CORRECTION_AUTHOR_KEY,
  CORRECTION_PUBLISHED_KEY,
} from '../pipeline/retrieve/visibility.js';
import type { FeedbackRecord, MessageRecord } from '../ports/chat-records.js';
import { documentNodeId } from '../query/graph-model.js';
import type { FeedbackParams, IngestDocument, IngestResult } from '../types.js';
import { isoNow, ulid } from '../util/ids.js';
import { feedbackSchema, parseInput } from '../validate.js';
import { correctionDocumentId } from './erasure.js';
import type { EngineParts } from './runtime.js';

/** Feeds one feedback record into the learned boost; returns how many chunks it touched. */
export function createFeedbackLearner(parts: EngineParts) {
  const { learnedBoost, base, embedder } = parts;
  return async (record: FeedbackRecord, message?: MessageRecord | null): Promise<number> => {
    if (!learnedBoost) return 0;
    const rated = message ?? (await base.sessionStore.getMessage(record.messageId));
    const question = rated?.replyTo ? await base.sessionStore.getMessage(rated.replyTo) : null;
    if (!rated || !question) return 0;
    const [vector] = await embedder.embed([question.content]);
    if (!vector) return 0;
    let touched = 0;
    for (const { chunkId, signal } of feedbackSignals(
      rated.sources,
      record.sourceHelpfulness,
      record.rating,
    )) {
      if (signal === 0) continue;
      learnedBoost.record({
        userId: record.userId,
        queryVector: vector,
        chunkId,
        signal,
        at: Date.parse(record.createdAt),
      });
      touched++;
    }
    return touched;
  };
}

/** Feeds a feedback record into the learned boost (`createFeedbackLearner`). */
export type FeedbackLearner = ReturnType<typeof createFeedbackLearner>;

/** The pull of stored feedback into the learned boost; undefined when there is nothing to pull. */
export function createEngineFeedbackSync(
  resolved: ResolvedConfig,
  events: EngineEmitter,
  parts: EngineParts,
  learnFromFeedback: FeedbackLearner,
) {
  const { learnedBoost, base } = parts;
  // Stored feedback (a SQLite or Postgres sink that outlives the process, or that other
  // instances write to) builds the boost: everything at start, then what was recorded since,
  // pulled in the background by the first turn or search after each `syncIntervalMs`.
  return learnedBoost && resolved.learning.replayFeedback
    ? createFeedbackSync({
        sink: base.learningSink,
        learn: (record) => learnFromFeedback(record),
        intervalMs: resolved.learning.syncIntervalMs,
        onError: (error) => events.emit('error', { where: 'learn', error }),
      })
    : undefined;
}

/** What `engine.feedback` uses of its engine. */
export interface FeedbackOptions {
  readonly resolved: ResolvedConfig;
  readonly events: EngineEmitter;
  readonly parts: EngineParts;
  readonly learnFromFeedback: FeedbackLearner;
  readonly feedbackSync: ReturnType<typeof createEngineFeedbackSync>;
  /** `engine.ingest` (traced when the engine is), for corrections. */
  readonly ingest: (docs: readonly IngestDocument[]) => Promise<IngestResult>;
}

/** `engine.feedback`: records a user's feedback on an answer; returns the stored feedback. */
export function createFeedbackOperation(options: FeedbackOptions) {
  const { resolved, events, parts, learnFromFeedback, feedbackSync, ingest } = options;
  const { base, graphStore } = parts;
  return async function feedback(params: FeedbackParams): Promise<FeedbackRecord> {
    const input = parseInput(feedbackSchema(), params, 'feedback');
    const message = await base.sessionStore.getMessage(input.messageId);
    // Another user's message is as unknown as a missing one.
    if (!message || message.userId !== input.userId || message.role !== 'assistant') {
      throw new NotFoundError('message', input.messageId);
    }
    const labels = new Set(message.sources.map((source) => source.id));
    for (const label of Object.keys(input.sourceHelpfulness ?? {})) {
      if (!labels.has(label)) {
        throw new ValidationError(
          `Invalid feedback: sourceHelpfulness.${label}: the message has no source '${label}'`,
          [
            {
              path: `sourceHelpfulness.${label}`,
              message: `the message has no source '${label}'`,
            },
          ],
        );
      }
    }
    const record: FeedbackRecord = {
      id: ulid(),
      messageId: message.id,
      sessionId: message.sessionId,
      userId: input.userId,
      rating: input.rating,
      sourceHelpfulness: input.sourceHelpfulness ?? null,
      comment: input.comment ?? null,
      markedAsFactual: input.markedAsFactual ?? null,
      correctedContent: input.correctedContent ?? null,
      reward: calculateFeedbackReward(input),
      createdAt: isoNow(),
    };
    feedbackSync?.noteLearned(record);
    await base.learningSink.recordFeedback(record);

    // The rated sources rank higher (or lower) for questions like this one.
    const boostedChunks = await learnFromFeedback(record, message);
    events.emit('feedback', {
      messageId: message.id,
      sessionId: message.sessionId,
      rating: record.rating,
      reward: record.reward,
      boostedChunks,
    });

    if (input.ingestCorrection && record.correctedContent) {
      const documentId = correctionDocumentId(message.id);
      await ingest([
        {
          id: documentId,
          title: 'Correction',
          text: record.correctedContent,
          // The author's own unless the host publishes it (see `retrieve/visibility.ts`).
          metadata: {
            correctionOf: message.id,
            [CORRECTION_AUTHOR_KEY]: input.userId,
            ...(input.publishCorrection ? { [CORRECTION_PUBLISHED_KEY]: true } : {}),
          },
        },
      ]);
      // In the graph the correction is DERIVED_FROM the message it corrects.
      if (graphStore) {
        await graphStore.upsertNodes(resolved.namespace, [
          {
            id: `message:${message.id}`,
            type: 'message',
            properties: { sessionId: message.sessionId },
          },
        ]);
        await graphStore.upsertEdges(resolved.namespace, [
          {
            from: documentNodeId(documentId),
            to: `message:${message.id}`,
            type: 'DERIVED_FROM',
            weight: 1,
          },
        ]);
      }
    }
    return record;
  };
}
