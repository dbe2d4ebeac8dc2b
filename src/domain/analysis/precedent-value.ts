/**
 * What a decision weighs as precedent, from what the record supports: the court that gave
 * it and, when the text lists the bench, how many judges sat. The law declared by the
 * Supreme Court binds every court in India (Constitution, Article 141); a High Court's
 * decision binds the courts and tribunals subordinate to it and persuades elsewhere; a
 * tribunal's or a trial court's order settles the dispute but is not binding precedent on
 * other courts. A larger bench's view prevails over a smaller one's, so the strength is
 * reported when known; dissents recorded in the text are noted. Anything else is
 * 'unknown' rather than guessed. Pure.
 */
import type { PrecedentValue } from './case-analysis.ts';

/** Judges listed in an Indian Kanoon "bench:" block or a "CORAM:" line. */
export function benchStrengthOf(text: string): number | null {
  const head = text.slice(0, 6000);
  const blocks = [...head.matchAll(/(?<=^|\n)bench:[ \t]*\n((?:[^\n:]+\n)+?)(?=[a-z ]+:)/gi)];
  const block = blocks.at(-1)?.[1];
  if (block !== undefined) {
    const judges = new Set(
      block
        .split('\n')
        .map((l) => l.trim().toLowerCase())
        .filter((l) => l !== ''),
    );
    if (judges.size > 0) return judges.size;
  }
  const coram = /\bcoram\s*:\s*([^\n]+)/i.exec(head)?.[1];
  if (coram !== undefined) {
    const judges = coram.split(/,|\band\b|&/i).filter((j) => /[a-z]{3,}/i.test(j));
    if (judges.length > 0) return judges.length;
  }
  return null;
}

const DISSENT =
  /\b(?:dissenting (?:opinion|judgment|note)|delivered a dissenting|I (?:regret|am) (?:I am )?unable to agree with (?:my )?(?:learned )?brother)/i;

export function precedentValueOf(courtName: string, text: string): PrecedentValue {
  const benchStrength = benchStrengthOf(text);
  const bench = benchStrength === null ? '' : ` Bench of ${String(benchStrength)} judge${benchStrength === 1 ? '' : 's'}.`;
  const dissent = DISSENT.test(text) ? ' The text records a dissent; the majority opinion is the precedent.' : '';
  const court = courtName.trim();
  if (/\bsupreme court\b/i.test(court)) {
    return {
      level: 'binding',
      court,
      benchStrength,
      reason: `Supreme Court decision: the law it declares binds all courts in India (Constitution, Article 141).${bench}${dissent}`,
    };
  }
  if (/\bhigh court\b/i.test(court)) {
    return {
      level: 'binding',
      court,
      benchStrength,
      reason: `High Court decision: binds the courts and tribunals subordinate to it; persuasive before other High Courts.${bench}${dissent}`,
    };
  }
  if (/\b(?:tribunal|commission|district|sessions|magistrate|civil judge|munsif|family court)\b/i.test(court)) {
    return {
      level: 'persuasive',
      court,
      benchStrength,
      reason: `Decision of a tribunal or trial-level court: binds the parties but is not binding precedent on other courts.${bench}${dissent}`,
    };
  }
  return {
    level: 'unknown',
    court,
    benchStrength,
    reason: `The court's place in the hierarchy could not be determined from its name.${bench}${dissent}`,
  };
}
