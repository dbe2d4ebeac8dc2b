/**
 * The Temporal connection the service and its worker use. With TEMPORAL_ADDRESS set it
 * connects to that cluster; without, it starts the Temporal CLI's dev server (SQLite file
 * in DATA_DIR, Web UI on its own port) and stops it on close, so the embedded default runs
 * workflows too. The CLI is found at TEMPORAL_CLI_PATH, else on PATH, else downloaded once
 * into the system temp folder by the Temporal SDK. Every payload passes the codec.
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { NativeConnection } from '@temporalio/worker';

export interface TemporalRuntime {
  readonly client: Client;
  /** For workers in this process. */
  readonly workerConnection: NativeConnection;
  readonly namespace: string;
  readonly address: string;
  /** The Web UI of the dev server this process started; null on a real cluster. */
  readonly uiUrl: string | null;
  close(): Promise<void>;
}

export interface TemporalOptions {
  readonly address: string | undefined;
  readonly namespace: string;
  readonly dataConverter: DataConverter;
  readonly devServer: {
    /** SQLite file for workflow histories; undefined keeps them in memory (tests). */
    readonly dbFilename: string | undefined;
    readonly cliPath: string | undefined;
    /** Undefined picks free ports (tests). */
    readonly port: number | undefined;
    readonly uiPort: number | undefined;
    /** The codec endpoint the Web UI decodes payloads through. */
    readonly codecEndpoint: string | undefined;
  };
}

/** The `temporal` CLI on PATH, if any. */
function cliOnPath(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, 'temporal');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this folder
    }
  }
  return undefined;
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
      close: async () => {
        await workerConnection.close();
        await connection.close();
      },
    };
  }
  const dev = options.devServer;
  const cliPath = dev.cliPath ?? cliOnPath();
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: cliPath ? { type: 'existing-path', path: cliPath } : { type: 'cached-download' },
      namespace: options.namespace,
      ip: '127.0.0.1',
      ...(dev.dbFilename ? { dbFilename: dev.dbFilename } : {}),
      ...(dev.port ? { port: dev.port } : {}),
      ...(dev.uiPort ? { uiPort: dev.uiPort, ui: true } : {}),
      extraArgs: ['--log-level', 'error', ...(dev.codecEndpoint ? ['--ui-codec-endpoint', dev.codecEndpoint] : [])],
    },
    client: { dataConverter: options.dataConverter },
  });
  return {
    client: env.client,
    workerConnection: env.nativeConnection,
    namespace: options.namespace,
    address: env.address,
    uiUrl: dev.uiPort ? `http://127.0.0.1:${String(dev.uiPort)}` : null,
    close: () => env.teardown(),
  };
}
