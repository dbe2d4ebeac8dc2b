/**
 * A dependency the deep health check can probe. Hard dependencies decide the overall
 * status; soft ones are reported but never turn the service unhealthy.
 */
export type DependencyName =
  | 'documentDatabase'
  | 'searchIndex'
  | 'vectorIndex'
  | 'cache'
  | 'identityService'
  /** Beyond the spec's five, all soft: what paid work beyond search depends on. */
  | 'workflowEngine'
  | 'workers'
  | 'analyticsStore';

export interface DependencyProbe {
  readonly name: DependencyName;
  readonly hard: boolean;
  readonly backend: string;
  /** How the backend was found, where the service chose among several at start (never a path or host). */
  readonly source?: string;
  check(signal: AbortSignal): Promise<void>;
}
