/**
 * The stored timeline: what a timeline request without refresh answers from. Each real
 * eCourts record goes through ingest's own mapper (src/corpus/sources/ecourts-hc.ts), then
 * through JSON as the case row's jsonb does, and its stored timeline must equal the live
 * timeline of the same record but for source, fetchedAt and the court's name. A case
 * without a CNR (a Supreme Court judgment) has no registry timeline.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { loadCourtNames, mapHcRow, type CourtNames } from '../../src/corpus/sources/ecourts-hc.ts';
import { mapScMetadataRow } from '../../src/corpus/sources/sc-metadata.ts';
import type { CaseRecord, MapResult } from '../../src/domain/case/case-record.ts';
import { readPortalRecord } from '../../src/domain/timeline/read-portal-record.ts';
import { timelineFromPortalRecord } from '../../src/domain/timeline/timeline-from-portal.ts';
import { timelineFromStoredCase } from '../../src/domain/timeline/timeline-from-stored.ts';
import { corpusDir } from '../support/corpus.ts';
import { fixtureRows, type FixtureRecord } from '../support/ecourts-portal-server.ts';

const INGESTED_AT = '2025-02-01T08:00:00.000Z';
const FETCHED_AT = '2025-03-01T10:00:00.000Z';

function stored(result: MapResult): CaseRecord {
  assert.ok('ok' in result, `ingest refused the row: ${JSON.stringify(result)}`);
  // The case row keeps `extra` as jsonb: only what survives JSON reaches the mapper.
  return JSON.parse(JSON.stringify(result.ok)) as CaseRecord;
}

describe('stored timelines of the real eCourts records', () => {
  let courtNames: CourtNames = {};
  before(async () => {
    courtNames = await loadCourtNames(corpusDir);
  });

  const full = [...fixtureRows('case_details.jsonl'), ...fixtureRows('cases.jsonl').filter((r) => r.cnr_number === 'GAHC010225502018')];

  for (const row of full) {
    it(`${String(row.cnr_number)}: equals the live timeline of the same record but for source, time and court name`, () => {
      const record = stored(mapHcRow('t', row, courtNames));
      const fromStore = timelineFromStoredCase(record, { fetchedAt: INGESTED_AT });
      assert.ok(fromStore, 'an eCourts case has a stored timeline');
      const read = readPortalRecord(row);
      assert.ok('record' in read);
      const live = timelineFromPortalRecord(read.record, { fetchedAt: FETCHED_AT });

      assert.equal(fromStore.source, 'stored');
      assert.equal(fromStore.fetchedAt, INGESTED_AT);
      assert.deepEqual(fromStore.court, { code: record.court.code, name: record.court.name });
      assert.match(record.court.name, /High Court/);
      assert.equal(fromStore.caseNumber, record.caseNumber);
      assert.equal(fromStore.hearings.length, (row.hearings as FixtureRecord[]).length);
      assert.equal(fromStore.orders.length, (row.orders as FixtureRecord[]).length);
      assert.deepEqual(
        { ...fromStore, source: 'live', fetchedAt: FETCHED_AT, court: live.court },
        live,
        'stored and live timelines of one record differ',
      );
    });
  }

  it('every row ingest keeps from cases.jsonl has a stored timeline, its CNR as given', () => {
    const rows = fixtureRows('cases.jsonl');
    const timelines = rows.map((row) => timelineFromStoredCase(stored(mapHcRow('t', row, courtNames)), { fetchedAt: INGESTED_AT }));
    assert.equal(timelines.length, 127);
    assert.deepEqual(
      timelines.map((t) => t?.cnr),
      rows.map((r) => r.cnr_number),
    );
  });

  it('a Supreme Court judgment has no registry timeline', () => {
    const [line] = readFileSync(join(corpusDir, 'sc-judgments-metadata/sc_judgments_metadata.jsonl'), 'utf8').split('\n');
    const judgment = stored(mapScMetadataRow('t', JSON.parse(line ?? '{}') as unknown));
    assert.equal(judgment.court.code, 'SC');
    assert.equal(timelineFromStoredCase(judgment, { fetchedAt: INGESTED_AT }), null);
  });
});
