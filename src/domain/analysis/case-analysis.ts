/**
 * The analysis of one judgment (or of every document sharing a case number) as the API
 * stores and returns it: plain JSON data, the same whichever analyser produced it. Every
 * extracted item says where it came from: the document (`caseId`) and the paragraphs of
 * that document (numbered from 1, as `paragraphsOf` splits the text). A single-document
 * analysis carries the same caseId everywhere; a consolidated one mixes them, which is
 * why the reference sits on each item and not once at the top. `model` names what
 * produced the analysis; `disclaimer` labels it a research aid, never legal advice.
 */

/** Where a statement came from: one document and paragraphs of it, ascending. */
export interface SourceRef {
  readonly caseId: string;
  readonly paragraphs: readonly number[];
}

/** A sentence or passage taken from the judgment. */
export interface Passage extends SourceRef {
  readonly text: string;
}

/** A question the court framed and, when the text states one, its answer. */
export interface Issue extends SourceRef {
  readonly question: string;
  readonly holding: string | null;
}

/** Law reports whose citations are parsed into parts. */
export const REPORTERS = [
  'AIR',
  'SCC',
  'SCR',
  'SCALE',
  'JT',
  'ITR',
  'ILR',
  'Indlaw',
  'AC',
  'KB',
  'QB',
  'Ch',
  'All ER',
  'WLR',
  'ER',
] as const;
export type Reporter = (typeof REPORTERS)[number];

/**
 * A citation as printed, with its parts. `report`: a law report (volume is the printed
 * volume, "Supp" or "Supp (1)" included; court is the AIR or JT court segment, e.g. "SC",
 * "Cal"). `neutral`: a court's own numbering, "2023 INSC 1" or "2019:DHC:1234".
 */
export type Citation =
  | {
      readonly kind: 'report';
      readonly printed: string;
      readonly reporter: Reporter;
      readonly year: number | null;
      readonly volume: string | null;
      readonly court: string | null;
      readonly page: number;
    }
  | { readonly kind: 'neutral'; readonly printed: string; readonly year: number; readonly court: string; readonly number: number };

/** How the judgment treats a case it cites. */
export type Treatment = 'followed' | 'distinguished' | 'overruled' | 'referred';
export const TREATMENTS: readonly Treatment[] = ['followed', 'distinguished', 'overruled', 'referred'];

/**
 * One authority the judgment cites: its parallel citations (empty when the text names the
 * case without a citation, as the law-report texts whose footnotes were cut do), its name
 * when the text gives it, and the paragraphs citing it.
 */
export interface CitedCase extends SourceRef {
  readonly caseName: string | null;
  readonly citations: readonly Citation[];
}

export type CitedCases = { readonly [T in Treatment]: readonly CitedCase[] };

/**
 * What weight the decision carries as a precedent, from the court that gave it (Article
 * 141 of the Constitution for the Supreme Court; a High Court binds the courts
 * subordinate to it) and, when the text lists it, the size of the bench.
 */
export interface PrecedentValue {
  readonly level: 'binding' | 'persuasive' | 'unknown';
  readonly court: string;
  readonly benchStrength: number | null;
  readonly reason: string;
}

export interface CaseAnalysis {
  readonly summary: string;
  readonly summarySources: readonly SourceRef[];
  readonly detailedSummary: string;
  readonly detailedSummarySources: readonly SourceRef[];
  readonly headnote: string;
  readonly headnoteSources: readonly SourceRef[];
  readonly keyFacts: readonly Passage[];
  readonly issues: readonly Issue[];
  readonly courtsReasoning: readonly Passage[];
  readonly citedCases: CitedCases;
  readonly practiceAreas: readonly string[];
  readonly legalPrinciples: readonly Passage[];
  readonly precedentValue: PrecedentValue;
  readonly model: string;
  readonly disclaimer: string;
}

export const ANALYSIS_DISCLAIMER =
  'Research aid produced by software from the judgment text; not legal advice. Verify every statement against the judgment (the paragraph references say where to look) before relying on it.';
