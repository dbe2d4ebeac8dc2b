/**
 * The OpenAI-compatible analyser over real HTTP. A remote model cannot run here, so this
 * file starts a FAKE OF THE REMOTE PROVIDER: a real node:http server on 127.0.0.1 that
 * speaks the chat-completions wire format (POST /v1/chat/completions, Bearer key,
 * `response_format: json_schema`, answer in `choices[0].message.content`). It plays the
 * model by quoting back the numbered paragraphs it was sent, so the test shows that the
 * numbering the model sees is the numbering the analysis refers to. The judgment is a real
 * one from the corpus (read at test time). Covered: success, timeout, caller abort, 5xx,
 * 4xx, malformed bodies, JSON that is not JSON or not the schema, and paragraph references
 * out of range, including beyond a truncated input.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { OpenAiCaseAnalyser } from '../../src/adapters/llm/openai-case-analyser.ts';
import {
  LlmBadOutputError,
  LlmRejectedError,
  LlmTimeoutError,
  LlmUnavailableError,
  OpenAiChat,
} from '../../src/adapters/llm/openai-chat.ts';
import { ANALYSIS_DISCLAIMER } from '../../src/domain/analysis/case-analysis.ts';
import { paragraphsOf } from '../../src/domain/analysis/paragraphs.ts';
import type { AnalysisSource } from '../../src/ports/case-analyser.ts';

const CORPUS_DIR = process.env.CORPUS_DIR ?? resolve(import.meta.dirname, '../../../shared/data');
const row = readFileSync(join(CORPUS_DIR, 'sc-judgments-text-inabs-sample/in_abs_sample.jsonl'), 'utf8')
  .split('\n')
  .map((l) => (l.trim() === '' ? null : (JSON.parse(l) as { doc_id: string; judgement: string })))
  .find((r) => r?.judgement.includes('powers of a Custodian of Evacuee Property'));
assert.ok(row, 'the corpus judgment used here is missing');
const SOURCE: AnalysisSource = {
  caseId: `sc-inabs-${row.doc_id}`,
  caseNumber: 'Appeal No. 205 of 1954',
  title: null,
  courtName: 'Supreme Court of India',
  decisionDate: null,
  text: row.judgement,
};
const PARAGRAPHS = paragraphsOf(SOURCE.text);
const API_KEY = 'test-key-not-a-secret';
const ANSWERING_MODEL = 'fake-model-2024-01-01';

/** The paragraphs "[n] text" the fake model was sent. */
function sentParagraphs(user: string): Map<number, string> {
  return new Map([...user.matchAll(/^\[(\d+)\] (.*)$/gm)].map((m) => [Number(m[1]), m[2]!]));
}

/** A schema-valid answer quoting the paragraphs it was sent; `at` overrides the paragraph numbers cited. */
function answerFrom(sent: Map<number, string>, at?: number): Record<string, unknown> {
  const numbers = [...sent.keys()];
  const pick = (i: number): number => at ?? numbers[Math.min(i, numbers.length - 1)]!;
  const quote = (n: number): string => sent.get(n) ?? '';
  const item = (i: number) => ({ text: quote(pick(i)), paragraphs: [pick(i), pick(i)] });
  return {
    summary: quote(pick(6)),
    summaryParagraphs: [pick(6)],
    detailedSummary: `${quote(pick(7))} ${quote(pick(8))}`,
    detailedSummaryParagraphs: [pick(8), pick(7)],
    headnote: quote(pick(9)),
    headnoteParagraphs: [pick(9)],
    keyFacts: [item(7), item(8)],
    issues: [{ question: quote(pick(10)), holding: null, paragraphs: [pick(10)] }],
    courtsReasoning: [item(11)],
    citedCases: {
      followed: [],
      distinguished: [],
      overruled: [],
      referred: [{ caseName: null, citations: ['AIR 1973 SC 1461', 'an unparseable reference'], paragraphs: [pick(12)] }],
    },
    practiceAreas: ['Property & Land', 'Property & Land'],
    legalPrinciples: [item(12)],
  };
}

/** What OpenAI's strict mode refuses: an object not closed, or with a property not required; a $schema key. */
function strictModeViolations(schema: unknown, path = '$'): string[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const node = schema as Record<string, unknown>;
  const found: string[] = [];
  if ('$schema' in node) found.push(`${path}: $schema`);
  if (node.type === 'object') {
    const keys = Object.keys(node.properties ?? {});
    if (node.additionalProperties !== false) found.push(`${path}: additionalProperties`);
    const required = (node.required ?? []) as string[];
    for (const key of keys) if (!required.includes(key)) found.push(`${path}.${key}: not required`);
  }
  for (const [key, value] of Object.entries(node)) found.push(...strictModeViolations(value, `${path}.${key}`));
  return found;
}

type Behaviour =
  | { kind: 'answer'; at?: number }
  | { kind: 'status'; status: number }
  | { kind: 'hang' }
  | { kind: 'body'; body: string }
  | { kind: 'content'; content: string };

let behaviour: Behaviour = { kind: 'answer' };
const requests: { url: string; authorization: string | undefined; body: Record<string, unknown> }[] = [];
const hanging = new Set<ServerResponse>();
let server: Server;
let baseUrl: string;

function completion(content: string): string {
  return JSON.stringify({
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    model: ANSWERING_MODEL,
    choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }],
  });
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
  requests.push({ url: req.url ?? '', authorization: req.headers.authorization, body });
  const messages = body.messages as { role: string; content: string }[];
  const user = messages.find((m) => m.role === 'user')?.content ?? '';
  switch (behaviour.kind) {
    case 'answer':
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(completion(JSON.stringify(answerFrom(sentParagraphs(user), behaviour.at))));
      return;
    case 'status':
      res
        .writeHead(behaviour.status, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: 'fake provider error' } }));
      return;
    case 'hang':
      hanging.add(res);
      return;
    case 'body':
      res.writeHead(200, { 'content-type': 'application/json' }).end(behaviour.body);
      return;
    case 'content':
      res.writeHead(200, { 'content-type': 'application/json' }).end(completion(behaviour.content));
      return;
  }
}

before(async () => {
  server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  baseUrl = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/v1`;
});

after(async () => {
  for (const res of hanging) res.destroy();
  server.closeAllConnections();
  await new Promise<void>((done) => server.close(() => done()));
});

beforeEach(() => {
  behaviour = { kind: 'answer' };
  requests.length = 0;
});

const analyser = (options: { timeoutMs?: number; maxInputChars?: number } = {}): OpenAiCaseAnalyser =>
  new OpenAiCaseAnalyser(new OpenAiChat({ baseUrl, model: 'fake-model', apiKey: API_KEY, timeoutMs: options.timeoutMs ?? 5000 }), {
    maxInputChars: options.maxInputChars ?? 300_000,
  });

describe('OpenAI-compatible case analyser against a fake provider on loopback', () => {
  it('sends the numbered paragraphs under a strict JSON schema and maps the answer to a CaseAnalysis', async () => {
    const analysis = await analyser().analyse(SOURCE);

    assert.equal(requests.length, 1);
    const [request] = requests;
    assert.equal(request!.url, '/v1/chat/completions');
    assert.equal(request!.authorization, `Bearer ${API_KEY}`);
    assert.equal(request!.body.model, 'fake-model');
    const format = request!.body.response_format as {
      type: string;
      json_schema: { name: string; strict: boolean; schema: { required: string[] } };
    };
    assert.equal(format.type, 'json_schema');
    assert.equal(format.json_schema.strict, true);
    assert.ok(format.json_schema.schema.required.includes('citedCases'));
    assert.deepEqual(strictModeViolations(format.json_schema.schema), []);
    const user = (request!.body.messages as { role: string; content: string }[]).find((m) => m.role === 'user')!.content;
    assert.match(user, /Case number: Appeal No\. 205 of 1954/);
    assert.equal(sentParagraphs(user).size, PARAGRAPHS.length);

    // The fake quoted paragraph n for every reference to n: the numbering lines up with paragraphsOf.
    for (const fact of analysis.keyFacts) {
      assert.equal(fact.caseId, SOURCE.caseId);
      assert.equal(fact.paragraphs.length, 1, 'duplicate references are merged');
      assert.equal(fact.text, PARAGRAPHS[fact.paragraphs[0]! - 1]);
    }
    assert.deepEqual(analysis.detailedSummarySources, [{ caseId: SOURCE.caseId, paragraphs: [8, 9] }]);
    assert.deepEqual(
      analysis.citedCases.referred[0]!.citations.map((c) => c.printed),
      ['AIR 1973 SC 1461'],
    );
    assert.deepEqual(analysis.practiceAreas, ['Property & Land']);
    assert.equal(analysis.model, ANSWERING_MODEL);
    assert.equal(analysis.disclaimer, ANALYSIS_DISCLAIMER);
    assert.equal(analysis.precedentValue.level, 'binding');
  });

  it('gives up after its timeout with LlmTimeoutError', async () => {
    behaviour = { kind: 'hang' };
    const started = performance.now();
    await assert.rejects(analyser({ timeoutMs: 300 }).analyse(SOURCE), LlmTimeoutError);
    assert.ok(performance.now() - started < 3000);
  });

  it("stops when the caller aborts, as the caller's abort rather than a timeout", async () => {
    behaviour = { kind: 'hang' };
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    await assert.rejects(
      analyser().analyse(SOURCE, controller.signal),
      (error: unknown) => !(error instanceof LlmTimeoutError) && (error as Error).name === 'AbortError',
    );
  });

  it('reports a 5xx or 429 as LlmUnavailableError, worth retrying', async () => {
    for (const status of [500, 503, 429]) {
      behaviour = { kind: 'status', status };
      await assert.rejects(analyser().analyse(SOURCE), (error: unknown) => error instanceof LlmUnavailableError && error.status === status);
    }
  });

  it('reports another 4xx as LlmRejectedError, not worth retrying', async () => {
    behaviour = { kind: 'status', status: 401 };
    await assert.rejects(analyser().analyse(SOURCE), (error: unknown) => error instanceof LlmRejectedError && error.status === 401);
  });

  it('refuses a body that is not a chat completion', async () => {
    behaviour = { kind: 'body', body: '<html>gateway</html>' };
    await assert.rejects(analyser().analyse(SOURCE), LlmBadOutputError);
    behaviour = { kind: 'body', body: JSON.stringify({ choices: [] }) };
    await assert.rejects(analyser().analyse(SOURCE), LlmBadOutputError);
  });

  it('refuses content that is not JSON, or JSON not of the analysis schema', async () => {
    behaviour = { kind: 'content', content: '{"summary": "cut off' };
    await assert.rejects(analyser().analyse(SOURCE), LlmBadOutputError);
    behaviour = { kind: 'content', content: JSON.stringify({ summary: 'only a summary' }) };
    await assert.rejects(analyser().analyse(SOURCE), /does not match the analysis schema/);
  });

  it('refuses paragraph references outside the judgment', async () => {
    behaviour = { kind: 'answer', at: PARAGRAPHS.length + 1 };
    await assert.rejects(
      analyser().analyse(SOURCE),
      (error: unknown) => error instanceof LlmBadOutputError && error.message.includes(`paragraph ${String(PARAGRAPHS.length + 1)}`),
    );
    behaviour = { kind: 'answer', at: 0 };
    await assert.rejects(analyser().analyse(SOURCE), LlmBadOutputError);
    behaviour = { kind: 'answer', at: 2.5 };
    await assert.rejects(analyser().analyse(SOURCE), LlmBadOutputError);
  });

  it('refuses references to paragraphs left out of a truncated input', async () => {
    const budget = PARAGRAPHS.slice(0, 10).reduce((n, p, i) => n + `[${String(i + 1)}] ${p}`.length + 1, 0);
    behaviour = { kind: 'answer' };
    const short = await analyser({ maxInputChars: budget }).analyse(SOURCE);
    const user = (requests.at(-1)!.body.messages as { role: string; content: string }[]).find((m) => m.role === 'user')!.content;
    assert.equal(sentParagraphs(user).size, 10);
    assert.match(user, new RegExp(`Paragraphs \\[11\\] to \\[${String(PARAGRAPHS.length)}\\] are left out`));
    assert.ok(short.keyFacts.every((f) => f.paragraphs.every((p) => p <= 10)));
    behaviour = { kind: 'answer', at: 11 };
    await assert.rejects(analyser({ maxInputChars: budget }).analyse(SOURCE), /paragraphs 1 to 10/);
  });
});
