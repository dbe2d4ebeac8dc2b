/**
 * A fresh machine with no internet, as the service sees it: no `temporal` on PATH, no
 * TEMPORAL_CLI_PATH, no CLI cached in the temp folder, and every proxy variable pointing
 * at a loopback proxy that refuses and records each tunnel asked of it. The Temporal SDK's
 * CLI download honours those variables (its HTTP client reads them), so a download the
 * service attempts is refused here and shows up in `tunnels()`; nothing leaves loopback.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { isExecutableFile } from '../../src/adapters/temporal/temporal-cli.ts';

const LOOPBACK = '127.0.0.1,localhost,::1';

export interface NoInternet {
  /** The variables to start a process with (over this process's own). */
  readonly env: Record<string, string>;
  /** The first line of every request the proxy was sent, e.g. `CONNECT host:443 HTTP/1.1`. */
  tunnels(): readonly string[];
  close(): Promise<void>;
}

export async function noInternet(): Promise<NoInternet> {
  const seen: string[] = [];
  const proxy: Server = createServer((socket) => {
    socket.once('data', (chunk: Buffer) => {
      seen.push(chunk.toString('latin1').split('\r\n', 1)[0] ?? '');
      socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n');
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const proxyUrl = `http://127.0.0.1:${String((proxy.address() as AddressInfo).port)}`;
  const temp = mkdtempSync(join(tmpdir(), 'court-records-no-internet-'));
  const path = (process.env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => dir && !isExecutableFile(join(dir, 'temporal')))
    .join(delimiter);
  const proxies = Object.fromEntries(
    ['HTTPS_PROXY', 'HTTP_PROXY', 'ALL_PROXY'].flatMap((name) => [
      [name, proxyUrl],
      [name.toLowerCase(), proxyUrl],
    ]),
  );
  return {
    // Loopback is reached directly: the service's own engine, receivers and portal are there.
    env: { PATH: path, TEMPORAL_CLI_PATH: '', TMPDIR: temp, NO_PROXY: LOOPBACK, no_proxy: LOOPBACK, ...proxies },
    tunnels: () => [...seen],
    close: async () => {
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
      rmSync(temp, { recursive: true, force: true });
    },
  };
}
