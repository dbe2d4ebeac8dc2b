/**
 * The whole corpus into an in-memory PGlite: counts match the source files line for
 * line (counted here independently), every rejection is stored with a reason, a re-run
 * writes nothing, a changed row is rewritten (restriction kept), and a missing dataset
 * folder is reported rather than fatal.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { ingestCorpus, type IngestReport } from '../../src/corpus/ingest.ts';
import { CORPUS_SOURCES } from '../../src/corpus/sources/index.ts';
import type { OpenedDatabase } from '../../src/db/open.ts';
import { corpusDir } from '../support/corpus.ts';
import { databases } from '../support/databases.ts';

const CORPUS_DIR = corpusDir;

function sourceLines(source: (typeof CORPUS_SOURCES)[number]): number {
  return source.rowFiles
    .map(
      (f) =>
        readFileSync(join(CORPUS_DIR, source.folder, f), 'utf8')
          .split('\n')
          .filter((l) => l.trim() !== '').length,
    )
    .reduce((a, b) => a + b, 0);
}

for (const factory of databases)
  describe(`ingestCorpus on ${factory.name}`, { timeout: 180_000 }, () => {
    let database: OpenedDatabase;
    let first: IngestReport;
    let clock = new Date('2026-01-01T00:00:00Z');
    const now = () => clock;

    before(async () => {
      database = await factory.open();
      first = await ingestCorpus({ db: database.db, corpusDir: CORPUS_DIR, now });
    });
    after(async () => database.close());

    it('reads every source row and stores read minus rejected', async () => {
      for (const source of CORPUS_SOURCES) {
        const entry = first.sources.find((s) => s.source === source.name);
        assert.ok(entry, source.name);
        assert.equal(entry.skipped, undefined);
        assert.equal(entry.read, sourceLines(source), `${source.name} read`);
        assert.equal(entry.inserted, entry.read - entry.rejected, `${source.name} inserted`);
        const stored = await database.db
          .selectFrom('cases')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('source', '=', source.name)
          .executeTakeFirstOrThrow();
        assert.equal(stored.n, entry.inserted, `${source.name} rows in cases`);
      }
    });

    it('stores every rejection with a reason', async () => {
      const stored = await database.db.selectFrom('ingestRejections').selectAll().execute();
      assert.equal(stored.length, first.rejections.length);
      assert.ok(stored.length > 0);
      for (const r of stored) {
        assert.ok(r.reason.trim().length > 10, `reason for ${r.sourceRef}`);
        assert.match(r.sourceRef, /#L\d+$/);
      }
    });

    it('writes nothing on a re-run and leaves ingestedAt alone', async () => {
      clock = new Date('2026-02-01T00:00:00Z');
      const again = await ingestCorpus({ db: database.db, corpusDir: CORPUS_DIR, now });
      for (const entry of again.sources) {
        const before = first.sources.find((s) => s.source === entry.source);
        assert.equal(entry.inserted, 0, entry.source);
        assert.equal(entry.updated, 0, entry.source);
        assert.equal(entry.unchanged, before?.inserted, entry.source);
        assert.equal(entry.rejected, before?.rejected, entry.source);
      }
      const latest = await sql<{ latest: Date }>`select max(ingested_at) as latest from cases`.execute(database.db);
      assert.equal(new Date(latest.rows[0]?.latest ?? 0).toISOString(), '2026-01-01T00:00:00.000Z');
      const rejections = await database.db.selectFrom('ingestRejections').select('sourceRef').execute();
      assert.equal(rejections.length, first.rejections.length);
    });

    it('rewrites a changed row but keeps its restriction flag', async () => {
      const id = 'hc-GAHC010225502018';
      await database.db
        .updateTable('cases')
        .set({ contentHash: 'stale', title: 'tampered', restricted: true })
        .where('caseId', '=', id)
        .execute();
      clock = new Date('2026-03-01T00:00:00Z');
      const again = await ingestCorpus({ db: database.db, corpusDir: CORPUS_DIR, now });
      assert.equal(again.sources.find((s) => s.source === 'ecourts-hc-case-status')?.updated, 1);
      const row = await database.db.selectFrom('cases').selectAll().where('caseId', '=', id).executeTakeFirstOrThrow();
      assert.equal(row.title, 'ANURAG TANKHA v. THE STATE OF ASSAM');
      assert.equal(row.restricted, true);
      assert.equal(new Date(row.ingestedAt).toISOString(), '2026-03-01T00:00:00.000Z');
    });

    it('reports a missing dataset folder instead of failing', async () => {
      const empty = mkdtempSync(join(tmpdir(), 'corpus-'));
      const report = await ingestCorpus({ db: database.db, corpusDir: empty, now });
      assert.equal(report.sources.length, CORPUS_SOURCES.length);
      for (const s of report.sources) {
        assert.match(s.skipped ?? '', /not found/);
        assert.equal(s.read, 0);
      }
      rmSync(empty, { recursive: true });
      const stillThere = await database.db.selectFrom('ingestRejections').select('sourceRef').execute();
      assert.equal(stillThere.length, first.rejections.length);
    });
  });
