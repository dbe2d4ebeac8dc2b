/**
 * What each sentence of a judgment does, in the seven rhetorical roles of Bhattacharya et
 * al. (JURIX 2019), whose labelled Supreme Court judgments (sc-rhetorical-roles-50) the
 * cues below were read from: facts, the parties' arguments, the court's reasoning (ratio),
 * precedents discussed, statutes quoted, the lower court's ruling and the present court's
 * ruling. A sentence scores each role by cue phrases plus where it sits in the judgment
 * (facts come first, the operative order last); with no cue it continues the run it is in
 * (an argument or a quoted provision goes on for several sentences) or falls back on its
 * position. Transparent and deterministic rather than learned: every decision can be
 * traced to a phrase. The accuracy per role on that data is measured in
 * bench/analysis-rouge.ts and test/unit/analysis-roles.unit.test.ts. Pure.
 */

export type Role = 'facts' | 'argument' | 'ratio' | 'precedent' | 'statute' | 'lowerCourtRuling' | 'presentCourtRuling';
export const ROLES: readonly Role[] = ['facts', 'argument', 'ratio', 'precedent', 'statute', 'lowerCourtRuling', 'presentCourtRuling'];

interface Cue {
  readonly role: Role;
  readonly pattern: RegExp;
  readonly weight: number;
}

const LOWER_FORUM = String.raw`(?:high court|trial court|trial judge|sessions (?:judge|court)|(?:single|learned) judge|division bench|(?:industrial |labour |income[- ]tax appellate |administrative )?tribunal|magistrate|district judge|subordinate judge|(?:first )?appellate (?:court|authority)|courts? below|labour court|munsif|civil judge|additional judge|commissioner|collector|arbitrator|board|the judge)`;
const LOWER_FINDING = String.raw`(?:held|found|holding|finding|came to the conclusion|concluded|took the view|was of the (?:view|opinion)|opined|observed|negatived|rejected the|accepted the|answered)`;

const CUES: readonly Cue[] = [
  // The parties' arguments.
  {
    role: 'argument',
    pattern:
      /\b(?:contended|contends|contend|urged|urges|submitted|submits|argued|argues|canvassed|pleaded on behalf|learned (?:senior |additional )?(?:counsel|advocate|solicitor|attorney)|counsel (?:for|appearing)|appearing (?:for|on behalf)|on behalf of the (?:appellants?|respondents?|petitioners?|state|accused)|according to (?:him|them|the appellants?|the respondents?|the learned)|strenuously|sought to (?:argue|contend|support|derive|rely)|placed (?:strong )?reliance|it is the case of the|the (?:main |only |next |other )?(?:contention|submission|argument|plea|grievance) (?:of|on behalf|urged|raised|advanced|was|is that))\b/i,
    weight: 2,
  },
  { role: 'argument', pattern: /\b(?:mr|shri|sri|ms|mrs)\.? [a-z]/i, weight: 1 },
  // The court answering an argument is reasoning, not argument.
  {
    role: 'ratio',
    pattern:
      /\b(?:contention|submission|argument|plea|objection)s? (?:is|are|was|were|cannot|must|has|have|fails?|does not|do not|is not|appears?)\b.{0,40}\b(?:untenable|accepted|rejected|substance|merit|force|sustained|well[- ]founded|correct|acceptable|fail|no)\b|\b(?:we|us|our)\b.{0,60}\b(?:unable to (?:accept|agree)|cannot accept|do not accept|reject|accept)\b/i,
    weight: 2.5,
  },
  // A quoted or paraphrased provision.
  {
    role: 'statute',
    pattern:
      /\b(?:reads as (?:follows|under)|runs as follows|is as follows|provides (?:as follows|that|for)|lays down that|enacts that|in this act|under this act|of this act|this act|the official gazette|for the time being|in this behalf|as may be (?:prescribed|specified)|notwithstanding anything|provided (?:further )?that|shall be deemed|deals with|means and includes|unless the context otherwise requires)\b/i,
    weight: 2,
  },
  { role: 'statute', pattern: /\b(?:shall|means|includes|deemed)\b/i, weight: 0.6 },
  { role: 'statute', pattern: /^(?:\(?[a-z0-9]{1,4}\)|explanation\b|\d+[a-z]?\.\s)/i, weight: 1 },
  // Precedents the court discusses.
  {
    role: 'precedent',
    pattern:
      /\b(?:supra|privy council|house of lords|lord [a-z]+|(?:this|the) court (?:has )?(?:in|had)\b|in (?:the )?(?:case of|decision of|judgment of)|it was (?:held|observed|laid down|ruled)|(?:was|were|has been|had been) (?:observed|held|laid down|ruled) (?:by|in|that)|(?:this|the supreme) court (?:has |had )?(?:held|observed|ruled|laid down|pointed out|considered|reiterated|explained)|their lordships|in that case|the decisions? (?:in|of|relied)|(?:the )?(?:ratio|dictum|observations?) (?:of|in)|indlaw)\b/i,
    weight: 2,
  },
  { role: 'precedent', pattern: /\b[A-Za-z.&]+ (?:v|vs|versus)\.? [A-Za-z]/, weight: 1.5 },
  {
    role: 'precedent',
    pattern: /\b(?:A\.?I\.?R|S\.?C\.?C|S\.?C\.?R|SCALE|JT|I\.?L\.?R|All E\.?R|K\.?B|A\.?C)\.?\b.{0,12}\d/i,
    weight: 1.5,
  },
  // The lower court's ruling.
  { role: 'lowerCourtRuling', pattern: new RegExp(String.raw`\b${LOWER_FORUM}\b.{0,120}\b${LOWER_FINDING}\b`, 'i'), weight: 2.5 },
  {
    role: 'lowerCourtRuling',
    pattern:
      /\b(?:convicted|acquitted|sentenced|decreed|dismissed the (?:suit|appeal|petition|writ)|allowed the (?:appeal|petition|writ))\b/i,
    weight: 1,
  },
  // The present court's own order.
  {
    role: 'presentCourtRuling',
    pattern:
      /\b(?:(?:appeals?|petitions?|applications?|suits?|matters?|reference|cases?)\b.{0,60}\b(?:is|are|stands?|be|fails? and is|fail and are)\s+(?:hereby |accordingly |therefore |partly |also )?(?:dismissed|allowed|disposed of|rejected|remanded|remitted)|no order as to costs|(?:with|without) costs|bear their own costs|entitled to (?:the )?costs|we (?:accordingly |therefore |hereby |would )?(?:set aside|quash|allow|dismiss|remand|restore|uphold|affirm|direct|answer|constitute|award|order|modify|reduce|confirm|dispose)|in the result|the (?:impugned )?(?:order|judgment|conviction|sentence|award|decree)s? (?:of [a-z ]+ )?(?:is|are) (?:hereby |accordingly )?(?:set aside|quashed|upheld|affirmed|confirmed|restored|maintained)|appeals? (?:dismissed|allowed)|rule (?:is )?(?:made absolute|discharged)|(?:leave|bail) (?:is )?(?:granted|refused))\b/i,
    weight: 4,
  },
  {
    role: 'presentCourtRuling',
    pattern: /\bwe (?:therefore |accordingly |would )?hold that\b|\bfor (?:the|these) reasons\b/i,
    weight: 1.5,
  },
  // The court's reasoning.
  {
    role: 'ratio',
    pattern:
      /\b(?:in our (?:opinion|view|judgment)|we (?:are|were) (?:of|not|unable|satisfied|inclined|clearly|in agreement)|we (?:think|hold|find|agree|consider|see|have no|do not|cannot|must|may|would|are|shall|need)|it (?:is|was) (?:clear|settled|well[- ]settled|true|evident|obvious|manifest|plain|necessary|significant|difficult|impossible|unnecessary|not possible|not necessary|not disputed|not in dispute|important|relevant|apparent|noteworthy)|there (?:is|can be) (?:no|nothing|little)|the (?:question|point|issue) (?:is|that|which|for)|in (?:that|this) view|it follows|it must be|it cannot be|this (?:means|shows|would mean)|the (?:true|correct|proper) (?:test|position|view|construction|meaning)|we (?:now|next) (?:turn|come|proceed))\b/i,
    weight: 1.5,
  },
  { role: 'ratio', pattern: /\b(?:we|us|our)\b/i, weight: 0.8 },
  { role: 'ratio', pattern: /\b(?:is|are|must|cannot|can|would|should|may|does|do)\b/i, weight: 0.4 },
  // Facts: dated events, amounts, proceedings filed.
  {
    role: 'facts',
    pattern:
      /\b(?:on|dated|of|from|since)\s+(?:the\s+)?\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:january|february|march|april|may|june|july|august|september|october|november|december)|\b(?:january|february|march|april|may|june|july|august|september|october|november|december)\s+\d{1,2},?\s+\d{4}|\b\d{1,2}[./-]\d{1,2}[./-]\d{2,4}\b/i,
    weight: 1.5,
  },
  {
    role: 'facts',
    pattern:
      /\b(?:filed|instituted|lodged|registered|preferred|was appointed|were appointed|was arrested|was charged|were charged|was served|purchased|executed|was married|died|was employed|joined|was transferred|was promoted|was terminated|f\.?i\.?r|complainant|deceased|the prosecution case|rs\.? ?\d|the plaint|the suit|was granted|was issued|was passed|issued a (?:notice|show cause))\b/i,
    weight: 1,
  },
  { role: 'facts', pattern: /\b(?:was|were|had|did)\b/i, weight: 0.3 },
];

/** Roles that run on across sentences without a fresh cue (measured: letting facts or precedents run costs accuracy). */
const RUNS: ReadonlySet<Role> = new Set(['argument', 'statute']);
const CUE_THRESHOLD = 0.5;

function positionPrior(role: Role, position: number): number {
  switch (role) {
    case 'facts':
      return position < 0.15 ? 1.2 : position < 0.3 ? 0.8 : 0;
    case 'presentCourtRuling':
      return position > 0.9 ? 1 : 0;
    case 'lowerCourtRuling':
      return position < 0.4 ? 0.5 : 0;
    case 'ratio':
      return position > 0.3 ? 1.2 : 0;
    case 'argument':
    case 'precedent':
    case 'statute':
      return 0;
    default: {
      const never: never = role;
      return never;
    }
  }
}

export interface RoleInput {
  readonly text: string;
  /** 0 at the body's first sentence, 1 at its last. */
  readonly position: number;
}

function cueScores(text: string): Map<Role, number> {
  const scores = new Map<Role, number>();
  for (const cue of CUES) if (cue.pattern.test(text)) scores.set(cue.role, (scores.get(cue.role) ?? 0) + cue.weight);
  return scores;
}

/** The role of each sentence, in order. */
export function classifyRoles(sentences: readonly RoleInput[]): Role[] {
  const roles: Role[] = [];
  let previous: Role | null = null;
  for (const s of sentences) {
    // Some sources drop the space after commas ("Accordingly,we set aside"), which would hide the cue.
    const cues = cueScores(s.text.replace(/([,;])(?=\S)/g, '$1 '));
    const strongest = Math.max(0, ...cues.values());
    let best: Role = 'ratio';
    let bestScore = -Infinity;
    for (const role of ROLES) {
      const score = (cues.get(role) ?? 0) + positionPrior(role, s.position) + (role === previous && RUNS.has(role) ? 1 : 0);
      if (score > bestScore) {
        best = role;
        bestScore = score;
      }
    }
    const role: Role = strongest >= CUE_THRESHOLD || previous === null || !RUNS.has(previous) ? best : previous;
    roles.push(role);
    previous = role;
  }
  return roles;
}
