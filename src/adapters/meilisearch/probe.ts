/** Deep-health probe of Meilisearch, the keyword index when MEILI_URL is set. */
import { meilisearchClient } from './client.ts';
import type { DependencyProbe } from '../../ports/health.ts';

export function meilisearchProbe(url: string, apiKey: string | undefined): DependencyProbe {
  const client = meilisearchClient(url, apiKey);
  return {
    name: 'searchIndex',
    hard: true,
    backend: 'meilisearch',
    check: async () => {
      await client.health();
    },
  };
}
