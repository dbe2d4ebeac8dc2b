/**
 * Zod schemas of the reference data served by GET /reference/courts and
 * GET /reference/case-types. They validate the generated JSON files when the reference
 * module loads them, give the TypeScript types, and are exported as plain zod objects so
 * the HTTP layer can reuse them (with @hono/zod-openapi) for the response documentation.
 */
import { z } from 'zod';

export const CourtLevelSchema = z
  .enum(['supreme', 'high', 'district', 'tribunal'])
  .describe('Tier of the court in the Indian hierarchy. District courts are rolled up into one node.');

export const CourtCodesSchema = z
  .strictObject({
    judgmentsPortal: z
      .string()
      .optional()
      .describe('Court code on the eCourts judgments portal (judgments.ecourts.gov.in), "STATE~COURT", e.g. "7~26".'),
    openDataset: z.string().optional().describe('Court partition of the open High Court judgments dataset, "STATE_COURT", e.g. "7_26".'),
    hcServicesState: z
      .string()
      .optional()
      .describe('High Court code on the eCourts High Court services portal (its state_code), e.g. "26".'),
  })
  .describe('Identifiers of the court in upstream eCourts systems.');

export const BenchCodesSchema = z
  .strictObject({
    openDataset: z.string().optional().describe('Bench partition of the open High Court judgments dataset, e.g. "dhcdb", "mphc_db_ind".'),
    hcServicesCourt: z
      .string()
      .optional()
      .describe('Bench code within the High Court on the eCourts High Court portals (1 = principal seat), e.g. "2".'),
  })
  .describe('Identifiers of the bench in upstream eCourts systems.');

export const BenchSchema = z
  .strictObject({
    id: z.string().min(1).describe('Stable bench id, unique across all courts, e.g. "bombay-hc-nagpur".'),
    name: z.string().min(1).describe('Bench name within its court, e.g. "Nagpur Bench".'),
    fullName: z
      .string()
      .min(1)
      .describe('Unambiguous name including the court, e.g. "Bombay High Court, Nagpur Bench". Accepted by the court filter.'),
    city: z.string().optional().describe('City where the bench sits, when known.'),
    location: z.string().optional().describe('Address as stated by the source when no city is given or it needs qualifying.'),
    note: z.string().optional().describe('Jurisdiction or seat caveat from the source.'),
    aliases: z.array(z.string()).describe('Other names the court filter accepts for this bench (each resolves to this bench only).'),
    codes: BenchCodesSchema.optional(),
  })
  .describe('A bench, seat, side or wing of a court.');

export const CourtSchema = z
  .strictObject({
    id: z.string().min(1).describe('Stable court id, e.g. "delhi-hc", "supreme-court", "nclt".'),
    name: z.string().min(1).describe('Human name, e.g. "Delhi High Court". Accepted by the court filter.'),
    level: CourtLevelSchema,
    abbreviation: z.string().optional().describe('Common abbreviation, e.g. "NCLT". Accepted by the court filter.'),
    aliases: z
      .array(z.string())
      .describe('Other names the court filter accepts, e.g. "High Court of Delhi". Matching ignores case, punctuation and spacing.'),
    codes: CourtCodesSchema.optional(),
    benches: z.array(BenchSchema).describe('Benches of the court; empty when it sits as one court or they are not enumerated.'),
    benchesComplete: z.boolean().optional().describe('Present and false when the bench list is known to be partial.'),
  })
  .describe('A court or tribunal accepted by the court filter of search.');

export const CourtsReferenceSchema = z
  .strictObject({
    version: z.string().min(1).describe('Content hash of the court list; changes whenever the list changes.'),
    courts: z.array(CourtSchema).describe('Supreme Court, High Courts, the district courts node, then tribunals.'),
  })
  .describe('The court hierarchy accepted by the court filter of POST /search/cases.');

export const CaseTypeKindSchema = z
  .enum(['standard', 'court-specific'])
  .describe(
    'standard: a cross-court label grouping the codes of many courts; court-specific: a code that fits no standard label, kept under its own label.',
  );

export const CaseTypeSchema = z
  .strictObject({
    label: z.string().min(1).describe('Human label accepted by the caseType filter, e.g. "Writ Petition (Civil)".'),
    kind: CaseTypeKindSchema,
    codes: z
      .array(z.string().min(1))
      .min(1)
      .describe('Every case-type code the label expands to, as the courts write them, e.g. "WP(C)", "W.P.(C)".'),
    courts: z.array(z.string()).describe('Ids of the courts where at least one of the codes is used.'),
    description: z.string().optional().describe('What the label covers.'),
  })
  .describe('One label of the case-type taxonomy and the codes it covers.');

export const CaseTypesReferenceSchema = z
  .strictObject({
    version: z.string().min(1).describe('Content hash of the taxonomy; changes whenever it changes.'),
    caseTypes: z.array(CaseTypeSchema).describe('Standard labels first, then court-specific ones, each sorted by label.'),
  })
  .describe('The case-type taxonomy accepted by the caseType filter of POST /search/cases.');

export type CourtLevel = z.infer<typeof CourtLevelSchema>;
export type CourtCodes = z.infer<typeof CourtCodesSchema>;
export type BenchCodes = z.infer<typeof BenchCodesSchema>;
export type Bench = z.infer<typeof BenchSchema>;
export type Court = z.infer<typeof CourtSchema>;
export type CourtsReference = z.infer<typeof CourtsReferenceSchema>;
export type CaseTypeKind = z.infer<typeof CaseTypeKindSchema>;
export type CaseType = z.infer<typeof CaseTypeSchema>;
export type CaseTypesReference = z.infer<typeof CaseTypesReferenceSchema>;
