/** A metadata value: what filters can compare. */
export type MetadataValue = string | number | boolean | null;

/** Flat metadata attached to documents, chunks, vectors and graph nodes. */
export type Metadata = Readonly<Record<string, MetadataValue>>;

/** A comparison on one metadata field. A bare value means equality. */
export type FieldCondition =
  | MetadataValue
  | {
      /** Equal to the value. */
      readonly $eq?: MetadataValue;
      /** Not equal to the value (a missing field counts as not equal). */
      readonly $ne?: MetadataValue;
      /** One of the values. */
      readonly $in?: readonly MetadataValue[];
      /** None of the values. */
      readonly $nin?: readonly MetadataValue[];
      /** Greater than (numbers and strings). */
      readonly $gt?: number | string;
      /** Greater than or equal. */
      readonly $gte?: number | string;
      /** Less than. */
      readonly $lt?: number | string;
      /** Less than or equal. */
      readonly $lte?: number | string;
    };

/** Conditions that must all hold, one per metadata field. */
export type MetadataFilter = Readonly<Record<string, FieldCondition>>;

/** Options every I/O method of a port accepts. */
export interface CallOptions {
  /** Cancels the call; adapters then reject with `AbortError` (a `CortexisError` with code `aborted`). */
  readonly signal?: AbortSignal | undefined;
}

/** Which records a delete removes: by id, or every record whose metadata matches. */
export type DeleteTarget =
  { readonly ids: readonly string[] } | { readonly filter: MetadataFilter };
