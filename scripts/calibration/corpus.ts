/**
 * Reads the real court records the evaluation set is built from, through the same source
 * mappers the ingest uses (so names arrive entity-decoded and trimmed exactly as the
 * screening pipeline will see them), and keeps what labelling needs beside each
 * `CandidateRecord`: the matter (SC diary number, HC CNR) and each party's advocates.
 * Nothing is written anywhere; the data stays in ../shared/data.
 */
import { join, resolve } from 'node:path';
import type { CaseRecord } from '../../src/domain/case/case-record.ts';
import type { CandidateRecord } from '../../src/domain/screening/features.ts';
import { ecourtsHcSource } from '../../src/corpus/sources/ecourts-hc.ts';
import { scMetadataSource } from '../../src/corpus/sources/sc-metadata.ts';
import type { CorpusSource } from '../../src/corpus/sources/source.ts';

export type Side = 'petitioner' | 'respondent';

export interface CorpusParty {
  side: Side;
  index: number;
  name: string;
  advocates: readonly string[];
}

export interface CorpusCase {
  record: CandidateRecord;
  /** One matter can carry several judgments (SC diary numbers repeat); same matter, same parties. */
  matter: string;
  parties: readonly CorpusParty[];
}

export function defaultCorpusDir(): string {
  return process.env.CORPUS_DIR ?? resolve(import.meta.dirname, '../../../shared/data');
}

function toCorpusCase(record: CaseRecord): CorpusCase {
  const parties: CorpusParty[] = [
    ...record.parties.petitioners.map((p, index) => ({ side: 'petitioner' as const, index, name: p.name, advocates: p.advocates })),
    ...record.parties.respondents.map((p, index) => ({ side: 'respondent' as const, index, name: p.name, advocates: p.advocates })),
  ];
  const diary = record.extra.diaryNo;
  const cnr = record.extra.cnr;
  const matter = typeof diary === 'string' && !/-0$/.test(diary) ? `sc:${diary}` : typeof cnr === 'string' ? `hc:${cnr}` : record.caseId;
  return {
    record: {
      caseId: record.caseId,
      caseNumber: record.caseNumber,
      courtName: record.court.name,
      title: record.title,
      petitioners: record.parties.petitioners.map((p) => p.name),
      respondents: record.parties.respondents.map((p) => p.name),
      advocates: [...new Set(parties.flatMap((p) => p.advocates))],
      text: record.text,
      decisionDate: record.decisionDate,
      filingDate: record.filingDate,
    },
    matter,
    parties,
  };
}

const SOURCES: readonly CorpusSource[] = [scMetadataSource, ecourtsHcSource];

/** Every mapped SC-metadata and eCourts-HC record; rejected rows are skipped (the ingest reports them). */
export async function loadCorpus(corpusDir: string = defaultCorpusDir()): Promise<CorpusCase[]> {
  const cases: CorpusCase[] = [];
  for (const source of SOURCES) {
    for await (const result of source.read({ folderPath: join(corpusDir, source.folder), corpusDir })) {
      if ('ok' in result) cases.push(toCorpusCase(result.ok));
    }
  }
  return cases;
}
