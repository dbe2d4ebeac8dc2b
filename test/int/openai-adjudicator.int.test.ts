/**
 * The OpenAI-compatible adjudicator against a fake chat-completions service (a local HTTP
 * server in this test that speaks the API shape; no model runs behind it): what it is
 * sent (a strict JSON schema, the screened entity, windows of the judgment around the
 * name rather than the whole text), how its answers are checked, and, through the real
 * app over the corpus slice, that the +80 surcharge is charged only when the pass
 * answered, and that a failing model leaves the calibrated result and the logs free of
 * what was screened.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { OpenAiAdjudicator } from '../../src/adapters/llm/openai-adjudicator.ts';
import { OpenAiChat } from '../../src/adapters/llm/openai-chat.ts';
import type { CandidateRecord } from '../../src/domain/screening/features.ts';
import { AdjudicatorUnavailableError, type AdjudicationRequest } from '../../src/ports/match-adjudicator.ts';
import { buildTestApp } from '../support/app.ts';
import { databases } from '../support/databases.ts';
import { chargedTo, openScreeningWorld, post, type ScreeningWorld } from '../support/screening-setup.ts';

type Answer = (body: Record<string, unknown>, res: ServerResponse) => void;

const completion =
  (content: unknown): Answer =>
  (_body, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(
      JSON.stringify({
        model: 'fake-adjudicator-2026',
        choices: [{ finish_reason: 'stop', message: { content: JSON.stringify(content) } }],
      }),
    );
  };

describe('the OpenAI-compatible adjudicator against a fake chat service', { timeout: 300_000 }, () => {
  let answer: Answer = completion({ probability: 0.2, reasons: ['the record names another father'] });
  const seen: Record<string, unknown>[] = [];
  let baseUrl = '';
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      const body = JSON.parse(text) as Record<string, unknown>;
      seen.push(body);
      answer(body, res);
    });
  });
  const adjudicator = () => new OpenAiAdjudicator(new OpenAiChat({ baseUrl, model: 'fake-adjudicator', timeoutMs: 5_000 }));

  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/v1`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  // A constructed record (no real case): a long judgment naming the party once, in the middle.
  const filler = 'The tribunal recorded its reasons at length. '.repeat(400);
  const record: CandidateRecord = {
    caseId: 'constructed-2',
    caseNumber: 'C.A. 2/2021',
    courtName: 'Constructed Court',
    title: 'RAMESH KUMAR VERMA v. STATE',
    petitioners: ['RAMESH KUMAR VERMA'],
    respondents: ['STATE'],
    text: `${filler}The appellant Ramesh Kumar Verma, son of Mahesh Prasad, was a clerk. ${filler}`,
    decisionDate: '2021-03-04',
    filingDate: null,
  };
  const request: AdjudicationRequest = {
    query: { name: 'Ramesh Kumar Verma', aliases: [], entityType: 'person', identifiers: {}, knownPersons: ['Suresh Chand Verma'] },
    candidate: record,
    matchedParty: { field: 'petitioners[0]', text: 'RAMESH KUMAR VERMA' },
    probability: 0.7,
    signals: [],
  };

  it('asks under a strict JSON schema with the screened entity and a window of the text around the name', async () => {
    answer = completion({ probability: 0.2, reasons: ['the record names another father'] });
    const verdict = await adjudicator().adjudicate(request);
    assert.deepEqual(verdict, { probability: 0.2, reasons: ['the record names another father'] });
    const sent = seen.at(-1) as {
      model: string;
      response_format: { type: string; json_schema: { name: string; strict: boolean } };
      messages: { content: string }[];
    };
    assert.equal(sent.model, 'fake-adjudicator');
    assert.deepEqual(
      [sent.response_format.type, sent.response_format.json_schema.name, sent.response_format.json_schema.strict],
      ['json_schema', 'match_adjudication', true],
    );
    const user = sent.messages.at(-1)?.content ?? '';
    assert.match(user, /Suresh Chand Verma/);
    assert.match(user, /son of Mahesh Prasad/);
    assert.ok(user.length < 6_000, `sent ${String(user.length)} characters, not a window`);
  });

  it('refuses an answer outside its schema, and a failing service, without quoting either', async () => {
    answer = completion({ probability: 1.5, reasons: ['sure'] });
    await assert.rejects(adjudicator().adjudicate(request), AdjudicatorUnavailableError);
    answer = completion({ probability: 0.5, reasons: [] });
    await assert.rejects(adjudicator().adjudicate(request), AdjudicatorUnavailableError);
    answer = (body, res) => {
      res.statusCode = 500;
      res.end(JSON.stringify(body));
    };
    await assert.rejects(adjudicator().adjudicate(request), (error: unknown) => {
      assert.ok(error instanceof AdjudicatorUnavailableError);
      assert.ok(!error.message.includes('Ramesh'), error.message);
      return true;
    });
  });

  describe('through the app', () => {
    let w: ScreeningWorld;
    before(async () => {
      w = await openScreeningWorld(databases[0]!);
    });
    after(async () => w.close());

    it('charges the +80 only when the pass answered; a failing model leaves the calibrated result and no trace in the logs', async () => {
      const t = buildTestApp({ db: w.database.db, clock: w.clock, index: w.index, adjudicator: adjudicator() });
      const u = await w.user('llm', { credits: 10_000 });
      const body = { name: 'Hiralal Motilal Desarda', entityType: 'person', purpose: 'kyc', adjudicate: true, displayThreshold: 0 };
      answer = completion({ probability: 0.3, reasons: ['nothing in the record beyond the name'] });
      const ran = await post(t, u.key, '/party/screen', body);
      assert.equal(ran.res.status, 200, JSON.stringify(ran.body));
      const report = ran.body.data as {
        summary: { adjudicated: boolean };
        matches: { decidedBy: string; probability: number; adjudication: { adjudicator: string } | null }[];
      };
      assert.equal(report.summary.adjudicated, true);
      const adjudicated = report.matches.filter((m) => m.adjudication !== null);
      assert.ok(adjudicated.length > 0);
      for (const m of adjudicated)
        assert.deepEqual([m.decidedBy, m.adjudication?.adjudicator, m.probability], ['adjudication', 'fake-adjudicator', 0.3]);
      assert.equal(await chargedTo(w, u.userId), 180);

      answer = (_body, res) => {
        res.statusCode = 503;
        res.end('overloaded');
      };
      const failed = await post(t, u.key, '/party/screen', body);
      assert.equal(failed.res.status, 200);
      const calibrated = failed.body.data as { summary: { adjudicated: boolean }; matches: { decidedBy: string }[] };
      assert.equal(calibrated.summary.adjudicated, false);
      assert.ok(calibrated.matches.every((m) => m.decidedBy !== 'adjudication'));
      assert.equal(await chargedTo(w, u.userId), 280);
      const logs = t.logs.join('\n');
      assert.match(logs, /litigation check stage failed/);
      assert.ok(!/Hiralal|Desarda/i.test(logs));
    });
  });
});
