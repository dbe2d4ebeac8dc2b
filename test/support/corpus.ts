/** Where the real datasets are: CORPUS_DIR, else ../shared/data beside the checkout. */
import { resolve } from 'node:path';

export const corpusDir = process.env.CORPUS_DIR ?? resolve('../shared/data');
