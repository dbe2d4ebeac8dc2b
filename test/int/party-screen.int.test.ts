/**
 * POST /party/screen end to end through the real app on both databases, over the real
 * corpus slice with real party names as queries: the report (matches that explain
 * themselves with spans of the record, verdicts, coverage), the exact prices against the
 * ledger (100 match, 20 genuine no match, 0 inconclusive, +80 adjudicated), every 400 of
 * the spec's error map, the 402 below the 180 reservation, the rate limit and the distinct-names caps with
 * Retry-After, the Free tier's 10 checks a month, a degraded search (502, nothing
 * charged), allowance stores that fail closed, idempotent replay, and privacy: the names,
 * identifiers, address and known persons sent never reach the logs, the audit rows or
 * the event store.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PostgresSearchIndex } from '../../src/adapters/postgres/search-index.ts';
import { reconcileLedger } from '../../src/application/credits/reconcile.ts';
import { openPglite } from '../../src/db/open.ts';
import type { AnalyticsStore } from '../../src/ports/analytics.ts';
import type { DistinctCounter } from '../../src/ports/distinct-counter.ts';
import type { PartySearchIndex } from '../../src/ports/search-index.ts';
import { SearchIndexProjector } from '../../src/projections/search-index-projector.ts';
import { auditToClickHouse } from '../../src/projections/audit-to-clickhouse.ts';
import { ProjectorRunner } from '../../src/projections/projector.ts';
import { openTestAnalytics } from '../support/analytics.ts';
import { BASE, buildTestApp, TEST_UPGRADE_URL } from '../support/app.ts';
import { databases } from '../support/databases.ts';
import { securityMatrix } from '../support/security-matrix.ts';
import {
  balanceOf,
  chargedTo,
  openScreeningWorld,
  post,
  realPartyNames,
  type Json,
  type ScreeningWorld,
} from '../support/screening-setup.ts';
import { eventStoreOf } from '../../src/wiring.ts';

const operator = { kind: 'operator' } as const;

// Real records of the slice.
const DESARDA = 'sc-19885-2000-19020209'; // PADMA v. HIRALAL MOTILAL DESARDA
const NATIONAL_INSURANCE = 'sc-10169-2001-19020217'; // NATIONAL INSURANCE CO. LTD., CHANDIGARH v. NICOLLETTA ROHTAGI
const HAKAM_SHAH = 'hc-JKHC020091782015'; // HAKAM SHAH v. STATE TH.HOME DEPTT.AND ORS., JKHC, decided 2016-04-22

const person = (name: string, over: Json = {}) => ({ name, entityType: 'person', purpose: 'kyc', ...over });
const company = (name: string, over: Json = {}) => ({ name, entityType: 'company', purpose: 'due_diligence', ...over });

interface Report {
  summary: Json & { verdict: string; billedAs: string; matchCount: number };
  coverage: Json & { exhaustive: boolean; exhaustiveWithinFilters: boolean; someRecordsWithheld: boolean };
  matches: (Json & { caseId: string; signals: { kind: string; spans: { field: string; start: number; end: number; text: string }[] }[] })[];
}

const reportOf = (body: Json): Report => body.data as Report;

// One embedded ClickHouse for the file, shared by both databases: chdb binds one data folder per process.
let analytics: ReturnType<typeof openTestAnalytics> | undefined;
const sharedAnalytics = async () => (await (analytics ??= openTestAnalytics())).store;
after(async () => (analytics ? (await analytics).close() : undefined));

for (const factory of databases)
  describe(`POST /party/screen on ${factory.name}`, { timeout: 600_000 }, () => {
    let w: ScreeningWorld;
    let key: string;
    let account: string;

    const screen = (body: unknown, k = key, headers: Record<string, string> = {}) => post(w.t, k, '/party/screen', body, headers);
    /** A fresh Enterprise key with its own billing account, so limits and charges are this test's own. */
    const fresh = async (label: string, limits = {}, credits = 100_000) => {
      const u = await w.user(label, { limits, credits });
      return { ...u, account: u.userId };
    };

    before(async () => {
      w = await openScreeningWorld(factory);
      ({ key, account } = await fresh('main'));
    });
    after(async () => w.close());

    describe('the security matrix', () => {
      // The 402 asks for the reservation (rule 3), not the price the call would earn.
      securityMatrix({ method: 'POST', path: '/party/screen', body: person('Hiralal Motilal Desarda'), okStatus: 200, price: 180 }, () => ({
        app: w.t.app,
        fixture: w.fixture,
        appWithIdentityDown: w.down.app,
        balanceOf: (a) => balanceOf(w, a),
      }));
    });

    describe('reports', () => {
      it('finds a real party by its name, explains the match with spans of the record, and charges 100', async () => {
        const before = await chargedTo(w, account);
        const { res, body } = await screen(person('Hiralal Motilal Desarda'));
        assert.equal(res.status, 200, JSON.stringify(body));
        assert.equal(res.headers.get('x-credits-charged'), '100');
        assert.equal((await chargedTo(w, account)) - before, 100);
        const report = reportOf(body);
        const match = report.matches.find((m) => m.caseId === DESARDA);
        assert.ok(match, JSON.stringify(report).slice(0, 800));
        assert.equal(match.partyRole, 'respondent');
        assert.equal(match.matchedName, 'HIRALAL MOTILAL DESARDA');
        assert.equal(match.caseNumber, 'C.A. No.-005698-005698 - 2002');
        assert.ok(['probable', 'possible', 'confirmed'].includes(match.band as string));
        // A person is never confirmed without an identifier (rule 1).
        assert.notEqual(match.band, 'confirmed');
        const row = await w.database.db
          .selectFrom('cases')
          .select(['petitioners', 'respondents', 'title'])
          .where('caseId', '=', DESARDA)
          .executeTakeFirstOrThrow();
        const fields: Record<string, string> = {
          title: row.title ?? '',
          ...Object.fromEntries((row.petitioners as { name: string }[]).map((p, i) => [`petitioners[${String(i)}]`, p.name])),
          ...Object.fromEntries((row.respondents as { name: string }[]).map((p, i) => [`respondents[${String(i)}]`, p.name])),
        };
        const spans = match.signals.flatMap((s) => s.spans);
        assert.ok(spans.length > 0);
        for (const span of spans) assert.equal(fields[span.field]?.slice(span.start, span.end), span.text, span.field);
        assert.equal(report.summary.verdict, 'possible_match');
        assert.equal(report.summary.billedAs, 'match');
        assert.equal(report.coverage.exhaustive, true);
        assert.deepEqual((body.meta as Json).creditsCharged, 100);
      });

      it('confirms a company on its name alone (rule 3), written with a company form and honorific', async () => {
        const { body } = await screen(company('M/s. National Insurance Co. Ltd.', { limit: 100 }));
        const report = reportOf(body);
        assert.equal(report.summary.verdict, 'match_found');
        const match = report.matches.find((m) => m.caseId === NATIONAL_INSURANCE);
        assert.ok(match);
        assert.equal(match.band, 'confirmed');
        assert.equal(match.partyRole, 'petitioner');
      });

      it('finds a name written with a spelling slip', async () => {
        const { body } = await screen(person('Nicoletta Rohatgi', { displayThreshold: 0 }));
        assert.ok(reportOf(body).matches.some((m) => m.caseId === NATIONAL_INSURANCE && m.partyRole === 'respondent'));
      });

      it('a genuine no match: nothing matches, the retrieval was exhaustive, verdict no_matches_found, 20 credits', async () => {
        const before = await chargedTo(w, account);
        const { res, body } = await screen(person('Zorawar Quillfeather Vantablack'));
        const report = reportOf(body);
        assert.equal(res.status, 200);
        assert.deepEqual(
          [
            report.summary.verdict,
            report.summary.billedAs,
            report.matches.length,
            report.coverage.exhaustive,
            report.coverage.exhaustiveWithinFilters,
          ],
          ['no_matches_found', 'genuine_no_match', 0, true, true],
        );
        assert.equal(res.headers.get('x-credits-charged'), '20');
        assert.equal((await chargedTo(w, account)) - before, 20);
      });

      it('a since filter forces inconclusive even on an exhaustive run, and an inconclusive no match costs nothing', async () => {
        const before = await chargedTo(w, account);
        const { body } = await screen(person('Zorawar Quillfeather Vantablack', { since: '2020-01-01' }));
        const report = reportOf(body);
        assert.deepEqual([report.summary.verdict, report.summary.billedAs], ['inconclusive', 'none']);
        assert.equal(report.coverage.exhaustive, false);
        assert.equal(report.coverage.exhaustiveWithinFilters, true);
        assert.equal((await chargedTo(w, account)) - before, 0);
      });

      it('since drops a case decided before it and keeps it from that day on', async () => {
        const on = reportOf((await screen(person('Hakam Shah', { since: '2016-04-22', displayThreshold: 0 }))).body);
        assert.ok(on.matches.some((m) => m.caseId === HAKAM_SHAH));
        const afterIt = reportOf((await screen(person('Hakam Shah', { since: '2016-04-23', displayThreshold: 0 }))).body);
        assert.ok(!afterIt.matches.some((m) => m.caseId === HAKAM_SHAH));
      });

      it('one court: exhaustive within the filter, a match there and a genuine no match elsewhere', async () => {
        const jk = reportOf((await screen(person('Hakam Shah', { court: 'Jammu and Kashmir High Court', displayThreshold: 0 }))).body);
        assert.ok(jk.matches.some((m) => m.caseId === HAKAM_SHAH));
        assert.deepEqual([jk.coverage.exhaustive, jk.coverage.exhaustiveWithinFilters], [false, true]);
        const before = await chargedTo(w, account);
        const sc = reportOf((await screen(person('Hakam Shah', { court: ['Supreme Court of India'] }))).body);
        assert.equal(sc.matches.length, 0);
        assert.equal(sc.summary.verdict, 'no_matches_found');
        assert.equal((await chargedTo(w, account)) - before, 20);
      });

      it('more candidates than the limit: not exhaustive, and said so', async () => {
        const { body } = await screen(company('State of Bihar', { limit: 3 }));
        const report = reportOf(body);
        assert.equal(report.coverage.candidatesConsidered, 3);
        assert.deepEqual([report.coverage.exhaustive, report.coverage.exhaustiveWithinFilters], [false, false]);
      });

      it('below displayThreshold a candidate is left out (rule 5)', async () => {
        const all = reportOf((await screen(person('Hakam Shah', { displayThreshold: 0 }))).body);
        const none = reportOf((await screen(person('Hakam Shah', { displayThreshold: 1 }))).body);
        assert.ok(all.matches.length > 0);
        assert.equal(none.matches.filter((m) => m.band !== 'confirmed').length, 0);
      });

      it('adjudicates the uncertain middle with the local reader, +80 on top of the match price', async () => {
        const before = await chargedTo(w, account);
        const { res, body } = await screen(person('Hiralal Motilal Desarda', { adjudicate: true, knownPersons: ['Padma'] }));
        assert.equal(res.status, 200, JSON.stringify(body));
        const report = reportOf(body);
        assert.equal(report.summary.adjudicated, true);
        assert.ok((report.summary.adjudicatedCandidates as number) >= 1);
        const match = report.matches.find((m) => m.caseId === DESARDA);
        assert.ok(match);
        const adjudication = match.adjudication as { adjudicator: string; reasons: string[] };
        assert.equal(adjudication.adjudicator, 'local-context-rules-v1');
        assert.ok(adjudication.reasons.length > 0);
        assert.notEqual(match.band, 'confirmed');
        assert.equal(res.headers.get('x-credits-charged'), '180');
        assert.equal((await chargedTo(w, account)) - before, 180);
      });

      it('a restricted case is dropped, reported only through someRecordsWithheld, and forces inconclusive', async () => {
        const target = await w.database.db
          .selectFrom('cases')
          .select(['caseId', 'respondents'])
          .where('caseId', '=', 'hc-JKHC020113752018')
          .executeTakeFirstOrThrow();
        const name = (target.respondents as { name: string }[])[0]?.name ?? '';
        const petitioner = 'Ashram Hussain'; // hc-JKHC020113752018: ASHRAM HUSSAIN v. STATE TH.HOME DEPTT.AND ORS.
        assert.ok(name.length > 0);
        const restricted = await w.t.application.cases.restrict(target.caseId, operator);
        assert.ok(restricted.ok);
        // Before the index hears of it, the case store keeps it out.
        const before = await chargedTo(w, account);
        const storeSide = reportOf((await screen(person(petitioner))).body);
        assert.ok(!storeSide.matches.some((m) => m.caseId === target.caseId));
        assert.equal(storeSide.coverage.someRecordsWithheld, true);
        assert.equal(storeSide.summary.verdict, 'inconclusive');
        await new SearchIndexProjector(w.database.db, w.index, { kind: w.database.kind, now: () => w.clock.now() }).catchUp();
        const indexSide = reportOf((await screen(person(petitioner))).body);
        assert.equal(indexSide.coverage.someRecordsWithheld, true);
        assert.ok(!JSON.stringify(indexSide).includes(target.caseId));
        assert.equal((await chargedTo(w, account)) - before, 0);
      });

      it('rule 6: any plan clamp gives inconclusive', async () => {
        const small = await fresh('clamped', { maxPageSize: 5 });
        const coverageOf = (r: Report) => [
          r.coverage.limit,
          r.coverage.limitClamped,
          r.coverage.exhaustive,
          r.coverage.exhaustiveWithinFilters,
        ];
        // Within the page size: no clamp, a genuine no match at 20.
        let before = await chargedTo(w, small.account);
        const within = reportOf((await screen(person('Zorawar Quillfeather Vantablack', { limit: 5 }), small.key)).body);
        assert.deepEqual([...coverageOf(within), within.summary.verdict], [5, false, true, true, 'no_matches_found']);
        assert.equal((await chargedTo(w, small.account)) - before, 20);
        // The same name with a limit above it, asked for or by default: clamped though nothing was cut; inconclusive, 0.
        for (const over of [{ limit: 50 }, {}]) {
          before = await chargedTo(w, small.account);
          const { res, body } = await screen(person('Zorawar Quillfeather Vantablack', over), small.key);
          const clamped = reportOf(body);
          assert.equal(clamped.coverage.candidatesConsidered, 0);
          assert.deepEqual(
            [...coverageOf(clamped), clamped.summary.verdict, clamped.summary.billedAs],
            [5, true, false, false, 'inconclusive', 'none'],
          );
          assert.equal(res.headers.get('x-credits-charged'), '0');
          assert.equal((await chargedTo(w, small.account)) - before, 0);
        }
        // A clamp that cut candidates of a common name, nothing shown (a person is never confirmed on a name): inconclusive too.
        const common = reportOf((await screen(person('State of Bihar', { limit: 50, displayThreshold: 1 }), small.key)).body);
        assert.deepEqual([common.coverage.candidatesConsidered, common.matches.length], [5, 0]);
        assert.deepEqual([...coverageOf(common), common.summary.verdict], [5, true, false, false, 'inconclusive']);
        const { differences } = await reconcileLedger(
          { db: w.database.db, events: eventStoreOf(w.database.db), analytics: null, analyticsUnavailable: 'not used in this test' },
          { accountId: small.account },
        );
        assert.deepEqual(differences, []);
      });
    });

    describe('refusals', () => {
      it('every 400 of the error map, none charged, no detail echoing what was sent', async () => {
        const secretName = 'Quennell Xaviera Oberstein';
        const bad: [string, Json][] = [
          ['missing purpose', { name: secretName, entityType: 'person' }],
          ['bad purpose', person(secretName, { purpose: 'curiosity' })],
          ['missing entityType', { name: secretName, purpose: 'kyc' }],
          ['malformed PAN', person(secretName, { identifiers: { pan: 'ABMPA32111' } })],
          ['PAN with a wrong holder type', person(secretName, { identifiers: { pan: 'ABMXA3211G' } })],
          ['GSTIN with a wrong check character', company(secretName, { identifiers: { gstin: '27AAPFU0939F1Z0' } })],
          ['GSTIN too short', company(secretName, { identifiers: { gstin: '27AAPFU0939F1Z' } })],
          ['malformed CIN', company(secretName, { identifiers: { cin: 'L17110MH1973XYZ019786' } })],
          ['malformed LLPIN', company(secretName, { identifiers: { llpin: 'AAB9032' } })],
          ['unknown identifier', person(secretName, { identifiers: { aadhaar: '123412341234' } })],
          ['multi-entry court', person(secretName, { court: ['Supreme Court of India', 'Delhi High Court'] })],
          ['unknown court', person(secretName, { court: 'Court of Narnia' })],
          ['since not a calendar day', person(secretName, { since: '2023-02-29' })],
          ['since in another format', person(secretName, { since: '01-02-2023' })],
          ['since month 13', person(secretName, { since: '2023-13-01' })],
          ['unknown field', person(secretName, { nickname: 'x' })],
          ['name too short', person('Q')],
          ['name too long', person('Q'.repeat(201))],
          ['nothing left of the name', company('M/s. Pvt. Ltd.')],
          ['eight aliases', person(secretName, { aliases: Array.from({ length: 8 }, (_, i) => `${secretName} ${String(i)}`) })],
          ['eleven known persons', person(secretName, { knownPersons: Array.from({ length: 11 }, (_, i) => `Known Person ${String(i)}`) })],
          ['limit above 100', person(secretName, { limit: 101 })],
          ['limit as a string', person(secretName, { limit: '40' })],
          ['displayThreshold above 1', person(secretName, { displayThreshold: 1.5 })],
          ['adjudicate as a string', person(secretName, { adjudicate: 'yes' })],
          ['unknown address field', person(secretName, { address: { street: '1 Mall Road' } })],
        ];
        const before = await chargedTo(w, account);
        for (const [label, body] of bad) {
          const { res, body: answer } = await screen(body);
          assert.equal(res.status, 400, `${label}: ${JSON.stringify(answer)}`);
          assert.equal(answer.code, 'VALIDATION_ERROR', label);
          assert.ok(Array.isArray(answer.details) && answer.details.length > 0, label);
          const text = JSON.stringify(answer);
          for (const sent of [secretName, 'ABMPA32111', '27AAPFU0939F1Z0', 'L17110MH1973XYZ019786', '1 Mall Road', '123412341234'])
            assert.ok(!text.includes(sent), `${label} echoes ${sent}: ${text}`);
        }
        const detailsOf = async (body: Json) => ((await screen(body)).body.details as string[]).join(' | ');
        assert.match(
          await detailsOf(person(secretName, { court: ['Supreme Court of India', 'Delhi High Court'] })),
          /^court: one court only/,
        );
        assert.match(
          await detailsOf(company(secretName, { identifiers: { gstin: '27AAPFU0939F1Z0' } })),
          /identifiers\.gstin: not a valid GSTIN \(checksum\)/,
        );
        assert.match(await detailsOf(person(secretName, { since: '2023-02-29' })), /since: must be a real calendar day/);
        assert.match(await detailsOf({ name: secretName, entityType: 'person' }), /^purpose: /);
        assert.match(await detailsOf(person(secretName, { nickname: 'x' })), /unrecognised field\(s\) nickname/);
        const malformed = await screen('{"name":');
        assert.equal(malformed.body.code, 'MALFORMED_JSON');
        assert.equal((await chargedTo(w, account)) - before, 0);
      });

      it('accepts the identifiers the public test vectors call valid', async () => {
        const { res, body } = await screen(
          company('National Insurance Company Limited', { identifiers: { gstin: '27AAPFU0939F1ZV', pan: 'AABCB5576G' } }),
        );
        assert.equal(res.status, 200, JSON.stringify(body));
      });

      it('rule 3: pre-flight holds the worst case, 180, with or without adjudicate', async () => {
        const credits = w.t.application.credits;
        const poor = await fresh('poor', {}, 179);
        for (const adjudicate of [false, true]) {
          const { res, body } = await screen(person('Hiralal Motilal Desarda', { adjudicate }), poor.key);
          assert.equal(res.status, 402, JSON.stringify(body));
          assert.deepEqual(
            [body.code, body.required, body.balance, body.shortfall, body.topUpUrl],
            ['INSUFFICIENT_API_CREDITS', 180, 179, 1, 'https://billing.test/top-up'],
          );
        }
        assert.deepEqual(await credits.balance(poor.account), { balance: 179, reserved: 0 });
        assert.equal(await chargedTo(w, poor.account), 0);
        // With exactly 180 each call runs, settles at the price it earned and releases the rest of the hold.
        const runs: [string, Json, string, boolean, number][] = [
          ['no-match', person('Zorawar Quillfeather Vantablack'), 'genuine_no_match', false, 20],
          ['match', person('Hiralal Motilal Desarda'), 'match', false, 100],
          ['adjudicated', person('Hiralal Motilal Desarda', { adjudicate: true, knownPersons: ['Padma'] }), 'match', true, 180],
        ];
        const accounts = [poor.account];
        for (const [label, body, billedAs, adjudicated, price] of runs) {
          const u = await fresh(`exact-${label}`, {}, 180);
          accounts.push(u.account);
          const { res, body: answer } = await screen(body, u.key);
          assert.equal(res.status, 200, `${label}: ${JSON.stringify(answer)}`);
          const { summary } = reportOf(answer);
          assert.deepEqual([summary.billedAs, summary.adjudicated], [billedAs, adjudicated], label);
          assert.equal(res.headers.get('x-credits-charged'), String(price), label);
          assert.equal(await chargedTo(w, u.account), price, label);
          assert.deepEqual(await credits.balance(u.account), { balance: 180 - price, reserved: 0 }, label);
        }
        for (const accountId of accounts) {
          const report = await reconcileLedger(
            { db: w.database.db, events: eventStoreOf(w.database.db), analytics: null, analyticsUnavailable: 'not used in this test' },
            { accountId },
          );
          assert.deepEqual(report.differences, [], accountId);
        }
      });

      it('429 RATE_LIMITED past the per-endpoint screening rate, in the rate-limit shape with Retry-After; nothing charged', async () => {
        const limited = await fresh('rate', { screeningRequestsPerMinute: 2 });
        w.clock.advanceSeconds(60 - (w.clock.now().getUTCSeconds() % 60));
        assert.equal((await screen(person('Hakam Shah'), limited.key)).res.status, 200);
        assert.equal((await screen(person('Hakam Shah'), limited.key)).res.status, 200);
        const before = await chargedTo(w, limited.account);
        const { res, body } = await screen(person('Hakam Shah'), limited.key);
        assert.equal(res.status, 429);
        assert.equal(body.code, 'RATE_LIMITED');
        assert.equal(body.success, undefined);
        assert.equal(typeof body.retryAfter, 'number');
        assert.equal(typeof body.resetTime, 'string');
        assert.equal(res.headers.get('retry-after'), String(body.retryAfter));
        assert.ok((body.retryAfter as number) >= 1 && (body.retryAfter as number) <= 60);
        assert.equal(await chargedTo(w, limited.account), before);
        w.clock.advanceSeconds(60);
        assert.equal((await screen(person('Hakam Shah'), limited.key)).res.status, 200);
      });

      it('429 DISTINCT_NAMES_LIMIT_REACHED past the daily cap; a name already screened today does not count again', async () => {
        const names = await realPartyNames(w, 4);
        assert.equal(names.length, 4);
        const capped = await fresh('names-day', { distinctScreenedNamesPerDay: 3 });
        assert.equal((await screen(person(names[0]!, { aliases: [names[1]!, names[2]!] }), capped.key)).res.status, 200);
        const before = await chargedTo(w, capped.account);
        const refused = await screen(person(names[3]!), capped.key);
        assert.equal(refused.res.status, 429, JSON.stringify(refused.body));
        assert.equal(refused.body.code, 'DISTINCT_NAMES_LIMIT_REACHED');
        const now = w.clock.now();
        const toMidnight = Math.ceil((Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1) - now.getTime()) / 1000);
        assert.equal(refused.res.headers.get('retry-after'), String(toMidnight));
        assert.equal(await chargedTo(w, capped.account), before);
        // The same names again, spelt another way, are free of the cap.
        assert.equal((await screen(person(`Shri ${names[1]!.toLowerCase()}`), capped.key)).res.status, 200);
        const mixed = await screen(person(names[0]!, { aliases: [names[3]!] }), capped.key);
        assert.equal(mixed.res.status, 429);
        w.clock.advanceSeconds(toMidnight);
        assert.equal((await screen(person(names[3]!), capped.key)).res.status, 200);
      });

      it('429 DISTINCT_NAMES_LIMIT_REACHED past the per-minute cap, with a Retry-After to the next minute', async () => {
        const names = await realPartyNames(w, 11);
        assert.equal(names.length, 11);
        // 100 a day gives 10 a minute.
        const capped = await fresh('names-minute', { distinctScreenedNamesPerDay: 100 });
        w.clock.advanceSeconds(60 - (w.clock.now().getUTCSeconds() % 60));
        assert.equal((await screen(person(names[0]!, { aliases: names.slice(1, 8) }), capped.key)).res.status, 200);
        assert.equal((await screen(person(names[8]!, { aliases: [names[9]!] }), capped.key)).res.status, 200);
        w.clock.advanceSeconds(15);
        const refused = await screen(person(names[10]!), capped.key);
        assert.equal(refused.res.status, 429);
        assert.equal(refused.body.code, 'DISTINCT_NAMES_LIMIT_REACHED');
        assert.equal(refused.res.headers.get('retry-after'), '45');
        assert.equal((await screen(person(names[0]!), capped.key)).res.status, 200);
        w.clock.advanceSeconds(45);
        assert.equal((await screen(person(names[10]!), capped.key)).res.status, 200);
      });

      it('a distinct-names store that cannot answer fails closed with 503; nothing charged', async () => {
        const broken: DistinctCounter = {
          add: () => Promise.reject(new Error('counter store down')),
          remove: () => Promise.reject(new Error('counter store down')),
        };
        const app = w.variant({ counter: broken });
        const capped = await fresh('store-down', { distinctScreenedNamesPerDay: 10 });
        const { res, body } = await post(app, capped.key, '/party/screen', person('Hakam Shah'));
        assert.equal(res.status, 503);
        assert.equal(body.code, 'ACCOUNT_STANDING_UNAVAILABLE');
        assert.equal(await balanceOf(w, capped.account), 100_000);
      });

      it('502 PARTY_SCREEN_SEARCH_DEGRADED with Retry-After when the search fails with no usable result; nothing charged or counted', async () => {
        const closed = await openPglite(undefined);
        await closed.close();
        const app = w.variant({ parties: new PostgresSearchIndex(closed.db) });
        const capped = await fresh('degraded', { distinctScreenedNamesPerDay: 1 });
        const { res, body } = await post(app, capped.key, '/party/screen', person('Hakam Shah'));
        assert.equal(res.status, 502, JSON.stringify(body));
        assert.equal(body.code, 'PARTY_SCREEN_SEARCH_DEGRADED');
        assert.ok(Number(res.headers.get('retry-after')) > 0);
        assert.equal(await balanceOf(w, capped.account), 100_000);
        assert.equal(await chargedTo(w, capped.account), 0);
        // The distinct name it took was handed back: another name still fits the cap of one.
        assert.equal((await screen(person('Hiralal Motilal Desarda'), capped.key)).res.status, 200);
        assert.ok(!app.logs.join('\n').includes('Hakam'), 'the failure log names the stage, never the name');
      });

      it('a failed alias search leaves the run incomplete: inconclusive when nothing matched, and not a genuine no match', async () => {
        const failing: PartySearchIndex = {
          searchParties: (request) =>
            request.name.startsWith('Zorawar') ? Promise.reject(new Error('shard down')) : w.index.searchParties(request),
        };
        const app = w.variant({ parties: failing });
        const u = await fresh('partial');
        const { body } = await post(
          app,
          u.key,
          '/party/screen',
          person('Quennell Xaviera Oberstein', { aliases: ['Zorawar Quillfeather'] }),
        );
        const report = reportOf(body);
        assert.deepEqual([report.coverage.namesSearched, report.coverage.namesFailed, report.summary.verdict], [2, 1, 'inconclusive']);
        assert.equal(await chargedTo(w, u.account), 0);
        const found = reportOf(
          (await post(app, u.key, '/party/screen', person('Hakam Shah', { aliases: ['Zorawar Quillfeather'], displayThreshold: 0 }))).body,
        );
        assert.equal(found.summary.verdict, 'possible_match');
        assert.equal(await chargedTo(w, u.account), 100);
      });
    });

    describe('idempotency', () => {
      it('replays the stored report verbatim, charging once; another body under the key is 409', async () => {
        const u = await fresh('idem');
        const headers = { 'Idempotency-Key': 'screen-0001' };
        const first = await screen(person('Hiralal Motilal Desarda'), u.key, headers);
        const again = await screen(person('Hiralal Motilal Desarda'), u.key, headers);
        assert.equal(again.res.headers.get('idempotency-replayed'), 'true');
        assert.deepEqual(again.body, first.body);
        assert.equal(await chargedTo(w, u.account), 100);
        const other = await screen(person('Hakam Shah'), u.key, headers);
        assert.deepEqual([other.res.status, other.body.code], [409, 'IDEMPOTENCY_KEY_REUSED']);
        const invalid = await screen(person('Hakam Shah'), u.key, { 'Idempotency-Key': 'not valid!' });
        assert.deepEqual([invalid.res.status, invalid.body.code], [400, 'IDEMPOTENCY_KEY_INVALID']);
      });

      it('never stores an error: a 402 under a key runs again once the balance covers it', async () => {
        const u = await fresh('idem-402', {}, 50);
        const headers = { 'Idempotency-Key': 'screen-402' };
        assert.equal((await screen(person('Hakam Shah'), u.key, headers)).res.status, 402);
        await w.t.application.credits.grant(u.account, { amount: 130, source: 'grant' });
        const retried = await screen(person('Hakam Shah'), u.key, headers);
        assert.equal(retried.res.status, 200);
        assert.equal(retried.res.headers.get('idempotency-replayed'), null);
        assert.equal(await chargedTo(w, u.account), 100);
      });
    });

    describe('privacy', () => {
      const sent = {
        name: 'Ozymandias Quillfeather Brightwater',
        aliases: ['Ozzy Brightwater Quill'],
        identifiers: { pan: 'AAPPV8261K', gstin: '29AAGCB7383J1Z4' },
        address: { city: 'Xanaduville', state: 'Karnataka', stateCode: 'KA' },
        knownPersons: ['Peregrine Thistlewood'],
      };
      const secrets = ['Ozymandias', 'Brightwater', 'AAPPV8261K', '29AAGCB7383J1Z4', 'Xanaduville', 'Thistlewood'];
      /** What the audit row of a single check sent as `sent` with this purpose must carry, and nothing more. */
      const detailOf = (purpose: string) => ({
        purpose,
        entityType: 'person',
        nameLength: sent.name.length,
        aliasCount: 1,
        identifierCount: 2,
        knownPersonCount: 1,
        addressGiven: true,
      });

      it('the name, aliases, identifiers, address and known persons never reach the logs, audit rows or events', async () => {
        const u = await fresh('privacy');
        const calls = [
          await screen({ ...sent, entityType: 'person', purpose: 'compliance', adjudicate: true }, u.key, {
            'Idempotency-Key': 'privacy-1',
          }),
          await screen({ ...sent, entityType: 'person', purpose: 'compliance' }, u.key),
          await screen({ ...sent, entityType: 'person' }, u.key),
          await screen({ ...sent, entityType: 'person', purpose: 'kyc', since: '2023-02-29' }, u.key),
        ];
        assert.deepEqual(
          calls.map((c) => c.res.status),
          [200, 200, 400, 400],
        );
        for (const c of calls) for (const s of secrets) assert.ok(!JSON.stringify(c.body).includes(s), `the answer repeats ${s}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
        const logs = w.t.logs.join('\n');
        const events = await w.database.db.selectFrom('events').select(['type', 'data', 'metadata']).execute();
        const stored = JSON.stringify(events);
        const audit = JSON.stringify(events.filter((e) => e.type === 'ApiRequestRecorded'));
        assert.ok(audit.includes('/party/screen'), 'the calls were audited');
        // What is recorded instead: purpose, entity type, lengths and counts.
        const recorded = w.t.logs.filter((l) => l.includes('"litigation check"')).map((l) => (JSON.parse(l) as { check: Json }).check);
        assert.ok(
          recorded.some(
            (r) =>
              r.purpose === 'compliance' &&
              JSON.stringify(r.items) ===
                JSON.stringify([
                  {
                    entityType: 'person',
                    nameLength: sent.name.length,
                    aliases: 1,
                    identifiers: 2,
                    knownPersons: 1,
                    address: true,
                    court: false,
                    since: false,
                    adjudicate: true,
                  },
                ]),
          ),
          JSON.stringify(recorded),
        );
        for (const s of secrets) {
          assert.ok(!logs.includes(s), `logs hold ${s}`);
          assert.ok(!stored.includes(s), `events hold ${s}`);
        }
        // The audit events of the two answered calls carry the purpose and the counts.
        const mine = events
          .filter((e) => e.type === 'ApiRequestRecorded')
          .map((e) => e.data as Json)
          .filter((d) => d.userId === u.userId && d.status === 200);
        assert.deepEqual(
          mine.map((d) => d.detail),
          [detailOf('compliance'), detailOf('compliance')],
        );
      });

      it("the audit trail in ClickHouse carries purpose and counts, shown in GET /audit on the caller's own calls only, and no name", async () => {
        const { fixture } = w;
        const batch = await post(w.t, fixture.keys.member, '/party/screen/batch', {
          purpose: 'bgv',
          entityType: 'person',
          items: [
            { clientRef: 'a', ...sent },
            { clientRef: 'b', name: sent.knownPersons[0], entityType: 'company' },
            { clientRef: 'c', name: 'x' },
          ],
        });
        assert.equal(batch.res.status, 200, JSON.stringify(batch.body));
        const single = await screen({ ...sent, entityType: 'person', purpose: 'bgv' }, fixture.keys.member);
        assert.equal(single.res.status, 200);
        const store = await sharedAnalytics();
        // Both databases feed the one ClickHouse and number their events alike: keep their batch tokens apart.
        const ofThisDatabase: AnalyticsStore = {
          command: (sql) => store.command(sql),
          query: (sql, params) => store.query(sql, params),
          ping: () => store.ping(),
          close: async () => undefined,
          insert: (table, rows, options = {}) =>
            store.insert(table, rows, options.dedupToken === undefined ? {} : { dedupToken: `${factory.name}-${options.dedupToken}` }),
        };
        await new ProjectorRunner(w.database.db, eventStoreOf(w.database.db), auditToClickHouse(ofThisDatabase), {
          now: () => w.clock.now(),
        }).catchUp();

        const rows = await store.query<Json & { endpoint: string; detail: string; user_id: string }>('SELECT * FROM audit_events FINAL');
        const stored = JSON.stringify(rows);
        for (const s of secrets) assert.ok(!stored.includes(s), `ClickHouse holds ${s}`);
        const memberRows = rows.filter((r) => r.user_id === fixture.users.member);
        assert.deepEqual(
          memberRows.filter((r) => r.endpoint === '/party/screen').map((r) => JSON.parse(r.detail) as unknown),
          [detailOf('bgv')],
        );
        assert.deepEqual(
          memberRows.filter((r) => r.endpoint === '/party/screen/batch').map((r) => JSON.parse(r.detail) as unknown),
          [
            {
              purpose: 'bgv',
              entityType: 'person',
              itemCount: 3,
              invalidItemCount: 1,
              personCount: 1,
              companyCount: 1,
              aliasCount: 1,
              identifierCount: 2,
              knownPersonCount: 1,
            },
          ],
        );

        const withAudit = buildTestApp({ db: w.database.db, clock: w.clock, index: w.index, analytics: store });
        const auditOf = async (key: string) => {
          const res = await withAudit.app.request(`${BASE}/audit?userId=${fixture.users.member}&limit=200`, {
            headers: { 'X-API-Key': key },
          });
          assert.equal(res.status, 200);
          const body = (await res.json()) as { data: { rows: { endpoint: string; detail: Json | null }[] } };
          return body.data.rows.filter((r) => r.endpoint.startsWith('/party/screen'));
        };
        const own = await auditOf(fixture.keys.member);
        assert.equal(own.length, 2);
        assert.deepEqual(own.map((r) => r.detail?.purpose).sort(), ['bgv', 'bgv']);
        // The organisation's admin sees the member's calls, not why they were made.
        const seenByAdmin = await auditOf(fixture.keys.active);
        assert.equal(seenByAdmin.length, 2);
        assert.deepEqual(
          seenByAdmin.map((r) => r.detail),
          [null, null],
        );
        for (const s of secrets) assert.ok(!JSON.stringify(own).includes(s), `GET /audit shows ${s}`);
      });
    });

    describe('the Free tier', () => {
      it('403 API_TIER_NOT_ALLOWED with an upgradeUrl for adjudicate; 10 checks a month, then 403 PARTY_SCREEN_LIMIT_REACHED; the limit clamped to the page size', async () => {
        const free = await w.user('free', { tier: 'free', credits: 10_000 });
        const call = (body: unknown) => post(w.open, free.key, '/party/screen', body);
        const adjudicate = await call(person('Hakam Shah', { adjudicate: true }));
        assert.deepEqual(
          [adjudicate.res.status, adjudicate.body.code, adjudicate.body.upgradeUrl],
          [403, 'API_TIER_NOT_ALLOWED', TEST_UPGRADE_URL],
        );
        assert.equal(await chargedTo(w, free.userId), 0);
        for (let i = 0; i < 10; i += 1) {
          w.clock.advanceSeconds(61);
          const ok = await call(person('Hakam Shah'));
          assert.equal(ok.res.status, 200, `check ${String(i + 1)}: ${JSON.stringify(ok.body)}`);
          if (i === 0) assert.deepEqual([reportOf(ok.body).coverage.limit, reportOf(ok.body).coverage.limitClamped], [20, true]);
        }
        const spent = await chargedTo(w, free.userId);
        assert.equal(spent, 1000);
        w.clock.advanceSeconds(61);
        const refused = await call(person('Hakam Shah'));
        assert.deepEqual([refused.res.status, refused.body.code], [403, 'PARTY_SCREEN_LIMIT_REACHED']);
        assert.equal(await chargedTo(w, free.userId), spent);
        const now = w.clock.now();
        w.clock.set(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1, 0, 5)));
        assert.equal((await call(person('Hakam Shah'))).res.status, 200);
      });
    });
  });
