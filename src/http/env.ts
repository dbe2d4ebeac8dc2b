/** Hono context variables every route may read: only per-request facts, never services. */
export interface AppEnv {
  Variables: {
    requestId: string;
  };
}
