/**
 * The litigation check's request and report as the API shows them, shared by the single
 * and batch routes: the strict request fields (every identifier format-checked, GSTIN with
 * its check character), the report's match, summary and coverage (each field described
 * in the OpenAPI document), the mapping of a validated body to a screening request (court
 * resolution, limit clamp).
 *
 * Validation messages name the field and the rule broken, never the value sent: names,
 * identifiers and addresses must not come back in an error body or reach a log.
 */
import { z } from '@hono/zod-openapi';
import { comparableName } from '../../../application/screening/screened-name-key.ts';
import type { ScreeningReport, ScreeningRequest } from '../../../application/screening/screening-service.ts';
import type { TierLimits } from '../../../domain/access/tiers.ts';
import { BANDS } from '../../../domain/screening/bands.ts';
import { validateIdentifier, type IdentifierKind } from '../../../domain/screening/identifiers.ts';
import { isCalendarDate, MAX_ALIASES, MAX_KNOWN_PERSONS, MAX_NAMES } from '../../../domain/screening/screening-request.ts';
import { VERDICTS } from '../../../domain/screening/verdict.ts';
import { resolveCourtOrBench } from '../../../reference/reference-data.ts';

export const PURPOSES = ['kyc', 'bgv', 'due_diligence', 'litigation', 'research', 'compliance'] as const;
export const DEFAULT_LIMIT = 40;
export const MAX_LIMIT = 100;
export const DEFAULT_DISPLAY_THRESHOLD = 0.6;

const IDENTIFIER_LABELS: Record<IdentifierKind, string> = { pan: 'PAN', gstin: 'GSTIN', cin: 'CIN', llpin: 'LLPIN' };

const identifier = (kind: IdentifierKind, example: string) =>
  z
    .string()
    .max(40)
    .superRefine((value, ctx) => {
      const check = validateIdentifier(kind, value);
      if (!check.valid)
        ctx.addIssue({ code: 'custom', message: `not a valid ${IDENTIFIER_LABELS[kind]} (${check.error.replace('_', ' ')})` });
    })
    .transform((value) => value.trim().toUpperCase())
    .optional()
    .openapi({
      example,
      description: `${IDENTIFIER_LABELS[kind]}, format-checked; an exact match in a record decides the match (rule 4).`,
    });

const Name = z.string().trim().min(2).max(200);
/** Longer than any court name, alias or id of /reference/courts (the longest is 77 characters). */
const MAX_COURT_LENGTH = 200;
const CourtText = z.string().max(MAX_COURT_LENGTH).trim().min(1);

/** The single-call fields a batch item shares, minus purpose and adjudicate. */
export const screeningFields = {
  name: Name.openapi({ example: 'National Insurance Company Limited', description: '2 to 200 characters.' }),
  aliases: z
    .array(Name)
    .max(MAX_ALIASES)
    .optional()
    .openapi({ description: `At most ${MAX_ALIASES} (name plus aliases at most ${MAX_NAMES} names); each is searched like the name.` }),
  entityType: z.enum(['person', 'company']).openapi({
    description:
      'Selects the resolution rules: a person is never confirmed without an identifier match; a company may be confirmed on its name.',
  }),
  identifiers: z
    .object({
      pan: identifier('pan', 'AABCB5576G'),
      gstin: identifier('gstin', '27AAPFU0939F1ZV'),
      cin: identifier('cin', 'L17110MH1973PLC019786'),
      llpin: identifier('llpin', 'AAB-9032'),
    })
    .strict()
    .optional(),
  address: z
    .object({
      city: z.string().trim().min(1).max(100).optional(),
      state: z.string().trim().min(1).max(100).optional(),
      stateCode: z
        .string()
        .regex(/^(?:[A-Za-z]{2}|[0-9]{2})$/)
        .optional()
        .openapi({ description: 'Two letters (MH) or the two-digit GST state code (27).' }),
    })
    .strict()
    .optional()
    .openapi({ description: 'Corroborating only, never a filter.' }),
  knownPersons: z
    .array(Name)
    .max(MAX_KNOWN_PERSONS)
    .optional()
    .openapi({ description: `Up to ${MAX_KNOWN_PERSONS} associates or relatives; a candidate naming one is a disambiguating signal.` }),
  court: z
    // The document states one entry; the refinement words the 400 the spec asks for.
    .union([CourtText, z.array(CourtText).openapi({ minItems: 1, maxItems: 1 })])
    .superRefine((court, ctx) => {
      if (Array.isArray(court) && court.length !== 1)
        ctx.addIssue({ code: 'custom', message: 'one court only: a string, or an array of exactly one' });
    })
    .optional()
    .openapi({
      description: `One court (name, alias or /reference/courts id), at most ${MAX_COURT_LENGTH} characters; an array of more than one is a 400.`,
    }),
  since: z.string().max(10).refine(isCalendarDate, 'must be a real calendar day written YYYY-MM-DD').optional().openapi({
    format: 'date',
    description:
      'YYYY-MM-DD, a real calendar day. Drops a candidate only when every date it has (decision, filing) is before it; candidates with neither are kept. Forces an inconclusive verdict when nothing matches.',
  }),
  limit: z
    .number()
    .int()
    .min(1)
    .max(MAX_LIMIT)
    .optional()
    .openapi({
      description: `Candidates considered: default ${DEFAULT_LIMIT}, maximum ${MAX_LIMIT}, clamped to the tier's page size. A clamp (the requested or default limit above the page size) makes an empty report inconclusive (rule 6).`,
    }),
  displayThreshold: z
    .number()
    .min(0)
    .max(1)
    .optional()
    .openapi({ description: `0 to 1, default ${DEFAULT_DISPLAY_THRESHOLD}: candidates below it are left out unless confirmed (rule 5).` }),
};

const purpose = z.enum(PURPOSES).openapi({ description: 'Recorded in the audit trail, never logged with the name.' });

function nameLeftCheck(body: { name: string; entityType: 'person' | 'company' }, ctx: z.RefinementCtx): void {
  if (comparableName(body.name, body.entityType) === '')
    ctx.addIssue({ code: 'custom', path: ['name'], message: 'nothing is left to search once honorifics and company forms are removed' });
}

export const ScreenBody = z
  .object({
    ...screeningFields,
    purpose,
    adjudicate: z.boolean().optional().openapi({
      description:
        'Default false. Sends the uncertain middle (at most 40 candidates) to the adjudication pass; +80 credits when it ran. Not on the Free tier.',
    }),
  })
  .strict()
  .superRefine(nameLeftCheck)
  .openapi('PartyScreenRequest');

export const BatchItem = z
  .object({
    ...screeningFields,
    entityType: screeningFields.entityType.optional(),
    clientRef: z.string().max(200).optional().openapi({ description: "The caller's own id, echoed on the item's result." }),
  })
  .strict()
  .openapi('PartyScreenBatchItem');

export type ScreeningFields = Omit<z.infer<typeof BatchItem>, 'clientRef' | 'entityType'> & { entityType: 'person' | 'company' };

/** Validated fields to a screening request: the court resolved, the limit clamped to the plan. */
export function screeningRequestOf(
  fields: ScreeningFields,
  options: { adjudicate: boolean; limits: TierLimits },
): { ok: true; request: ScreeningRequest } | { ok: false; problems: string[] } {
  const courtName = Array.isArray(fields.court) ? fields.court[0] : fields.court;
  const court = courtName === undefined ? null : (resolveCourtOrBench(courtName)?.court ?? null);
  if (courtName !== undefined && court === null) return { ok: false, problems: ['court: unknown court; see GET /reference/courts'] };
  const asked = fields.limit ?? DEFAULT_LIMIT;
  const limit = Math.min(asked, options.limits.maxPageSize);
  return {
    ok: true,
    request: {
      query: {
        name: fields.name,
        aliases: fields.aliases ?? [],
        entityType: fields.entityType,
        identifiers: fields.identifiers ?? {},
        ...(fields.address ? { address: fields.address } : {}),
        knownPersons: fields.knownPersons ?? [],
      },
      courtId: court?.id ?? null,
      since: fields.since ?? null,
      limit,
      limitClamped: limit < asked,
      adjudicate: options.adjudicate,
      displayThreshold: fields.displayThreshold ?? DEFAULT_DISPLAY_THRESHOLD,
    },
  };
}

const Span = z
  .object({
    field: z.string().openapi({ description: 'The record field the text is in: "petitioners[0]", "respondents[1]", "title" or "text".' }),
    start: z.number().int().openapi({ description: 'Offset of the first character in that field (UTF-16 code units).' }),
    end: z.number().int().openapi({ description: 'Offset just past the last character.' }),
    text: z.string().openapi({ description: 'The record text between start and end.' }),
  })
  .openapi('ScreeningSignalSpan');

const Signal = z
  .object({
    kind: z
      .string()
      .openapi({ description: 'What fired: name, identifier, identifier_conflict, address, known_person, relation, entity_type, ...' }),
    detail: z.string().openapi({ description: 'One line on what was found, quoting only the record.' }),
    spans: z.array(Span),
  })
  .openapi('ScreeningSignal');

export const ScreeningMatchSchema = z
  .object({
    caseId: z.string().openapi({ description: 'Fetch the case with GET /cases/:id.' }),
    caseNumber: z.string(),
    court: z.object({ code: z.string(), name: z.string() }),
    title: z.string().nullable(),
    decisionDate: z.string().nullable().openapi({ description: 'YYYY-MM-DD.' }),
    filingDate: z.string().nullable().openapi({ description: 'YYYY-MM-DD.' }),
    partyRole: z.enum(['petitioner', 'respondent', 'other']).openapi({ description: 'The side of the party that matched.' }),
    matchedName: z.string().nullable().openapi({ description: 'The matching party as the record prints it.' }),
    matchedVia: z.enum(['name', 'alias']).openapi({ description: 'Whether the screened name or one of its aliases matched best.' }),
    nameSimilarity: z.number().openapi({ description: 'Best similarity of a screened name to the party, 0 to 1.' }),
    probability: z.number().openapi({
      description: 'Calibrated probability that this party is the screened entity, after the rules (three decimals, rounded down).',
    }),
    band: z
      .enum(BANDS as [string, ...string[]])
      .openapi({ description: 'confirmed >= 0.90, probable >= 0.70, possible >= 0.45, unlikely below.' }),
    decidedBy: z.enum(['identifier', 'model', 'adjudication']).openapi({
      description:
        'identifier: an identifier in the record decided it (rule 4); model: the calibrated model; adjudication: the adjudication pass revised it.',
    }),
    cappedBy: z
      .enum(['person_without_identifier', 'corroboration_without_identifier', 'identifier_conflict'])
      .nullable()
      .openapi({ description: 'The rule that held the probability down, if one did (rules 1 and 2, or a conflicting identifier).' }),
    signals: z.array(Signal).openapi({ description: 'Why: each signal that fired, with the record text it fired on.' }),
    adjudication: z
      .object({
        adjudicator: z
          .string()
          .openapi({ description: 'Which adjudicator read it, e.g. "local-context-rules-v1" (deterministic, no model) or a model name.' }),
        probabilityBefore: z.number(),
        reasons: z.array(z.string()),
      })
      .nullable(),
  })
  .openapi('ScreeningMatch');

export const ScreeningReportSchema = z
  .object({
    summary: z.object({
      verdict: z.enum(VERDICTS).openapi({
        description:
          'match_found: a shown match is confirmed. possible_match: matches are shown, none confirmed. no_matches_found: nothing shown and the retrieval was exhaustive (no search error, no plan clamp of the limit, no since filter, no withheld record): a genuine no match. inconclusive: nothing shown, and one of those does not hold.',
      }),
      matchCount: z.number().int(),
      bestBand: z.enum(BANDS as [string, ...string[]]).nullable(),
      bestProbability: z.number().nullable(),
      billedAs: z.enum(['match', 'genuine_no_match', 'none']).openapi({
        description:
          'What the check is priced as: match (100), genuine_no_match (no_matches_found, 20) or none (inconclusive, 0); per item in a batch, plus 80 on a single check when adjudicated.',
      }),
      adjudicated: z.boolean().openapi({ description: 'The adjudication pass answered for at least one candidate (+80 credits).' }),
      adjudicatedCandidates: z.number().int(),
    }),
    matches: z.array(ScreeningMatchSchema).openapi({ description: 'Strongest first; withheld cases never appear.' }),
    coverage: z.object({
      exhaustive: z.boolean().openapi({
        description:
          'Every case matching a screened name anywhere in the corpus was considered (no filter, no search error, no plan clamp of the limit, nothing cut).',
      }),
      exhaustiveWithinFilters: z.boolean().openapi({
        description:
          'Every case matching a screened name under the court and since filters was considered (no search error, no plan clamp of the limit, nothing cut).',
      }),
      someRecordsWithheld: z.boolean().openapi({ description: 'A case withheld under the removal policy matched and was left out.' }),
      candidatesConsidered: z.number().int(),
      limit: z.number().int().openapi({ description: 'The limit applied, after the tier clamp.' }),
      limitClamped: z.boolean().openapi({
        description: "The tier's page size reduced the requested or default limit; the run is then not exhaustive (rule 6).",
      }),
      namesSearched: z.number().int(),
      namesFailed: z
        .number()
        .int()
        .openapi({ description: 'Names whose search failed; any makes the run inconclusive unless something matched.' }),
    }),
  })
  .openapi('ScreeningReport');

/** The report as the schema types it (plain arrays). */
export function reportView(report: ScreeningReport): z.infer<typeof ScreeningReportSchema> {
  return {
    summary: report.summary,
    coverage: report.coverage,
    matches: report.matches.map((m) => ({
      ...m,
      signals: m.signals.map((sig) => ({ ...sig, spans: sig.spans.map((span) => ({ ...span })) })),
      adjudication: m.adjudication === null ? null : { ...m.adjudication, reasons: [...m.adjudication.reasons] },
    })),
  };
}
