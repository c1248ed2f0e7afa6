/**
 * "Did you mean": the known name closest to a mistyped one (a flag, a command), by edit
 * distance with transpositions, ignoring dashes (`--topk` → `--top-k`).
 */

/** Optimal string alignment distance (Levenshtein with adjacent transpositions). */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const columns = b.length + 1;
  const table: number[][] = Array.from({ length: rows }, (_, row) =>
    Array.from({ length: columns }, (_, column) => (row === 0 ? column : column === 0 ? row : 0)),
  );
  for (let row = 1; row < rows; row++) {
    for (let column = 1; column < columns; column++) {
      const cost = a[row - 1] === b[column - 1] ? 0 : 1;
      let best = Math.min(
        table[row - 1]![column]! + 1,
        table[row]![column - 1]! + 1,
        table[row - 1]![column - 1]! + cost,
      );
      if (row > 1 && column > 1 && a[row - 1] === b[column - 2] && a[row - 2] === b[column - 1]) {
        best = Math.min(best, table[row - 2]![column - 2]! + 1);
      }
      table[row]![column] = best;
    }
  }
  return table[a.length]![b.length]!;
}

/** Longest input compared: anything longer is no typo of a short flag name. */
const MAX_LENGTH = 64;

/**
 * The candidate closest to `input` (case and dashes ignored), when it is close enough to be a
 * typo: at most 1 edit for names of up to 4 characters, 2 beyond. Undefined otherwise.
 */
export function nearest(input: string, candidates: readonly string[]): string | undefined {
  if (input.length === 0 || input.length > MAX_LENGTH) return undefined;
  const normalize = (name: string) => name.toLowerCase().replace(/[-_]/g, '');
  const typed = normalize(input);
  let best: { name: string; distance: number } | undefined;
  for (const name of candidates) {
    const distance = editDistance(typed, normalize(name));
    if (best === undefined || distance < best.distance) best = { name, distance };
  }
  if (best === undefined) return undefined;
  const allowed = Math.min(typed.length, best.name.length) <= 4 ? 1 : 2;
  return best.distance <= allowed ? best.name : undefined;
}
