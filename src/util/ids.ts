/** ULIDs: 48-bit millisecond time + 80 random bits, Crockford base32, sortable by time. */

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** Random digits of one id: 16 base32 digits, 80 bits. */
const DIGITS = 16;
/**
 * Random bytes are drawn for 256 ids at once: one call to the system's generator (a native job
 * each) instead of one per id; each id still takes 16 fresh bytes.
 */
const pool = new Uint8Array(DIGITS * 256);
let poolAt = pool.length;

let lastTime = -1;
/** Time part of the last id (the 10 digits of `lastTime`). */
let lastTimeDigits = '';
const lastRandom = new Uint8Array(DIGITS);

function drawRandomDigits(): void {
  if (poolAt === pool.length) {
    globalThis.crypto.getRandomValues(pool);
    poolAt = 0;
  }
  for (let index = 0; index < DIGITS; index++) lastRandom[index] = pool[poolAt + index]! % 32;
  poolAt += DIGITS;
}

/** A new ULID; ids made in the same millisecond still sort in creation order. */
export function ulid(now: number = Date.now()): string {
  if (now === lastTime) {
    // Increment the 80-bit random part so ids within one millisecond stay ordered.
    for (let index = DIGITS - 1; index >= 0; index--) {
      const digit = lastRandom[index]! + 1;
      if (digit < 32) {
        lastRandom[index] = digit;
        break;
      }
      lastRandom[index] = 0;
    }
  } else {
    drawRandomDigits();
    lastTime = now;
    let time = '';
    let rest = now;
    for (let index = 0; index < 10; index++) {
      time = ALPHABET[rest % 32]! + time;
      rest = Math.floor(rest / 32);
    }
    lastTimeDigits = time;
  }
  let id = lastTimeDigits;
  for (let index = 0; index < DIGITS; index++) id += ALPHABET[lastRandom[index]!]!;
  return id;
}

let lastIsoTime = Number.NaN;
let lastIso = '';

/** Current time as ISO-8601 UTC. */
export function isoNow(now: number = Date.now()): string {
  // A turn stamps several records within one millisecond: the text is formatted once.
  if (now !== lastIsoTime) {
    lastIso = new Date(now).toISOString();
    lastIsoTime = now;
  }
  return lastIso;
}
