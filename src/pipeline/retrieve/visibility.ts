/**
 * Who may see a chunk. A correction a user ingests with their feedback (`ingestCorrection`)
 * is that user's: its chunks carry `correctionBy` (the author) and reach only the author's
 * answers, until the host publishes it (`publishCorrection`, stored as `correctionPublished`).
 * Every other chunk is visible to everyone. Applied to what the stores return, before fusion,
 * so the search-results cache stays shared between users.
 */
import type { Metadata } from '../../ports/common.js';

/** Chunk metadata key naming the user whose correction the chunk is. */
export const CORRECTION_AUTHOR_KEY = 'correctionBy';

/** Chunk metadata key set (true) on a correction the host published to every user. */
export const CORRECTION_PUBLISHED_KEY = 'correctionPublished';

/**
 * Whether `viewer` (a user id; undefined for a search without a user) may see a chunk with
 * this metadata: not someone else's unpublished correction.
 */
export function visibleTo(metadata: Metadata, viewer: string | undefined): boolean {
  const author = metadata[CORRECTION_AUTHOR_KEY];
  if (typeof author !== 'string') return true;
  return metadata[CORRECTION_PUBLISHED_KEY] === true || author === viewer;
}

/** The matches `viewer` may see (the same array when all are visible). */
export function visibleMatches<T extends { readonly metadata: Metadata }>(
  matches: readonly T[],
  viewer: string | undefined,
): readonly T[] {
  return matches.every((match) => visibleTo(match.metadata, viewer))
    ? matches
    : matches.filter((match) => visibleTo(match.metadata, viewer));
}
