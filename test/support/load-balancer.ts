/**
 * A real TLS-terminating load balancer for tests: HAProxy (Debian's package, installed by
 * .ci/run) in front of loopback backends, with a certificate from a CA made here for the
 * run, so a test calls the service as a client behind a production proxy would: over
 * HTTPS with the certificate verified, its address relayed in X-Forwarded-For and its
 * scheme in X-Forwarded-Proto.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { freeLoopbackPort, portOpen } from '../../src/adapters/temporal/dev-server-ports.ts';

export interface Backend {
  readonly host: string;
  readonly port: number;
}

export interface LoadBalancerOptions {
  readonly backends: readonly Backend[];
  /** The loopback address the proxy listens on; 127.0.0.1 by default. */
  readonly bind?: string;
  /** What the health check asks each backend for: the service's GET /health under the default API_BASE_PATH unless told. */
  readonly healthPath?: string;
}

export interface BackendState {
  /** backend-0, backend-1, … in the order of `backends`. */
  readonly name: string;
  /** HAProxy's own word: UP, DOWN, MAINT, or a transition such as "UP 1/2". */
  readonly status: string;
  /** Requests it has been sent since the proxy (re)started. */
  readonly served: number;
}

export interface LoadBalancer {
  /** https://BIND:PORT, no trailing slash. */
  readonly url: string;
  readonly port: number;
  /** PEM of the CA that signed the proxy's certificate (SAN IP:BIND, IP:127.0.0.1, DNS:localhost). */
  readonly ca: string;
  readonly caPath: string;
  /** Points the proxy at other backends (a reload: the port stays, connections in flight finish). */
  setBackends(backends: readonly Backend[]): Promise<void>;
  /** Each backend's state as HAProxy's health checks see it. */
  backendStates(): Promise<BackendState[]>;
  /** Resolves once every backend passes its health check; rejects after `withinMs` (10 s by default). */
  waitUntilAllUp(withinMs?: number): Promise<void>;
  /** What HAProxy printed (warnings, alerts). */
  output(): string;
  stop(): Promise<void>;
}

const HAPROXY = 'haproxy';

/** A CA and a server certificate it signs, made with the openssl CLI; returns the CA's path and the proxy's cert+key bundle. */
function makeCertificates(dir: string, bind: string): { caPath: string; bundlePath: string } {
  const path = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=court-records test CA',
    '-keyout',
    path('ca.key'),
    '-out',
    path('ca.pem'),
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  );
  openssl('req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost', '-keyout', path('server.key'), '-out', path('server.csr'));
  const names = [...new Set([bind, '127.0.0.1'])].map((ip) => `IP:${ip}`).concat('DNS:localhost');
  writeFileSync(
    path('server.ext'),
    `subjectAltName=${names.join(',')}\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n`,
  );
  openssl(
    'x509',
    '-req',
    '-in',
    path('server.csr'),
    '-CA',
    path('ca.pem'),
    '-CAkey',
    path('ca.key'),
    '-CAcreateserial',
    '-days',
    '2',
    '-sha256',
    '-extfile',
    path('server.ext'),
    '-out',
    path('server.pem'),
  );
  writeFileSync(path('bundle.pem'), readFileSync(path('server.pem'), 'utf8') + readFileSync(path('server.key'), 'utf8'));
  return { caPath: path('ca.pem'), bundlePath: path('bundle.pem') };
}

function config(settings: {
  bind: string;
  port: number;
  bundlePath: string;
  statsSocket: string;
  healthPath: string;
  backends: readonly Backend[];
}): string {
  const servers = settings.backends.map((b, i) => `  server backend-${i} ${b.host}:${b.port}`);
  return [
    'global',
    `  stats socket ${settings.statsSocket} mode 600 level admin`,
    '  ssl-default-bind-options ssl-min-ver TLSv1.2',
    'defaults',
    '  mode http',
    '  log stdout format raw local0 warning',
    '  timeout connect 2s',
    '  timeout client 30s',
    '  timeout server 30s',
    '  timeout http-request 10s',
    '  timeout queue 5s',
    'frontend https-in',
    // TLS only: a plain-HTTP request to this port fails the handshake and is dropped.
    `  bind ${settings.bind}:${settings.port} ssl crt ${settings.bundlePath}`,
    // Appends the client's address: the service takes the right-most hop it does not trust,
    // so an X-Forwarded-For the client wrote itself is never believed.
    '  option forwardfor',
    '  http-request set-header X-Forwarded-Proto https',
    '  default_backend api',
    'backend api',
    '  balance roundrobin',
    `  option httpchk GET ${settings.healthPath}`,
    '  http-check expect status 200',
    // Checked twice a second, out after three misses: a stopped backend leaves within about 1.5 s, a busy one is given 2 s to answer.
    '  timeout check 2s',
    '  default-server check inter 500ms fall 3 rise 1',
    // Retried on another backend only when the request never reached one: nothing is sent twice.
    '  retry-on conn-failure',
    '  retries 2',
    '  option redispatch 1',
    ...servers,
    '',
  ].join('\n');
}

/** Sends one line to HAProxy's stats socket and returns its answer. */
function statsCommand(socketPath: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    socket.once('error', reject);
    socket.once('end', () => resolve(answer));
    socket.once('connect', () => socket.end(`${command}\n`));
  });
}

export async function startLoadBalancer(options: LoadBalancerOptions): Promise<LoadBalancer> {
  const bind = options.bind ?? '127.0.0.1';
  if (!bind.startsWith('127.')) throw new Error(`the test load balancer listens on loopback only, not ${bind}`);
  const dir = mkdtempSync(join(tmpdir(), 'court-records-lb-'));
  const { caPath, bundlePath } = makeCertificates(dir, bind);
  const port = await freeLoopbackPort();
  const statsSocket = join(dir, 'stats.sock');
  const configPath = join(dir, 'haproxy.cfg');
  const healthPath = options.healthPath ?? '/api/v1/prod/health';
  let output = '';
  let current: { child: ChildProcess; exited: Promise<void>; done: boolean } | undefined;

  const launch = async (backends: readonly Backend[]) => {
    writeFileSync(configPath, config({ bind, port, bundlePath, statsSocket, healthPath, backends }));
    const previous = current;
    // -db: foreground; -sf: the new process takes the port, then tells the old one to finish its connections and leave.
    const args = ['-db', '-f', configPath, ...(previous ? ['-sf', String(previous.child.pid)] : [])];
    const child = spawn(HAPROXY, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const started = { child, done: false, exited: new Promise<void>((r) => child.once('exit', () => r())) };
    void started.exited.then(() => (started.done = true));
    current = started;
    const deadline = Date.now() + 10_000;
    for (;;) {
      if (started.done) throw new Error(`haproxy exited at start:\n${output}`);
      // The stats socket answers once the new process has parsed its configuration and bound its ports.
      const ready = await statsCommand(statsSocket, 'show info').then(
        (info) => info.includes(`Pid: ${child.pid}`),
        () => false,
      );
      if (ready && (await portOpen(port))) break;
      if (Date.now() > deadline) throw new Error(`haproxy did not listen on ${bind}:${port}:\n${output}`);
      await delay(50);
    }
    if (previous) await previous.exited;
  };

  const stop = async () => {
    const running = current;
    if (running && !running.done) {
      running.child.kill('SIGTERM');
      const inTime = await Promise.race([running.exited.then(() => true), delay(5_000).then(() => false)]);
      if (!inTime) running.child.kill('SIGKILL');
      await running.exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    await launch(options.backends);
  } catch (error) {
    await stop();
    throw error;
  }
  const backendStates = async (): Promise<BackendState[]> => {
    const csv = await statsCommand(statsSocket, 'show stat');
    const [header, ...rows] = csv.replace(/^# /, '').trim().split('\n');
    const columns = (header ?? '').split(',');
    const at = (row: string[], name: string) => row[columns.indexOf(name)] ?? '';
    return rows
      .map((line) => line.split(','))
      .filter((row) => at(row, 'pxname') === 'api' && at(row, 'svname').startsWith('backend-'))
      .map((row) => ({ name: at(row, 'svname'), status: at(row, 'status'), served: Number(at(row, 'stot')) }));
  };

  return {
    url: `https://${bind}:${port}`,
    port,
    ca: readFileSync(caPath, 'utf8'),
    caPath,
    setBackends: launch,
    backendStates,
    waitUntilAllUp: async (withinMs = 10_000) => {
      const deadline = Date.now() + withinMs;
      for (;;) {
        const states = await backendStates();
        if (states.every((s) => s.status === 'UP')) return;
        if (Date.now() > deadline) throw new Error(`backends not all up within ${withinMs} ms: ${JSON.stringify(states)}`);
        await delay(100);
      }
    },
    output: () => output,
    stop,
  };
}

export interface HttpsFetchInit {
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  /** The loopback address the client's socket binds to, so the proxy sees that client address. */
  readonly localAddress?: string;
  /** Trusts this CA instead of the load balancer's (to show a wrong CA is refused). */
  readonly ca?: string;
}

/**
 * Calls `path` through the load balancer over HTTPS, verifying its certificate against the
 * CA made for it (never with verification off), and answers as fetch would.
 */
export function httpsFetch(lb: Pick<LoadBalancer, 'url' | 'ca'>, path: string, init: HttpsFetchInit = {}): Promise<Response> {
  const url = new URL(path, lb.url);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: init.method ?? 'GET',
        headers: { ...init.headers, ...(init.body !== undefined ? { 'content-length': String(Buffer.byteLength(init.body)) } : {}) },
        ca: init.ca ?? lb.ca,
        // One connection per call: each call is a new client, seen afresh by the proxy.
        agent: false,
        ...(init.localAddress ? { localAddress: init.localAddress } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.once('error', reject);
        res.once('end', () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, v);
          }
          const status = res.statusCode ?? 0;
          const empty = status === 204 || status === 304;
          resolve(new Response(empty ? null : Buffer.concat(chunks), { status, headers }));
        });
      },
    );
    req.setTimeout(30_000, () => req.destroy(new Error(`no answer from ${url.href} in 30 s`)));
    req.once('error', reject);
    req.end(init.body);
  });
}
