/**
 * `text` without the run of `char` at its end: a loop, where /x+$/ would try the run again from
 * each of its characters (quadratic on a long run that is not at the end).
 */
export function trimTrailing(text: string, char: string): string {
  let end = text.length;
  while (end > 0 && text[end - 1] === char) end--;
  return end === text.length ? text : text.slice(0, end);
}
