/**
 * The datasets the corpus is built from, in ingest order. sc-rhetorical-roles-50 is left
 * out on purpose: its 50 texts have no case number, parties or date (only a
 * `YEAR_L_N` file stem), so a record would be a case id with nothing to find it by, and
 * the texts cannot be tied to a real case without guessing.
 */
import type { CorpusSource } from './source.ts';
import { ecourtsHcSource } from './ecourts-hc.ts';
import { scIk50Source } from './sc-ik50.ts';
import { scInAbsSource } from './sc-inabs.ts';
import { scMetadataSource } from './sc-metadata.ts';

export const CORPUS_SOURCES: readonly CorpusSource[] = [scMetadataSource, scIk50Source, scInAbsSource, ecourtsHcSource];

export type { CorpusSource } from './source.ts';
