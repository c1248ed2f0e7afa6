/**
 * CPU time of the main thread alone (worker threads excluded), for the ingest benchmarks: the
 * thread that merges every prepared group into the indexes, whose time bounds the wall time
 * once workers do the rest.
 */
import { readFileSync } from 'node:fs';

/** The main thread's CPU time in ms (Linux: `/proc/self/task/<pid>/stat`, 10 ms ticks), or NaN. */
export function mainThreadCpuMs(): number {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}
