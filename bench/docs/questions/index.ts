/** The tuning question sets of `bench:docs` (split tune/test by position). */
import { cacReadme } from './cac-readme.js';
import { corsReadme } from './cors-readme.js';
import { enquirerReadme } from './enquirer-readme.js';
import { fastGlobReadme } from './fast-glob-readme.js';
import { htmlToTextReadme } from './html-to-text-readme.js';
import { nodeFetchReadme } from './node-fetch-readme.js';
import { openaiReadme } from './openai-readme.js';
import { readmes } from './readmes.js';
import { sadeReadme } from './sade-readme.js';
import { saferBufferDocs } from './safer-buffer-docs.js';
import { semverReadme } from './semver-readme.js';
import { sendReadme } from './send-readme.js';
import type { QuestionSet } from './types.js';
import { undiciApi } from './undici-api.js';

export const QUESTION_SETS: readonly QuestionSet[] = [
  openaiReadme,
  undiciApi,
  readmes,
  fastGlobReadme,
  enquirerReadme,
  saferBufferDocs,
  semverReadme,
  cacReadme,
  htmlToTextReadme,
  corsReadme,
  sadeReadme,
  nodeFetchReadme,
  sendReadme,
];
