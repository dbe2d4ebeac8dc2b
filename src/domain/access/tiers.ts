/**
 * Tiers and their limits: the spec's figures where it gives them, documented defaults where
 * it does not. One table; a commercial account may override any figure. `null` means
 * unlimited.
 */
export const TIERS = ['free', 'payg', 'scale', 'enterprise'] as const;
export type Tier = (typeof TIERS)[number];

export const TIER_NAMES: Record<Tier, string> = {
  free: 'Free (Developer)',
  payg: 'Pay As You Go',
  scale: 'Scale',
  enterprise: 'Enterprise',
};

export interface TierLimits {
  /** General per-key ceiling on keyed routes (not in the spec: our default). */
  readonly requestsPerMinute: number;
  /** Largest `limit` a search page may ask for (not in the spec: our default). */
  readonly maxPageSize: number;
  /** Deepest page times limit a search may reach (not in the spec: our default). */
  readonly paginationDepth: number;
  readonly pdfLinksPerMonth: number | null;
  readonly distinctCaseDetailsPerDay: number | null;
  readonly concurrentAnalyses: number;
  readonly liveFetchesPerDay: number;
  /** Live (active or in grace) keys per user. */
  readonly apiKeys: number;
  readonly distinctKeysPerIpPerDay: number;
  /** Spec: Free 2, Pay As You Go 10, Scale 30, Enterprise 60. */
  readonly screeningRequestsPerMinute: number;
  /** Spec: Free 25, Pay As You Go 500, Scale 5,000, Enterprise unlimited. */
  readonly distinctScreenedNamesPerDay: number | null;
  /** Spec: Free 10 a month. */
  readonly litigationChecksPerMonth: number | null;
}

export interface TierFeatures {
  readonly semanticSearch: boolean;
  readonly aiAnalysis: boolean;
  readonly liveFetch: boolean;
  readonly adjudication: boolean;
  readonly batchScreening: boolean;
}

export const TIER_LIMITS: Record<Tier, TierLimits> = {
  free: {
    requestsPerMinute: 10,
    maxPageSize: 20,
    paginationDepth: 200,
    pdfLinksPerMonth: 20,
    distinctCaseDetailsPerDay: 100,
    concurrentAnalyses: 0,
    liveFetchesPerDay: 0,
    apiKeys: 2,
    distinctKeysPerIpPerDay: 10,
    screeningRequestsPerMinute: 2,
    distinctScreenedNamesPerDay: 25,
    litigationChecksPerMonth: 10,
  },
  payg: {
    requestsPerMinute: 60,
    maxPageSize: 50,
    paginationDepth: 1_000,
    pdfLinksPerMonth: 500,
    distinctCaseDetailsPerDay: 2_000,
    concurrentAnalyses: 2,
    liveFetchesPerDay: 50,
    apiKeys: 5,
    distinctKeysPerIpPerDay: 20,
    screeningRequestsPerMinute: 10,
    distinctScreenedNamesPerDay: 500,
    litigationChecksPerMonth: null,
  },
  scale: {
    requestsPerMinute: 300,
    maxPageSize: 100,
    paginationDepth: 5_000,
    pdfLinksPerMonth: 5_000,
    distinctCaseDetailsPerDay: 20_000,
    concurrentAnalyses: 5,
    liveFetchesPerDay: 500,
    apiKeys: 20,
    distinctKeysPerIpPerDay: 50,
    screeningRequestsPerMinute: 30,
    distinctScreenedNamesPerDay: 5_000,
    litigationChecksPerMonth: null,
  },
  enterprise: {
    requestsPerMinute: 1_000,
    maxPageSize: 100,
    paginationDepth: 10_000,
    pdfLinksPerMonth: null,
    distinctCaseDetailsPerDay: null,
    concurrentAnalyses: 10,
    liveFetchesPerDay: 2_000,
    apiKeys: 100,
    distinctKeysPerIpPerDay: 200,
    screeningRequestsPerMinute: 60,
    distinctScreenedNamesPerDay: null,
    litigationChecksPerMonth: null,
  },
};

export const TIER_FEATURES: Record<Tier, TierFeatures> = {
  free: { semanticSearch: false, aiAnalysis: false, liveFetch: false, adjudication: false, batchScreening: false },
  payg: { semanticSearch: true, aiAnalysis: true, liveFetch: true, adjudication: true, batchScreening: true },
  scale: { semanticSearch: true, aiAnalysis: true, liveFetch: true, adjudication: true, batchScreening: true },
  enterprise: { semanticSearch: true, aiAnalysis: true, liveFetch: true, adjudication: true, batchScreening: true },
};

export type LimitOverrides = Partial<TierLimits>;

export function limitsFor(tier: Tier, overrides: LimitOverrides = {}): TierLimits {
  return { ...TIER_LIMITS[tier], ...overrides };
}
