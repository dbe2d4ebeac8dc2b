/**
 * The bulk-layout ingest against a corpus built at test time in that layout from
 * ../shared/data (test/support/bulk-corpus.ts): rows land with their fields, malformed
 * files and rows are rejected with a reason without stopping the run, a run interrupted
 * (aborted, or crashed) and run again ends with exactly the store a single run makes,
 * progress is monotonic and ends at the totals, and hostile files neither escape the root
 * nor hold the event loop. Also the CLI over the same corpus.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { parquetWriteFile } from 'hyparquet-writer';
import { runBulkIngest } from '../../src/cli/ingest-bulk.ts';
import { HC_BUCKET, ingestBulkCorpus, SC_BUCKET, type BulkIngestReport, type BulkProgress } from '../../src/corpus/bulk/bulk-ingest.ts';
import { cleanName } from '../../src/corpus/source-text.ts';
import { parseDayFirst } from '../../src/domain/case/dates.ts';
import type { Db } from '../../src/db/database.ts';
import { buildBulkCorpus, type BulkCorpus } from '../support/bulk-corpus.ts';
import { corpusDir } from '../support/corpus.ts';
import { databases, type TestDatabase } from '../support/databases.ts';

const now = () => new Date('2026-01-01T00:00:00Z');

const scratch: string[] = [];

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  scratch.push(dir);
  return dir;
}

interface Snapshot {
  cases: { caseId: string; source: string; sourceRef: string; contentHash: string }[];
  rejections: { source: string; sourceRef: string; reason: string }[];
}

async function snapshot(db: Db): Promise<Snapshot> {
  return {
    cases: await db.selectFrom('cases').select(['caseId', 'source', 'sourceRef', 'contentHash']).orderBy('caseId').execute(),
    rejections: await db
      .selectFrom('ingestRejections')
      .select(['source', 'sourceRef', 'reason'])
      .orderBy('source')
      .orderBy('sourceRef')
      .execute(),
  };
}

function total(
  report: BulkIngestReport,
  key: 'inserted' | 'rejected' | 'rowsTotal' | 'rowsDone' | 'rowsResumed' | 'filesTotal' | 'filesDone',
): number {
  return report.sources.reduce((n, s) => n + s[key], 0);
}

const HC_JSON_DIR = `${HC_BUCKET}/metadata/json/year=2020/court=1_12/bench=jammuhc`;

function card(cnr: string, title: string): string {
  return `<button><font>${title}</font></button><strong>Judge : X</strong><strong class="caseDetailsTD"><span> CNR :</span><font> ${cnr}</font><span> | Decision Date :</span><font> 02-03-2020</font></strong>`;
}

/** A corpus of hostile files; returns the folder outside it that holds what must never be read. */
function buildHostile(root: string): string {
  const outside = tempDir('bulk-outside-');
  writeFileSync(
    join(outside, 'secret.json'),
    JSON.stringify({
      court_code: '1~12',
      pdf_link: 'o/JKHC029999999999_1.pdf',
      raw_html: card('JKHC029999999999', 'OUT/1/2020 of A Vs B'),
    }),
  );
  const dir = join(root, HC_JSON_DIR);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'good.json'),
    JSON.stringify({ court_code: '1~12', pdf_link: 'x/JKHC020000012020_1.pdf', raw_html: card('JKHC020000012020', 'WP/1/2020 of A Vs B') }),
  );
  writeFileSync(join(dir, 'bad.json'), '{not json');
  writeFileSync(join(dir, 'latin1.json'), Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]));
  writeFileSync(join(dir, 'nocard.json'), JSON.stringify({ court_code: '1~12' }));
  writeFileSync(
    join(dir, 'longcard.json'),
    JSON.stringify({ court_code: '1~12', pdf_link: 'x/y.pdf', raw_html: `<b>${'A'.repeat(900_000)}</b>` }),
  );
  writeFileSync(join(dir, 'line\nbreak.json'), '{}');
  writeFileSync(Buffer.concat([Buffer.from(`${dir}/bad`), Buffer.from([0xff]), Buffer.from('.json')]), '{}');
  // 64 MiB, sparse: refused by its size before a byte is read.
  writeFileSync(join(dir, 'huge.json'), '');
  truncateSync(join(dir, 'huge.json'), 64 * 1024 * 1024);
  symlinkSync(join(outside, 'secret.json'), join(dir, 'link.json'));
  symlinkSync(outside, join(root, HC_BUCKET, 'metadata/json/year=2020/court=1_12/bench=outside'));
  mkdirSync(join(root, HC_BUCKET, 'metadata/json/year=20x0'), { recursive: true });
  const unknown = join(root, HC_BUCKET, 'metadata/json/year=2021/court=99_99/bench=nowhere');
  mkdirSync(unknown, { recursive: true });
  writeFileSync(
    join(unknown, 'x.json'),
    JSON.stringify({ court_code: '99~99', pdf_link: 'x/z.pdf', raw_html: card('JKHC020000022020', 'WP/2/2020 of A Vs B') }),
  );
  const corrupt = join(root, HC_BUCKET, 'metadata/parquet/year=2021/court=1_12/bench=jammuhc');
  mkdirSync(corrupt, { recursive: true });
  writeFileSync(join(corrupt, 'metadata.parquet'), Buffer.from('PAR1 this is not a parquet file PAR1'));
  const sc = join(root, SC_BUCKET, 'metadata/parquet/year=2000');
  mkdirSync(sc, { recursive: true });
  parquetWriteFile({
    filename: join(sc, 'metadata.parquet'),
    columnData: [
      { name: 'title', data: ['A versus B', 'x'.repeat(200_000)], type: 'STRING' },
      { name: 'cnr', data: ['SCIN010000012000', 'SCIN010000022000'], type: 'STRING' },
      { name: 'path', data: ['2000/1', '2000/2'], type: 'STRING' },
      { name: 'decision_date', data: ['01-02-2000', '01-02-2000'], type: 'STRING' },
    ],
  });
  return outside;
}

describe('bulk layout ingest', { timeout: 600_000 }, () => {
  let corpus: BulkCorpus;
  before(async () => {
    corpus = await buildBulkCorpus(corpusDir, tempDir('bulk-corpus-'));
  });
  after(() => {
    for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
  });

  for (const factory of databases)
    describe(`on ${factory.name}`, () => {
      const opened: TestDatabase[] = [];
      const fresh = async () => {
        const database = await factory.open();
        opened.push(database);
        return database.db;
      };
      let baselineDb: Db;
      let baseline: BulkIngestReport;
      const progress: BulkProgress[] = [];

      before(async () => {
        baselineDb = await fresh();
        baseline = await ingestBulkCorpus({
          db: baselineDb,
          root: corpus.root,
          referenceDir: corpus.referenceDir,
          now,
          onProgress: (p) => progress.push(p),
        });
      });
      after(async () => {
        for (const d of opened) await d.close();
      });

      it('walks the layout: every file and row is read, stored or rejected with a reason', async () => {
        assert.equal(baseline.interrupted, false);
        assert.equal(total(baseline, 'rowsTotal'), corpus.sc.length + corpus.hc.length);
        assert.equal(total(baseline, 'rowsDone'), total(baseline, 'rowsTotal'));
        assert.equal(total(baseline, 'filesDone'), total(baseline, 'filesTotal'));
        assert.equal(total(baseline, 'inserted') + total(baseline, 'rejected'), total(baseline, 'rowsTotal'));
        const stored = await snapshot(baselineDb);
        assert.equal(stored.cases.length, total(baseline, 'inserted'));
        assert.equal(stored.rejections.length, total(baseline, 'rejected'));
        assert.ok(stored.cases.length > 300, `${stored.cases.length} cases`);
        for (const r of stored.rejections) assert.ok(r.reason.length > 10, r.sourceRef);
      });

      it('stores the Supreme Court rows with their fields', async () => {
        const rows = await baselineDb.selectFrom('cases').selectAll().where('source', '=', 'sc-judgments-bulk').execute();
        const bySourceRef = new Map(rows.map((r) => [r.sourceRef, r]));
        let checked = 0;
        for (const built of corpus.sc) {
          const row = bySourceRef.get(`${built.rel}#R${built.row}`);
          if (row === undefined) continue;
          checked += 1;
          assert.equal(row.caseNumber, built.caseNo.trim().replace(/\s+/g, ' '));
          assert.equal(row.decisionDate, parseDayFirst(built.judgmentDate));
          assert.equal(row.courtCode, 'SC');
          assert.equal((row.extra as { path: string }).path, built.pdfPath);
          assert.ok(row.title?.startsWith(cleanName(built.pet)), `${row.title} / ${built.pet}`);
        }
        assert.ok(checked > 150, `${checked} SC rows checked`);
        const rejected = await baselineDb
          .selectFrom('ingestRejections')
          .select('reason')
          .where('source', '=', 'sc-judgments-bulk')
          .execute();
        assert.ok(rejected.every((r) => /missing case number|duplicate case id|no letters or digits/.test(r.reason)));
      });

      it('stores the High Court rows from both layers with court, bench and layer; a partition with both layers is read once', async () => {
        const rows = await baselineDb.selectFrom('cases').selectAll().where('source', '=', 'hc-judgments-bulk').execute();
        const bySourceRef = new Map(rows.map((r) => [r.sourceRef, r]));
        const rejected = new Set((await baselineDb.selectFrom('ingestRejections').select('sourceRef').execute()).map((r) => r.sourceRef));
        for (const built of corpus.hc) {
          const row = bySourceRef.get(built.rel);
          if (row === undefined) {
            assert.ok(rejected.has(built.rel), `${built.rel} neither stored nor rejected`);
            continue;
          }
          assert.equal(row.caseNumber, built.caseNumber);
          assert.equal(row.courtCode, built.cnr.slice(0, 4));
          assert.equal(row.bench, built.bench);
          assert.equal(row.courtLevel, 'high');
          assert.equal((row.extra as { layer: string }).layer, built.layer);
          assert.equal((row.extra as { cnr: string }).cnr, built.cnr);
        }
        assert.ok(corpus.hc.some((b) => b.layer === 'json') && corpus.hc.some((b) => b.layer === 'parquet'));
        assert.equal(rows.filter((r) => r.sourceRef.startsWith(`metadata/json/${corpus.bothLayers}/`)).length, 0);
        assert.ok(rows.some((r) => r.sourceRef.startsWith(`metadata/parquet/${corpus.bothLayers}/`)));
      });

      it('reports progress per dataset: monotonic, totals fixed, ending done at the totals', () => {
        for (const source of ['sc-judgments-bulk', 'hc-judgments-bulk']) {
          const events = progress.filter((p) => p.source === source);
          assert.ok(events.length > 2, source);
          for (let i = 1; i < events.length; i += 1) {
            const [a, b] = [events[i - 1]!, events[i]!];
            assert.ok(b.rowsDone >= a.rowsDone && b.filesDone >= a.filesDone, `${source} went back at event ${i}`);
            assert.equal(b.rowsTotal, a.rowsTotal);
            assert.equal(b.filesTotal, a.filesTotal);
          }
          const last = events[events.length - 1]!;
          assert.equal(last.done, true);
          assert.equal(events.filter((e) => e.done).length, 1);
          assert.equal(last.rowsDone, last.rowsTotal);
          assert.equal(last.filesDone, last.filesTotal);
        }
      });

      it('a second run reads nothing already stored; a rescan rewrites nothing', async () => {
        const before = await snapshot(baselineDb);
        const again = await ingestBulkCorpus({ db: baselineDb, root: corpus.root, referenceDir: corpus.referenceDir, now });
        assert.equal(total(again, 'rowsResumed'), total(again, 'rowsTotal'));
        assert.equal(total(again, 'inserted') + total(again, 'rejected'), 0);
        const rescan = await ingestBulkCorpus({ db: baselineDb, root: corpus.root, referenceDir: corpus.referenceDir, now, rescan: true });
        assert.equal(total(rescan, 'rowsResumed'), 0);
        assert.equal(total(rescan, 'inserted'), 0);
        assert.equal(
          rescan.sources.reduce((n, s) => n + s.updated, 0),
          0,
        );
        assert.equal(
          rescan.sources.reduce((n, s) => n + s.unchanged, 0),
          before.cases.length,
        );
        assert.deepEqual(await snapshot(baselineDb), before);
      });

      it('resumes after aborts: the final store equals one uninterrupted run, with no duplicates', async () => {
        const db = await fresh();
        for (const stopAfter of [3, 40]) {
          const controller = new AbortController();
          const report = await ingestBulkCorpus({
            db,
            root: corpus.root,
            referenceDir: corpus.referenceDir,
            now,
            signal: controller.signal,
            onProgress: (p) => {
              if (p.source === 'sc-judgments-bulk' && p.filesDone >= stopAfter) controller.abort();
            },
          });
          assert.equal(report.interrupted, true);
          assert.ok(total(report, 'rowsDone') < total(baseline, 'rowsTotal'));
        }
        const partial = await snapshot(db);
        assert.ok(partial.cases.length > 0 && partial.cases.length < total(baseline, 'inserted'));
        const last = await ingestBulkCorpus({ db, root: corpus.root, referenceDir: corpus.referenceDir, now });
        assert.equal(last.interrupted, false);
        assert.ok(total(last, 'rowsResumed') >= partial.cases.length);
        assert.equal(total(last, 'inserted'), total(baseline, 'inserted') - partial.cases.length);
        assert.deepEqual(await snapshot(db), await snapshot(baselineDb));
      });

      it('resumes after a crash mid-run (an exception between chunks)', async () => {
        const db = await fresh();
        await assert.rejects(
          ingestBulkCorpus({
            db,
            root: corpus.root,
            referenceDir: corpus.referenceDir,
            now,
            onProgress: (p) => {
              if (p.source === 'hc-judgments-bulk' && p.filesDone >= 2) throw new Error('simulated crash');
            },
          }),
          /simulated crash/,
        );
        await ingestBulkCorpus({ db, root: corpus.root, referenceDir: corpus.referenceDir, now });
        assert.deepEqual(await snapshot(db), await snapshot(baselineDb));
      });

      it('rejects hostile files with a reason, never leaves the root, and keeps the event loop free', async () => {
        const root = tempDir('bulk-hostile-');
        buildHostile(root);
        const db = await fresh();
        const delay = monitorEventLoopDelay({ resolution: 10 });
        delay.enable();
        const report = await ingestBulkCorpus({ db, root, referenceDir: corpus.referenceDir, now });
        delay.disable();
        assert.equal(report.interrupted, false);
        assert.equal(total(report, 'filesDone'), total(report, 'filesTotal'));
        const rejections = new Map(
          (await db.selectFrom('ingestRejections').select(['sourceRef', 'reason']).execute()).map((r) => [r.sourceRef, r.reason]),
        );
        const hcDir = 'metadata/json/year=2020/court=1_12/bench=jammuhc';
        const expected: [string, RegExp][] = [
          [`${hcDir}/bad.json`, /unparseable JSON/],
          [`${hcDir}/latin1.json`, /not UTF-8/],
          [`${hcDir}/nocard.json`, /no raw_html card/],
          [`${hcDir}/longcard.json`, /not a result card/],
          [`${hcDir}/huge.json`, /67108864 bytes/],
          [`${hcDir}/line\\nbreak.json`, /file name/],
          [`${hcDir}/bad\uFFFD.json`, /file name/],
          [`${hcDir}/link.json`, /not a regular file/],
          ['metadata/json/year=2020/court=1_12/bench=outside', /symbolic link not followed/],
          ['metadata/json/year=20x0', /not a year partition name/],
          ['metadata/json/year=2021/court=99_99/bench=nowhere/x.json', /unknown High Court code "99_99"/],
          ['metadata/parquet/year=2021/court=1_12/bench=jammuhc/metadata.parquet', /unreadable parquet file/],
          ['metadata/parquet/year=2000/metadata.parquet#R2', /title is 200000 characters/],
        ];
        for (const [ref, reason] of expected) assert.match(rejections.get(ref) ?? '(none)', reason, ref);
        const cases = await db.selectFrom('cases').select(['sourceRef', 'extra']).execute();
        assert.deepEqual(cases.map((c) => c.sourceRef).sort(), [`${hcDir}/good.json`, 'metadata/parquet/year=2000/metadata.parquet#R1']);
        assert.ok(!JSON.stringify(cases).includes('JKHC029999999999'), 'a row from outside the root was stored');
        assert.ok(delay.max < 2e9, `event loop held for ${delay.max / 1e6} ms`);
      });
    });

  it('the CLI ingests the layout, prints progress on stderr and the report on stdout', async () => {
    const dataDir = tempDir('bulk-cli-');
    let stdout = '';
    let stderr = '';
    const io = {
      stdout: { write: (s: string) => (stdout += s) },
      stderr: new Writable({
        write: (chunk: Buffer, _encoding, done: () => void) => {
          stderr += chunk.toString();
          done();
        },
      }),
      env: { DATA_DIR: dataDir, CORPUS_DIR: corpusDir, LOG_LEVEL: 'silent' },
      now,
    };
    assert.equal(await runBulkIngest([], io), 2);
    assert.match(stderr, /usage: court-records ingest --layout bulk/);
    assert.equal(await runBulkIngest([corpus.root], io), 0);
    const report = JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as BulkIngestReport;
    assert.equal(report.interrupted, false);
    assert.equal(total(report, 'rowsDone'), corpus.sc.length + corpus.hc.length);
    assert.match(stderr, new RegExp(`ingest sc-judgments-bulk: files (\\d+)/\\1, rows ${corpus.sc.length}/${corpus.sc.length} done`));
    assert.match(stderr, /ingest hc-judgments-bulk: files \d+\/\d+, rows \d+\/\d+ done/);
    assert.ok(readFileSync(join(corpus.root, 'SYNTHETIC.md'), 'utf8').includes('synthetic'));
  });
});
