/**
 * `npm run history:export -- <workflowId> [file]`: saves one workflow's history from a
 * running Temporal server (TEMPORAL_ADDRESS, else the local dev server on
 * TEMPORAL_DEV_PORT) as a History protobuf file, payloads still encrypted, for replay
 * (`Worker.runReplayHistory` with the same codec keys) or for a bug report. Put a file in
 * test/histories/ to make CI replay it against every future change of the workflows.
 */
import { writeFileSync } from 'node:fs';
import { Client, Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { loadConfig } from '../src/config.ts';

const [workflowId, file = `${process.argv[2] ?? 'workflow'}.history.pb`] = process.argv.slice(2);
if (!workflowId) {
  process.stderr.write('usage: npm run history:export -- <workflowId> [file]\n');
  process.exit(2);
}
const config = loadConfig(process.env);
const address = config.TEMPORAL_ADDRESS ?? `127.0.0.1:${String(config.TEMPORAL_DEV_PORT)}`;
const connection = await Connection.connect({ address });
try {
  const client = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  writeFileSync(file, proto.temporal.api.history.v1.History.encode(history).finish());
  process.stdout.write(`${workflowId}: ${String(history.events?.length ?? 0)} events written to ${file}\n`);
} finally {
  await connection.close();
}
