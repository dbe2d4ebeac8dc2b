/**
 * The OpenAI-compatible embedder against a fake embeddings service: a local HTTP server in
 * this test that speaks the OpenAI embeddings API shape and answers with deterministic
 * vectors (no model runs behind it). Covers batching, the Bearer key, retry with backoff
 * on 429 and 5xx, the per-request timeout, and malformed answers.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { OpenAiEmbedder } from '../../src/adapters/embeddings/openai-embedder.ts';
import { EmbedderTimeoutError, EmbedderUnavailableError } from '../../src/ports/embedder.ts';

type Behaviour = (req: { model: string; input: string[]; auth: string | undefined }, res: ServerResponse) => void;

const DIMS = 4;
const vectorOf = (text: string) => [text.length, 1, 2, 3];
const ok: Behaviour = (req, res) => {
  res.setHeader('content-type', 'application/json');
  res.end(
    JSON.stringify({
      object: 'list',
      model: req.model,
      data: req.input.map((t, index) => ({ object: 'embedding', index, embedding: vectorOf(t) })).reverse(),
    }),
  );
};

describe('OpenAI-compatible embedder against a fake embeddings service', () => {
  let behaviour: Behaviour = ok;
  const requests: { input: string[]; auth: string | undefined }[] = [];
  let url = '';
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const parsed = JSON.parse(body) as { model: string; input: string[] };
      const request = { ...parsed, auth: req.headers.authorization };
      requests.push(request);
      behaviour(request, res);
    });
  });
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/v1/`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });
  const embedder = (extra: Partial<ConstructorParameters<typeof OpenAiEmbedder>[0]> = {}) =>
    new OpenAiEmbedder({
      url,
      model: 'fake-model',
      dimensions: DIMS,
      apiKey: 'k-123',
      batchSize: 3,
      backoffMs: 5,
      timeoutMs: 500,
      ...extra,
    });

  it('sends batches with the model and key, and returns vectors in input order', async () => {
    behaviour = ok;
    requests.length = 0;
    const texts = ['a', 'bb', 'ccc', 'dddd', 'eeeee', 'ffffff', 'g'];
    assert.deepEqual(await embedder().embed(texts), texts.map(vectorOf));
    assert.deepEqual(
      requests.map((r) => r.input.length),
      [3, 3, 1],
    );
    assert.ok(requests.every((r) => r.auth === 'Bearer k-123'));
  });

  it('retries 429 and 5xx with backoff, then succeeds', async () => {
    let calls = 0;
    behaviour = (req, res) => {
      calls += 1;
      if (calls === 1) {
        res.statusCode = 429;
        res.setHeader('retry-after', '0');
        res.end('slow down');
      } else if (calls === 2) {
        res.statusCode = 503;
        res.end();
      } else ok(req, res);
    };
    assert.deepEqual(await embedder().embed(['x']), [vectorOf('x')]);
    assert.equal(calls, 3);
  });

  it('gives up after the retries with EmbedderUnavailableError', async () => {
    let calls = 0;
    behaviour = (_req, res) => {
      calls += 1;
      res.statusCode = 500;
      res.end();
    };
    await assert.rejects(embedder({ retries: 2 }).embed(['x']), (e) => e instanceof EmbedderUnavailableError && /HTTP 500/.test(e.message));
    assert.equal(calls, 3);
  });

  it('does not retry a 401', async () => {
    let calls = 0;
    behaviour = (_req, res) => {
      calls += 1;
      res.statusCode = 401;
      res.end();
    };
    await assert.rejects(embedder().embed(['x']), EmbedderUnavailableError);
    assert.equal(calls, 1);
  });

  it('times out a request that gets no answer with EmbedderTimeoutError', async () => {
    behaviour = () => undefined;
    const started = performance.now();
    await assert.rejects(embedder({ timeoutMs: 150 }).embed(['x']), EmbedderTimeoutError);
    assert.ok(performance.now() - started < 1000);
  });

  it('refuses malformed answers: not JSON, missing vectors, wrong dimension', async () => {
    for (const answer of ['not json', JSON.stringify({ data: [] }), JSON.stringify({ data: [{ index: 0, embedding: [1, 2] }] })]) {
      behaviour = (_req, res) => res.end(answer);
      await assert.rejects(embedder().embed(['x']), EmbedderUnavailableError, answer);
    }
  });

  it('reports an unreachable service as unavailable', async () => {
    await assert.rejects(
      new OpenAiEmbedder({ url: 'http://127.0.0.1:9/v1', model: 'm', dimensions: DIMS, retries: 1, backoffMs: 1 }).embed(['x']),
      (e) => e instanceof EmbedderUnavailableError && /unreachable/.test(e.message),
    );
  });
});
