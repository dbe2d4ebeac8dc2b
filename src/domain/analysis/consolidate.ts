/**
 * One analysis for every document that shares a case number (the judgment, its orders,
 * a review), made from each document's own analysis. Every item names its document
 * (caseId, set here from the caller's pairing so it cannot be wrong) and that document's
 * paragraphs, so merging never renumbers: lists
 * are concatenated in the order given, and a summary is each document's summary in turn,
 * its sources listed in the same order. Passages, issues and summaries printed
 * word-for-word in an earlier document (the same judgment stored twice) are kept once.
 * A cited case keeps the treatment its own document gives it. Practice areas are ranked
 * by how many documents name them; the precedent value is the strongest any document
 * carries. Pure.
 */
import {
  ANALYSIS_DISCLAIMER,
  type CaseAnalysis,
  type CitedCase,
  type CitedCases,
  type Passage,
  type PrecedentValue,
  type SourceRef,
  type Treatment,
} from './case-analysis.ts';

export interface DocumentAnalysis {
  readonly caseId: string;
  readonly analysis: CaseAnalysis;
}

function uniqueBy<T>(items: readonly T[], key: (item: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const k = key(item);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

function joinedTexts(parts: readonly { text: string; sources: readonly SourceRef[] }[]): { text: string; sources: SourceRef[] } {
  const kept = uniqueBy(
    parts.filter((p) => p.text !== ''),
    (p) => p.text,
  );
  return { text: kept.map((p) => p.text).join('\n\n'), sources: kept.flatMap((p) => p.sources) };
}

const LEVEL_RANK: Readonly<Record<PrecedentValue['level'], number>> = { binding: 2, persuasive: 1, unknown: 0 };

function strongestPrecedent(values: readonly PrecedentValue[]): PrecedentValue {
  return values.reduce((best, v) =>
    LEVEL_RANK[v.level] > LEVEL_RANK[best.level] || (v.level === best.level && (v.benchStrength ?? 0) > (best.benchStrength ?? 0))
      ? v
      : best,
  );
}

function rankedAreas(lists: readonly (readonly string[])[]): string[] {
  const count = new Map<string, number>();
  for (const list of lists) for (const area of list) count.set(area, (count.get(area) ?? 0) + 1);
  return [...count.keys()].sort((a, b) => count.get(b)! - count.get(a)!);
}

/** Every reference in the analysis names this document, whatever the analyser wrote. */
function stamped(analysis: CaseAnalysis, caseId: string): CaseAnalysis {
  const ref = <T extends SourceRef>(item: T): T => ({ ...item, caseId });
  return {
    ...analysis,
    summarySources: analysis.summarySources.map(ref),
    detailedSummarySources: analysis.detailedSummarySources.map(ref),
    headnoteSources: analysis.headnoteSources.map(ref),
    keyFacts: analysis.keyFacts.map(ref),
    issues: analysis.issues.map(ref),
    courtsReasoning: analysis.courtsReasoning.map(ref),
    legalPrinciples: analysis.legalPrinciples.map(ref),
    citedCases: {
      followed: analysis.citedCases.followed.map(ref),
      distinguished: analysis.citedCases.distinguished.map(ref),
      overruled: analysis.citedCases.overruled.map(ref),
      referred: analysis.citedCases.referred.map(ref),
    },
  };
}

/** Merges the analyses of the documents sharing one case number; at least one is required. */
export function consolidate(analyses: readonly DocumentAnalysis[]): CaseAnalysis {
  const first = analyses[0];
  if (first === undefined) throw new RangeError('consolidate needs the analysis of at least one document');
  if (analyses.length === 1) return stamped(first.analysis, first.caseId);
  const all = analyses.map((a) => stamped(a.analysis, a.caseId));
  const passages = (pick: (a: CaseAnalysis) => readonly Passage[]): Passage[] => uniqueBy(all.flatMap(pick), (p) => p.text);
  const summary = joinedTexts(all.map((a) => ({ text: a.summary, sources: a.summarySources })));
  const detailed = joinedTexts(all.map((a) => ({ text: a.detailedSummary, sources: a.detailedSummarySources })));
  const headnote = joinedTexts(all.map((a) => ({ text: a.headnote, sources: a.headnoteSources })));
  const cited = (t: Treatment): CitedCase[] => all.flatMap((a) => a.citedCases[t]);
  const citedCases: CitedCases = {
    followed: cited('followed'),
    distinguished: cited('distinguished'),
    overruled: cited('overruled'),
    referred: cited('referred'),
  };
  return {
    summary: summary.text,
    summarySources: summary.sources,
    detailedSummary: detailed.text,
    detailedSummarySources: detailed.sources,
    headnote: headnote.text,
    headnoteSources: headnote.sources,
    keyFacts: passages((a) => a.keyFacts),
    issues: uniqueBy(
      all.flatMap((a) => a.issues),
      (i) => `${i.question}\u0000${i.holding ?? ''}`,
    ),
    courtsReasoning: passages((a) => a.courtsReasoning),
    citedCases,
    practiceAreas: rankedAreas(all.map((a) => a.practiceAreas)),
    legalPrinciples: passages((a) => a.legalPrinciples),
    precedentValue: strongestPrecedent(all.map((a) => a.precedentValue)),
    model: [...new Set(all.map((a) => a.model))].join(' + '),
    disclaimer: ANALYSIS_DISCLAIMER,
  };
}
