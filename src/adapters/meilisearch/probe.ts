/** Deep-health probe of Meilisearch, the keyword index when MEILI_URL is set. */
import { Meilisearch } from 'meilisearch';
import type { DependencyProbe } from '../../ports/health.ts';

export function meilisearchProbe(url: string, apiKey: string | undefined): DependencyProbe {
  const client = new Meilisearch({ host: url, ...(apiKey ? { apiKey } : {}) });
  return {
    name: 'searchIndex',
    hard: true,
    backend: 'meilisearch',
    check: async () => {
      await client.health();
    },
  };
}
