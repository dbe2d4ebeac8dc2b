/**
 * Runs every dependency probe at once, each bounded by its own timeout, and folds the
 * results: a failed hard dependency makes the service unhealthy. Failure reasons are kept
 * to 'timeout' or 'unavailable', so no driver message (SQL, hosts) reaches the response.
 */
import type { DependencyName, DependencyProbe } from '../../ports/health.ts';

export interface CheckResult {
  readonly ok: boolean;
  readonly hard: boolean;
  readonly backend: string;
  readonly source?: string;
  readonly latencyMs: number;
  readonly error?: 'timeout' | 'unavailable';
}

export interface DeepHealth {
  readonly status: 'healthy' | 'degraded' | 'unhealthy';
  readonly checks: Record<DependencyName, CheckResult>;
}

const TIMED_OUT = Symbol('timeout');

async function runProbe(
  probe: DependencyProbe,
  timeoutMs: number,
  onFailure: (name: string, error: unknown) => void,
): Promise<CheckResult> {
  const controller = new AbortController();
  const started = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), timeoutMs);
  });
  const base = { hard: probe.hard, backend: probe.backend, ...(probe.source ? { source: probe.source } : {}) };
  try {
    const outcome = await Promise.race([probe.check(controller.signal), deadline]);
    const latencyMs = Math.round(performance.now() - started);
    if (outcome === TIMED_OUT) {
      controller.abort();
      return { ...base, ok: false, latencyMs, error: 'timeout' };
    }
    return { ...base, ok: true, latencyMs };
  } catch (error) {
    onFailure(probe.name, error);
    return { ...base, ok: false, latencyMs: Math.round(performance.now() - started), error: 'unavailable' };
  } finally {
    clearTimeout(timer);
  }
}

export async function deepHealth(
  probes: readonly DependencyProbe[],
  options: { timeoutMs: number; onFailure: (name: string, error: unknown) => void },
): Promise<DeepHealth> {
  const results = await Promise.all(probes.map(async (p) => [p.name, await runProbe(p, options.timeoutMs, options.onFailure)] as const));
  const checks = Object.fromEntries(results) as Record<DependencyName, CheckResult>;
  const failed = results.filter(([, r]) => !r.ok);
  const status = failed.some(([, r]) => r.hard) ? 'unhealthy' : failed.length > 0 ? 'degraded' : 'healthy';
  return { status, checks };
}
