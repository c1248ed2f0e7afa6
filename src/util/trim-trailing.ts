/**
 * `text` without the run of `char` at its end: a loop, where /x+$/ would try the run again from
 * each of its characters (quadratic on a long run that is not at the end).
 */
export function trimTrailing(text: string, char: string): string {
  return trimEnds(text, '', char);
}

/**
 * `text` without the run of characters of `leading` at its start and of `trailing` at its end
 * (each a set of characters): two loops, linear on any input, where /^[…]+|[…]+$/ is quadratic.
 */
export function trimEnds(text: string, leading: string, trailing: string): string {
  let start = 0;
  while (start < text.length && leading.includes(text[start]!)) start++;
  let end = text.length;
  while (end > start && trailing.includes(text[end - 1]!)) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}
