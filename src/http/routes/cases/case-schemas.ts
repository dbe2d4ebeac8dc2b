/**
 * The Case resource as the API shows it, shared by case detail and search results. The
 * spec names caseId, caseNumber and hasAnalysis; the rest is ours, modelled on what
 * CourtListener returns for an opinion cluster. Long prose fields (text, summary) are
 * watermarked per account; identifiers, names and dates never are.
 */
import { z } from '@hono/zod-openapi';
import type { CaseListing } from '../../../application/cases/case-reader.ts';

const Party = z.object({ name: z.string(), advocates: z.array(z.string()) });

export const CourtSchema = z
  .object({
    code: z.string().openapi({ example: 'SC', description: 'Court code as the source records it.' }),
    name: z.string().openapi({ example: 'Supreme Court of India' }),
    level: z.enum(['supreme', 'high', 'district', 'tribunal']),
  })
  .openapi('CaseCourt');

const caseFields = {
  caseId: z.string().openapi({ example: 'sc-meta-2015-1918', description: 'Document identifier.' }),
  caseNumber: z.string().openapi({ example: 'C.A. No.-001918-001918 - 2015', description: 'As the court printed it.' }),
  hasAnalysis: z.boolean().openapi({ description: 'Whether a stored AI analysis exists (GET /cases/:id/analysis).' }),
  court: CourtSchema,
  bench: z.string().nullable().openapi({ description: 'High Court bench, when known.' }),
  caseType: z.string().nullable().openapi({ example: 'C.A.' }),
  title: z.string().nullable().openapi({ example: 'STATE OF PUNJAB v. GURMIT SINGH' }),
  parties: z.object({ petitioners: z.array(Party), respondents: z.array(Party) }),
  judges: z.array(z.string()).openapi({ description: 'Exact stored spellings, usable as judgeName filter values.' }),
  decisionDate: z.string().nullable().openapi({ example: '2015-02-20', description: 'YYYY-MM-DD.' }),
  filingDate: z.string().nullable(),
  citations: z.array(z.string()),
  documentBearing: z.boolean().openapi({ description: 'Whether the order or judgment document is held (not a claim of full text).' }),
};

export const CaseListingSchema = z
  .object({ ...caseFields, score: z.number().openapi({ description: 'Relevance within this response; higher is better.' }) })
  .openapi('CaseSearchResult');

export const CaseSchema = z
  .object({
    ...caseFields,
    summary: z.string().nullable().openapi({ description: 'Headnote or abstract when the source has one. Watermarked.' }),
    text: z.string().nullable().openapi({ description: 'Full judgment text when held. Watermarked.' }),
  })
  .openapi('Case');

/** No analysis is stored until the analysis workflows land; the flag reads the store when they do. */
export function caseFieldsOf(view: CaseListing): z.infer<z.ZodObject<typeof caseFields>> {
  return {
    caseId: view.caseId,
    caseNumber: view.caseNumber,
    hasAnalysis: view.hasAnalysis,
    court: view.court,
    bench: view.bench,
    caseType: view.caseType,
    title: view.title,
    parties: { petitioners: [...view.parties.petitioners], respondents: [...view.parties.respondents] },
    judges: [...view.judges],
    decisionDate: view.decisionDate,
    filingDate: view.filingDate,
    citations: [...view.citations],
    documentBearing: view.documentBearing,
  };
}
