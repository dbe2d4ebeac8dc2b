/**
 * Search listings kept per process are never served stale: two app instances over one
 * database (on PostgreSQL each with its own connection pool), both having shown a page, so
 * both keep its listings; then one case of it is edited in the store (as a corrected
 * record is written) and another restricted through the second instance. Neither instance
 * may show the old title, nor the restricted case, on its next page; the search index is
 * not fed again in between, so it still finds both cases as they were. Judgment texts kept
 * for reads by id likewise: a corrected text shows at once on both instances.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { PostgresSearchIndex } from '../../src/adapters/postgres/search-index.ts';
import { CaseReader } from '../../src/application/cases/case-reader.ts';
import { ingestCorpus } from '../../src/corpus/ingest.ts';
import { foldHomoglyphs, stripZeroWidthMarks } from '../../src/domain/watermark/alphabet.ts';
import { scIk50Source } from '../../src/corpus/sources/sc-ik50.ts';
import { openPostgres, type OpenedDatabase } from '../../src/db/open.ts';
import { SearchIndexProjector } from '../../src/projections/search-index-projector.ts';
import { createAccessFixture, type AccessFixture } from '../support/access-fixture.ts';
import { BASE, buildTestApp, SettableClock, type TestApp } from '../support/app.ts';
import { corpusDir } from '../support/corpus.ts';
import { databases } from '../support/databases.ts';

const operator = { kind: 'operator' } as const;
type Json = Record<string, unknown>;
const QUERY = 'appeal';

for (const factory of databases)
  describe(`kept search listings on ${factory.name}`, { timeout: 300_000 }, () => {
    let database: OpenedDatabase;
    let second: OpenedDatabase | undefined;
    let fixture: AccessFixture;
    let first: TestApp;
    let other: TestApp;
    const clock = new SettableClock(new Date('2026-11-20T10:00:00Z'));

    const search = async (t: TestApp) => {
      const res = await t.app.request(`${BASE}/search/cases`, {
        method: 'POST',
        headers: { 'X-API-Key': fixture.keys.active, 'Content-Type': 'application/json' },
        body: JSON.stringify({ query: QUERY }),
      });
      assert.equal(res.status, 200);
      const body = (await res.json()) as Json;
      return { data: body.data as Json[], meta: body.meta as Json };
    };

    before(async () => {
      const opened = await factory.open();
      database = opened;
      const index = new PostgresSearchIndex(database.db);
      first = buildTestApp({ db: database.db, clock, index });
      // A second instance: on PostgreSQL its own pool, as another process would have.
      second = opened.url ? await openPostgres(opened.url, { max: 4 }) : undefined;
      const otherDb = second?.db ?? database.db;
      other = buildTestApp({ db: otherDb, clock, index: new PostgresSearchIndex(otherDb) });
      fixture = await createAccessFixture(first.application.accounts, clock);
      await first.application.credits.grant(fixture.organizationId, { amount: 100_000, source: 'grant' });
      await ingestCorpus({ db: database.db, corpusDir, now: () => clock.now(), sources: [scIk50Source] });
      await new SearchIndexProjector(database.db, index, { kind: database.kind, now: () => clock.now() }).catchUp();
    });
    after(async () => {
      await second?.close();
      await database.close();
    });

    it('an edited case shows its new content and a restricted one is withheld, on both instances, at once', async () => {
      const page = (await search(first)).data;
      assert.deepEqual((await search(other)).data, page, 'both instances show the same page');
      // Twice: the second answer comes from the kept listings.
      assert.deepEqual((await search(first)).data, page);
      const [edited, restricted] = page.map((d) => d.caseId as string);
      assert.ok(edited && restricted, `the query finds ${String(page.length)} cases`);

      const title = 'CORRECTED TITLE v. STATE';
      await sql`update cases set title = ${title}, petitioners = jsonb_build_array(jsonb_build_object('name', 'CORRECTED PETITIONER', 'advocates', '[]'::jsonb))
        where case_id = ${edited}`.execute(database.db);
      assert.ok((await other.application.cases.restrict(restricted, operator)).ok);

      for (const [t, label] of [
        [first, 'the instance that did not restrict'],
        [other, 'the instance that restricted'],
      ] as const) {
        const { data, meta } = await search(t);
        const ids = data.map((d) => d.caseId);
        assert.ok(!ids.includes(restricted), `${label} returned the restricted case`);
        assert.equal(meta.someRecordsWithheld, true, label);
        const shown: Json | undefined = data.find((d) => d.caseId === edited);
        assert.ok(shown, `${label} still finds the edited case`);
        assert.equal(shown.title, title, `${label} served a stale title`);
        assert.deepEqual((shown.parties as { petitioners: Json[] }).petitioners, [{ name: 'CORRECTED PETITIONER', advocates: [] }], label);
        const rest: Json[] = page.filter((d) => d.caseId !== edited && d.caseId !== restricted);
        assert.deepEqual(
          data.filter((d) => d.caseId !== edited),
          rest,
          `${label}: the other listings are unchanged`,
        );
      }
    });

    it('a kept text pushed out while its read was in flight is read again, not answered empty', async () => {
      const { rows } = await sql<{ caseId: string; text: string; summary: string | null }>`select case_id, text, summary from cases
        where text is not null and not restricted order by case_id desc limit 2`.execute(database.db);
      const [a, b] = rows;
      assert.ok(a && b);
      const weight = (r: typeof a) => r.text.length + (r.summary?.length ?? 0) + 1;
      // Room for either text, not both.
      const reader = new CaseReader(database.db, { textCharacters: Math.max(weight(a), weight(b)) });
      await reader.lookup(a.caseId);
      // B's read is sent first and keeps B, pushing A out, while A's read (sent for A's kept version) is answered.
      const [readB, readA] = await Promise.all([reader.lookup(b.caseId), reader.lookup(a.caseId)]);
      for (const [lookup, row] of [
        [readA, a],
        [readB, b],
      ] as const) {
        assert.ok('found' in lookup);
        assert.equal(lookup.found.text, row.text);
        assert.equal(lookup.found.summary, row.summary);
      }
      const again = await reader.lookup(a.caseId);
      assert.ok('found' in again);
      assert.equal(again.found.text, a.text);
    });

    it('a case read before shows its corrected judgment text on both instances, and a restricted one is refused', async () => {
      const read = async (t: TestApp, caseId: string) => {
        const res = await t.app.request(`${BASE}/cases/${caseId}`, { headers: { 'X-API-Key': fixture.keys.active } });
        return { status: res.status, body: (await res.json()) as { data?: { text?: string; summary?: string | null } } };
      };
      const { rows } = await sql<{ caseId: string }>`select case_id from cases
        where text is not null and not restricted order by case_id limit 2`.execute(database.db);
      const [corrected, restricted] = rows.map((r) => r.caseId);
      assert.ok(corrected && restricted);
      // Read twice on each instance: the second answer comes from the kept text.
      for (const t of [first, other]) for (let i = 0; i < 2; i += 1) assert.equal((await read(t, corrected)).status, 200);
      const before = foldHomoglyphs(stripZeroWidthMarks((await read(first, corrected)).body.data!.text!));

      const text = `CORRECTED JUDGMENT. ${before.slice(0, 200)}`;
      await sql`update cases set text = ${text}, summary = ${'Corrected summary.'} where case_id = ${corrected}`.execute(database.db);
      assert.ok((await other.application.cases.restrict(restricted, operator)).ok);
      for (const t of [first, other]) {
        const { status, body } = await read(t, corrected);
        assert.equal(status, 200);
        // The text is watermarked per account: folded back, it is the corrected one.
        assert.equal(foldHomoglyphs(stripZeroWidthMarks(body.data!.text!)), foldHomoglyphs(stripZeroWidthMarks(text)));
        assert.equal((await read(t, restricted)).status, 403);
      }
    });
  });
