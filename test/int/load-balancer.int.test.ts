/**
 * The test load balancer itself (test/support/load-balancer.ts), in front of two tiny
 * HTTP backends on loopback: TLS verified against its CA, other CAs and plain HTTP
 * refused, requests spread round robin, the client's address and scheme relayed, a
 * backend that stops answering its health check taken out, and a reload to other backends.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { httpsFetch, startLoadBalancer, type LoadBalancer } from '../support/load-balancer.ts';

interface Seen {
  readonly backend: string;
  readonly forwardedFor: string | undefined;
  readonly forwardedProto: string | undefined;
  readonly socket: string | undefined;
}

interface TinyBackend {
  readonly server: Server;
  readonly port: number;
  healthy: boolean;
}

async function tinyBackend(name: string): Promise<TinyBackend> {
  const backend = { healthy: true } as TinyBackend & { port: number };
  const server = createServer((req: IncomingMessage, res) => {
    if (req.url === '/health') {
      res.writeHead(backend.healthy ? 200 : 503).end();
      return;
    }
    const seen: Seen = {
      backend: name,
      forwardedFor: req.headers['x-forwarded-for'] as string | undefined,
      forwardedProto: req.headers['x-forwarded-proto'] as string | undefined,
      socket: req.socket.remoteAddress,
    };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(seen));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  return Object.assign(backend, { server, port: typeof address === 'object' && address ? address.port : 0 });
}

const close = (server: Server) => new Promise<void>((r) => server.close(() => r()));

/** A CA of its own, not the proxy's. */
function otherCa(): string {
  const dir = mkdtempSync(join(tmpdir(), 'court-records-other-ca-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=someone else',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'ca.pem'),
      ],
      { stdio: 'ignore' },
    );
    return readFileSync(join(dir, 'ca.pem'), 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function seenThrough(lb: LoadBalancer, init: Parameters<typeof httpsFetch>[2] = {}): Promise<Seen> {
  const res = await httpsFetch(lb, '/whoami', init);
  assert.equal(res.status, 200);
  return (await res.json()) as Seen;
}

describe('test load balancer (HAProxy terminating TLS)', () => {
  let a: TinyBackend;
  let b: TinyBackend;
  let lb: LoadBalancer;
  let strangerCa: string;
  before(async () => {
    // Made first: a key generation blocks this process, whose backends would then miss health checks.
    strangerCa = otherCa();
    a = await tinyBackend('a');
    b = await tinyBackend('b');
    lb = await startLoadBalancer({ backends: [a, b].map((t) => ({ host: '127.0.0.1', port: t.port })), healthPath: '/health' });
  });
  after(async () => {
    await lb.stop();
    await Promise.all([a, b].map((t) => close(t.server)));
  });

  it('answers over HTTPS with a certificate its CA signed for 127.0.0.1', async () => {
    assert.match(lb.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(lb.url, `https://127.0.0.1:${lb.port}`);
    assert.equal(readFileSync(lb.caPath, 'utf8'), lb.ca);
    const seen = await seenThrough(lb);
    assert.ok(['a', 'b'].includes(seen.backend));
  });

  it('is refused by a client that trusts another CA', async () => {
    await assert.rejects(httpsFetch(lb, '/whoami', { ca: strangerCa }), (error: NodeJS.ErrnoException) => {
      assert.match(error.code ?? '', /SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/);
      return true;
    });
  });

  it('refuses plain HTTP on its port', async () => {
    const answered = await fetch(`http://127.0.0.1:${lb.port}/whoami`).then(
      (res) => res.status,
      () => 'refused',
    );
    // HAProxy may answer the failed handshake's garbage with nothing or a 400; never with a backend.
    assert.ok(answered === 'refused' || answered === 400, `plain HTTP got ${answered}`);
  });

  it('spreads requests round robin over both backends', async () => {
    await lb.waitUntilAllUp();
    const order: string[] = [];
    const before = (await lb.backendStates()).map((s) => s.served);
    for (let i = 0; i < 6; i += 1) order.push((await seenThrough(lb)).backend);
    for (let i = 1; i < order.length; i += 1) assert.notEqual(order[i], order[i - 1], `not alternating: ${order.join(',')}`);
    // HAProxy counts a request when its stream closes, a moment after the answer arrives.
    await until(lb, (states) => states.every((s, i) => s.served - before[i]! === 3));
  });

  it('relays the client address (appended after any the client sent) and https as the scheme', async () => {
    const direct = await seenThrough(lb, { localAddress: '127.0.0.3' });
    assert.equal(direct.forwardedFor, '127.0.0.3');
    assert.equal(direct.forwardedProto, 'https');
    assert.equal(direct.socket, '127.0.0.1');
    const forged = await seenThrough(lb, {
      localAddress: '127.0.0.4',
      headers: { 'x-forwarded-for': '203.0.113.9', 'x-forwarded-proto': 'http' },
    });
    assert.equal(forged.forwardedFor, '203.0.113.9, 127.0.0.4');
    assert.equal(forged.forwardedProto, 'https');
  });

  it('takes a backend failing its health check out of the rotation, and back', async () => {
    a.healthy = false;
    await until(lb, (states) => states.find((s) => s.name === 'backend-0')?.status === 'DOWN');
    for (let i = 0; i < 4; i += 1) assert.equal((await seenThrough(lb)).backend, 'b');
    a.healthy = true;
    await lb.waitUntilAllUp();
  });

  it('moves to other backends on setBackends, on the same port', async () => {
    const c = await tinyBackend('c');
    try {
      await lb.setBackends([{ host: '127.0.0.1', port: c.port }]);
      for (let i = 0; i < 3; i += 1) assert.equal((await seenThrough(lb)).backend, 'c');
      assert.deepEqual(
        (await lb.backendStates()).map((s) => s.name),
        ['backend-0'],
      );
    } finally {
      await lb.setBackends([a, b].map((t) => ({ host: '127.0.0.1', port: t.port })));
      await close(c.server);
    }
  });
});

async function until(lb: LoadBalancer, done: (states: Awaited<ReturnType<LoadBalancer['backendStates']>>) => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const states = await lb.backendStates();
    if (done(states)) return;
    if (Date.now() > deadline) throw new Error(`backends never reached the state: ${JSON.stringify(states)}`);
    await delay(100);
  }
}
