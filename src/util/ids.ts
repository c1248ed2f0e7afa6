/** ULIDs: 48-bit millisecond time + 80 random bits, Crockford base32, sortable by time. */

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

let lastTime = -1;
let lastRandom: number[] = [];

function randomDigits(): number[] {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => byte % 32);
}

/** A new ULID; ids made in the same millisecond still sort in creation order. */
export function ulid(now: number = Date.now()): string {
  let random: number[];
  if (now === lastTime) {
    random = lastRandom.slice();
    // Increment the 80-bit random part so ids within one millisecond stay ordered.
    for (let index = random.length - 1; index >= 0; index--) {
      const digit = random[index]! + 1;
      if (digit < 32) {
        random[index] = digit;
        break;
      }
      random[index] = 0;
    }
  } else {
    random = randomDigits();
    lastTime = now;
  }
  lastRandom = random;
  let time = '';
  let rest = now;
  for (let index = 0; index < 10; index++) {
    time = ALPHABET[rest % 32]! + time;
    rest = Math.floor(rest / 32);
  }
  return time + random.map((digit) => ALPHABET[digit]).join('');
}

/** Current time as ISO-8601 UTC. */
export function isoNow(now: number = Date.now()): string {
  return new Date(now).toISOString();
}
