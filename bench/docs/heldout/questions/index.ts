/**
 * The held-out question sets of `bench:docs --set heldout`: whoever tunes the offline answer
 * must not read these files or the corpora next to them; the benchmark reports them apart.
 */
import type { QuestionSet } from '../../questions/types.js';
import { bodyParserReadme } from './body-parser-readme.js';
import { micromatchReadme } from './micromatch-readme.js';
import { playwrightCli } from './playwright-cli.js';

export const HELDOUT_SETS: readonly QuestionSet[] = [
  micromatchReadme,
  playwrightCli,
  bodyParserReadme,
];
