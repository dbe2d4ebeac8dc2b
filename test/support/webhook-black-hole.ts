/**
 * What the webhook fairness test and benchmark aim deliveries at, and how they queue them:
 * a loopback TCP server that accepts and never answers (each attempt lasts the whole
 * response timeout), and a delivery row written as the webhook projector writes it.
 */
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { Db } from '../../src/db/database.ts';
import { jsonb } from '../../src/db/jsonb.ts';

export class BlackHole {
  readonly #sockets = new Set<Socket>();
  readonly #server: Server = createServer((socket) => {
    this.#sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => this.#sockets.delete(socket));
  });
  port = 0;

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.port = (this.#server.address() as AddressInfo).port;
    return this.port;
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

let queued = 0;

/** A pending `analysis.stored` delivery to the endpoint; its id, `msg_<prefix>_<n>`. */
export async function queueDelivery(db: Db, accountId: string, endpointId: string, prefix: string): Promise<string> {
  queued += 1;
  const deliveryId = `msg_${prefix}_${String(queued)}`;
  await db
    .insertInto('webhookDeliveries')
    .values({
      deliveryId,
      accountId,
      endpointId,
      sourceEventId: `${prefix}@${String(queued)}`,
      eventType: 'analysis.stored',
      payload: jsonb({ type: 'analysis.stored', timestamp: new Date().toISOString(), mode: 'live', data: { runId: 'r' } }),
      status: 'pending',
      createdAt: new Date(),
    })
    .execute();
  return deliveryId;
}
