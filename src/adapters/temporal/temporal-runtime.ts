/**
 * The Temporal connection the service and its worker use. With TEMPORAL_ADDRESS set it
 * connects to that cluster; without, it starts the Temporal CLI's dev server (SQLite file
 * in DATA_DIR, Web UI on its own port) and stops it on close, so the embedded default runs
 * workflows too. Which CLI runs is the caller's choice (temporal-cli.ts); only with none
 * found does the Temporal SDK download one. Every payload passes the codec.
 *
 * It is this service's own server: a port another process holds is given up for a free
 * one, and a server a killed service left on this DATA_DIR is stopped (dev-server-ports.ts).
 * The dev server is supervised: a server whose port stops accepting connections (it died)
 * is started again on the same ports and database file, and the connections of this
 * process, which are our own and not the server's, carry on against it (workers resume
 * polling, histories kept in the file resume). A server that is merely slow is left alone:
 * only a refused connection counts as dead. `engineProbe` and `workersProbe` tell the
 * health check whether the engine answers and whether any worker polls each task queue.
 */
import { Client, Connection } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import proto from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { NativeConnection } from '@temporalio/worker';
import { PeriodicTask } from '../../scheduling/periodic-task.ts';
import { engineCall } from './engine-calls.ts';
import { devServersOn, portOpen, portToUse, stopProcess } from './dev-server-ports.ts';
import { DEV_SERVER_FLAGS } from './search-attributes.ts';
import type { TemporalCli } from './temporal-cli.ts';

export interface TemporalRuntime {
  readonly client: Client;
  /** For workers in this process. */
  readonly workerConnection: NativeConnection;
  readonly namespace: string;
  readonly address: string;
  /**
   * The Web UI of the dev server this process started, bound to loopback only (the codec
   * endpoint trusts this exact origin); null on a real cluster or without a UI.
   */
  readonly uiUrl: string | null;
  /** The CLI the dev server runs; null on a real cluster. */
  readonly cli: TemporalCli | null;
  /** Resolves when the engine's frontend answers a health check. */
  engineProbe(signal: AbortSignal): Promise<void>;
  /** Resolves when every one of `taskQueues` has a worker that polled it lately. */
  workersProbe(taskQueues: readonly string[], signal: AbortSignal): Promise<void>;
  close(): Promise<void>;
}

export interface DevServerSupervision {
  /** How often the dev server's port is checked. */
  readonly intervalMs: number;
  readonly onRestart: (info: { address: string; downForMs: number }) => void;
  readonly onRestartFailure: (error: unknown) => void;
}

export interface TemporalOptions {
  readonly address: string | undefined;
  readonly namespace: string;
  readonly dataConverter: DataConverter;
  readonly devServer: {
    /** SQLite file for workflow histories; undefined keeps them in memory (tests). */
    readonly dbFilename: string | undefined;
    readonly cli: TemporalCli;
    /** Undefined picks free ports (tests). */
    readonly port: number | undefined;
    readonly uiPort: number | undefined;
    /** The codec endpoint the Web UI decodes payloads through. */
    readonly codecEndpoint: string | undefined;
    /** Restart the dev server when it dies; undefined leaves it unsupervised. */
    readonly supervision?: DevServerSupervision;
    /** Told of what the start did differently from its options: a taken port moved from, an orphaned server stopped. */
    readonly onNotice?: (info: Record<string, unknown>, message: string) => void;
  };
}

/** A worker that polled this recently is taken as alive (a poll is a long poll of about a minute). */
const POLLER_FRESH_MS = 90_000;
/** Consecutive refused connections before the dev server is taken for dead. */
const DEAD_AFTER_REFUSALS = 2;

/** Where the dev server and its Web UI listen: loopback only, never another machine. */
const DEV_SERVER_IP = '127.0.0.1';

function probes(client: Client, connection: Connection, namespace: string): Pick<TemporalRuntime, 'engineProbe' | 'workersProbe'> {
  const within = <T>(signal: AbortSignal, call: () => Promise<T>) => engineCall(client, () => client.withAbortSignal(signal, call), 1_000);
  return {
    async engineProbe(signal) {
      await within(signal, () => connection.healthService.check({}));
    },
    async workersProbe(taskQueues, signal) {
      for (const name of taskQueues) {
        const described = await within(signal, () =>
          client.workflowService.describeTaskQueue({
            namespace,
            taskQueue: { name },
            taskQueueType: proto.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
          }),
        );
        const fresh = described.pollers.some((p) => {
          const seconds = Number(p.lastAccessTime?.seconds ?? 0);
          return Date.now() - seconds * 1000 < POLLER_FRESH_MS;
        });
        if (!fresh) throw new Error(`no worker polls ${name}`);
      }
    },
  };
}

export async function openTemporal(options: TemporalOptions): Promise<TemporalRuntime> {
  if (options.address) {
    const connection = await Connection.connect({ address: options.address });
    const workerConnection = await NativeConnection.connect({ address: options.address });
    const client = new Client({ connection, namespace: options.namespace, dataConverter: options.dataConverter });
    return {
      client,
      workerConnection,
      namespace: options.namespace,
      address: options.address,
      uiUrl: null,
      cli: null,
      ...probes(client, connection, options.namespace),
      close: async () => {
        await workerConnection.close();
        await connection.close();
      },
    };
  }
  const dev = options.devServer;
  const notice = dev.onNotice ?? (() => undefined);
  if (dev.dbFilename) {
    for (const found of devServersOn(dev.dbFilename)) {
      if (!found.orphaned)
        throw new Error(`another process's Temporal dev server (pid ${String(found.pid)}) uses this DATA_DIR's workflow histories`);
      await stopProcess(found.pid);
      notice({ pid: found.pid }, 'stopped a Temporal dev server left running on this DATA_DIR by a service that was killed');
    }
  }
  const frontend = dev.port === undefined ? undefined : await portToUse(dev.port);
  const ui = dev.uiPort === undefined ? undefined : await portToUse(dev.uiPort);
  for (const [what, wanted, chosen] of [
    ['frontend', dev.port, frontend],
    ['web UI', dev.uiPort, ui],
  ] as const)
    if (chosen?.taken)
      notice({ wanted, using: chosen.port }, `the Temporal dev server's ${what} port is taken by another process: using a free one`);
  const uiPort = ui?.port;
  const cliPath = dev.cli.path;
  const startServer = (port: number | undefined) =>
    TestWorkflowEnvironment.createLocal({
      server: {
        executable: cliPath ? { type: 'existing-path', path: cliPath } : { type: 'cached-download' },
        namespace: options.namespace,
        ip: DEV_SERVER_IP,
        ...(dev.dbFilename ? { dbFilename: dev.dbFilename } : {}),
        ...(port ? { port } : {}),
        ...(uiPort ? { uiPort, ui: true } : {}),
        extraArgs: [
          '--log-level',
          'error',
          ...DEV_SERVER_FLAGS,
          // Named, not left to the CLI's default (the --ip value): the codec endpoint trusts this UI for being on loopback.
          ...(uiPort ? ['--ui-ip', DEV_SERVER_IP] : []),
          ...(dev.codecEndpoint ? ['--ui-codec-endpoint', dev.codecEndpoint] : []),
        ],
      },
    });
  let env = await startServer(frontend?.port).catch((error: unknown) => {
    if (cliPath) throw error;
    throw new Error('no Temporal CLI at TEMPORAL_CLI_PATH, on PATH or in ../shared/bin, and its download failed', { cause: error });
  });
  const address = env.address;
  // A restart must come back where the connections below point, even when the first start picked the port.
  const port = Number(address.slice(address.lastIndexOf(':') + 1));
  // Connections of our own, not the environment's: they outlive a restart, which tears the old environment down.
  const connection = await Connection.connect({ address });
  const workerConnection = await NativeConnection.connect({ address });
  const client = new Client({ connection, namespace: options.namespace, dataConverter: options.dataConverter });

  let supervisor: PeriodicTask | undefined;
  const supervision = dev.supervision;
  if (supervision) {
    let refusals = 0;
    let downSince = 0;
    supervisor = new PeriodicTask(
      async () => {
        if (await portOpen(port)) {
          refusals = 0;
          return;
        }
        if (refusals === 0) downSince = Date.now();
        refusals += 1;
        if (refusals < DEAD_AFTER_REFUSALS) return;
        await env.teardown().catch(() => undefined);
        env = await startServer(port);
        refusals = 0;
        supervision.onRestart({ address, downForMs: Date.now() - downSince });
      },
      { intervalMs: supervision.intervalMs, onError: supervision.onRestartFailure },
    );
    supervisor.start();
  }
  return {
    client,
    workerConnection,
    namespace: options.namespace,
    address,
    uiUrl: uiPort ? `http://${DEV_SERVER_IP}:${String(uiPort)}` : null,
    cli: dev.cli,
    ...probes(client, connection, options.namespace),
    close: async () => {
      await supervisor?.stop();
      try {
        // Refused while a worker that did not stop in its bound still holds it; the server is stopped regardless.
        await workerConnection.close().catch(() => undefined);
        await connection.close();
      } finally {
        await env.teardown();
      }
    },
  };
}
