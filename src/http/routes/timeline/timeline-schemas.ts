/**
 * The published shapes of a timeline request: the case timeline (hearings and orders from
 * the eCourts case-status record, stored or fetched live) and the job that carries it,
 * as both POST /request-timeline and GET /request-timeline/:requestId answer it. Examples
 * are from the real record of Gauhati High Court AB/3142/2018 (CNR GAHC010225502018).
 */
import { z } from '@hono/zod-openapi';
import { jobCharge, type TimelineJob } from '../../../application/timeline/timeline-jobs.ts';
import { JOB_RETENTION_DAYS } from '../../../domain/timeline-request/timeline-request.ts';

const day = z.string().nullable().openapi({ format: 'date', description: 'YYYY-MM-DD; null when the record gives none.' });

const Quirk = z.object({ field: z.string(), issue: z.string(), value: z.string().nullable() });

const Hearing = z.object({
  businessDate: day.openapi({ example: '2018-11-22', description: 'The day the business was done; null on a first-listing row.' }),
  hearingDate: day.openapi({ example: '2018-12-04', description: 'The date fixed at this business for the next hearing.' }),
  judge: z.string().nullable().openapi({ example: 'HONOURABLE MR. JUSTICE MANASH RANJAN PATHAK' }),
  purpose: z.string().nullable().openapi({ example: 'BAIL HEARING' }),
  causeListType: z.string().nullable().openapi({ example: 'Daily' }),
  courtNumber: z.string().nullable().openapi({ example: '1755' }),
  serialNumber: z.number().int().nullable().openapi({ description: 'The portal’s row number, which does not follow date order.' }),
  nextPurpose: z.string().nullable(),
  shortOrder: z.string().nullable(),
});

const Order = z.object({
  orderNumber: z.number().int().openapi({ example: 2 }),
  orderDate: day.openapi({ example: '2018-11-22' }),
  judge: z.string().nullable().openapi({ example: 'HONOURABLE MR. JUSTICE MANASH RANJAN PATHAK' }),
  kind: z.enum(['order', 'judgment']).nullable().openapi({ description: 'Null when the portal’s listing does not say.' }),
  documentAvailable: z.boolean().openapi({ description: 'Whether the portal links a document to this order.' }),
  documentId: z.string().nullable().openapi({ description: 'The portal’s id of the order’s document.' }),
});

export const CaseTimelineSchema = z
  .object({
    cnr: z.string().openapi({ example: 'GAHC010225502018' }),
    caseNumber: z.string().nullable().openapi({ example: 'AB/3142/2018' }),
    court: z.object({
      code: z.string().openapi({ example: 'GAHC' }),
      name: z.string().nullable().openapi({ description: 'Null for a live fetch of a CNR we do not hold.' }),
    }),
    status: z.enum(['pending', 'disposed', 'unknown']).openapi({ example: 'pending' }),
    stage: z.string().nullable().openapi({ example: 'BAIL HEARING' }),
    natureOfDisposal: z.string().nullable(),
    coram: z.string().nullable().openapi({ example: 'HONOURABLE MR. JUSTICE HITESH KUMAR SARMA' }),
    filingDate: day.openapi({ example: '2018-10-03' }),
    registrationDate: day.openapi({ example: '2018-10-04' }),
    firstHearingDate: day,
    nextHearingDate: day.openapi({ description: 'For a case not disposed: the date the latest hearing fixed (it can be past).' }),
    decisionDate: day,
    hearings: z.array(Hearing).openapi({ description: 'In date order.' }),
    orders: z.array(Order).openapi({ description: 'In date order.' }),
    source: z
      .enum(['stored', 'live'])
      .openapi({ description: 'stored: the record as ingested; live: fetched from the court portal for this job.' }),
    fetchedAt: z.string().openapi({ format: 'date-time', description: 'When the record was ingested (stored) or fetched (live).' }),
    quirks: z.array(Quirk).openapi({ description: 'What could not be read from the record, field by field; nothing is guessed.' }),
  })
  .openapi('CaseTimeline');

const ChargeState = z.enum(['none', 'reserved', 'charged', 'reversed', 'released']);

export const TimelineJobSchema = z
  .object({
    requestId: z.string().openapi({ example: 'tlr_1f0c6a52-5a0e-4c34-9a57-3f3b1c2d9e10' }),
    status: z.enum(['running', 'completed', 'failed']),
    caseId: z
      .string()
      .openapi({ example: 'hc-GAHC010225502018', description: 'The case; for a CNR we do not hold, the id it would have.' }),
    cnr: z.string().nullable().openapi({ example: 'GAHC010225502018' }),
    refresh: z.boolean().openapi({ description: 'True: a live fetch from the court portal.' }),
    timeline: CaseTimelineSchema.nullable().openapi({
      description: 'Present once completed; null while running, on failure, or when the case has no registry timeline (see note).',
    }),
    error: z
      .object({
        code: z.enum(['UPSTREAM_TIMEOUT', 'UPSTREAM_UNAVAILABLE', 'CASE_NOT_FOUND', 'INTERNAL_ERROR']),
        message: z.string(),
      })
      .nullable()
      .openapi({ description: 'Why a failed live fetch failed; its charge was given back.' }),
    charge: z
      .object({
        credits: z.number().int().openapi({ description: 'Held or charged now; 0 once given back or when nothing was due.' }),
        state: ChargeState,
      })
      .openapi({
        description:
          'reserved: admitted, not yet started; charged: the live fetch started; reversed or released: it failed and the credits came back; none: answered from the store.',
      }),
    pdfUrl: z.string().nullable().openapi({
      description:
        'Once completed: GET /cases/:id/pdf of the case when a document is stored for it (a live fetch stores the latest order document the portal serves); otherwise null.',
    }),
    statusUrl: z.string().openapi({ example: '/api/v1/prod/request-timeline/tlr_1f0c6a52-5a0e-4c34-9a57-3f3b1c2d9e10' }),
    createdAt: z.string().openapi({ format: 'date-time' }),
    finishedAt: z.string().nullable().openapi({ format: 'date-time' }),
    expiresAt: z.string().openapi({
      format: 'date-time',
      description: `${JOB_RETENTION_DAYS} days after createdAt; afterwards the job answers 404 JOB_NOT_FOUND.`,
    }),
    note: z.string().optional(),
  })
  .openapi('TimelineJob');

export type TimelineJobBody = z.infer<typeof TimelineJobSchema>;

const NO_REGISTRY_TIMELINE =
  'No registry timeline is held for this case: Supreme Court judgments and tribunal records carry no eCourts case-status record, and cannot be fetched live.';

export function jobBody(job: TimelineJob, links: { readonly statusUrl: string; readonly pdfUrl: string | null }): TimelineJobBody {
  const note = job.status === 'completed' && job.timeline === null ? NO_REGISTRY_TIMELINE : undefined;
  return {
    requestId: job.requestId,
    status: job.status,
    caseId: job.caseId,
    cnr: job.cnr,
    refresh: job.refresh,
    timeline: job.status === 'completed' ? (job.timeline as TimelineJobBody['timeline']) : null,
    error: job.status === 'failed' && job.errorCode !== null ? { code: job.errorCode, message: job.errorMessage ?? '' } : null,
    charge: jobCharge(job),
    pdfUrl: links.pdfUrl,
    statusUrl: links.statusUrl,
    createdAt: job.createdAt.toISOString(),
    finishedAt: job.finishedAt?.toISOString() ?? null,
    expiresAt: job.expiresAt.toISOString(),
    ...(note === undefined ? {} : { note }),
  };
}
