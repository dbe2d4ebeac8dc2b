/**
 * Temporal's SDK logs (worker lifecycle, workflow `log` calls, activity `Context.log`, and
 * the Rust core's warnings, forwarded) through our pino logger, so a worker's lines are
 * JSON with the service's bindings like every other line, instead of the SDK's own text on
 * stderr. The Runtime is one per process and is fixed when the first connection or worker
 * is made, so it is installed before either; a process that composes twice (the tests)
 * keeps the first logger.
 */
import type { LogLevel, LogMetadata, Logger as TemporalLogger } from '@temporalio/common';
import { Runtime } from '@temporalio/worker';
import type { Logger } from 'pino';

const PINO_LEVEL = { TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' } as const;

/** @temporalio/common's Logger over pino; the SDK's metadata (workflowId, activityType, ...) become fields. */
export function pinoTemporalLogger(logger: Logger): TemporalLogger {
  const log = (level: LogLevel, message: string, meta?: LogMetadata) => logger[PINO_LEVEL[level]]({ ...meta }, message);
  return {
    log,
    trace: (message, meta) => log('TRACE', message, meta),
    debug: (message, meta) => log('DEBUG', message, meta),
    info: (message, meta) => log('INFO', message, meta),
    warn: (message, meta) => log('WARN', message, meta),
    error: (message, meta) => log('ERROR', message, meta),
  };
}

/** Installs the Runtime with `logger`, unless this process already has one. */
export function installRuntimeLogger(logger: Logger): void {
  if (Runtime._instance !== undefined) return;
  Runtime.install({
    logger: pinoTemporalLogger(logger.child({ component: 'temporal' })),
    telemetryOptions: { logging: { filter: { core: 'WARN', other: 'ERROR' }, forward: {} } },
  });
}
