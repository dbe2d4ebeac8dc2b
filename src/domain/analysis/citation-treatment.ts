/**
 * How the judgment treats a case it cites, read from the words around the reference:
 * overruled ("overruled", "does not lay down good law", "per incuriam", "disapproved"),
 * distinguished ("distinguishable", "has no application", "not followed", "dissent from":
 * the court declines to apply it without setting it aside), followed ("followed", "relied
 * upon", "approved", "affirmed", "squarely covers") or, with none of those, referred.
 * Reliance counts as following only when no one else (counsel, a party, the court below)
 * is the one relying, and overruling an objection is not overruling a case. When a case draws several
 * treatments across the judgment the strongest wins, in that order. Pure.
 */
import type { Treatment } from './case-analysis.ts';

const OVERRULED_OBJECTION =
  /\boverrul\w* (?:the |this |his |that |their |its )?(?:preliminary )?(?:objection|contention|plea|prayer|submission)s?\b/gi;
/** Someone other than this court relying on a case: counsel, a party, the court below. */
const OTHER_ACTOR =
  /\b(?:counsel|advocate|attorney|solicitor|mr|shri|sri|appellants?|respondents?|petitioners?|he|she|they|prosecution|defence|accused|high court|trial court|tribunal|learned judges?|sessions judge|courts? below)\b/i;
const RELIANCE = /\b(?:relied (?:up)?on|rel(?:y|ies|ying) (?:up)?on|reliance (?:is|was|has been|may be) placed)\b/i;

const CUES: readonly { treatment: Exclude<Treatment, 'referred'>; pattern: RegExp }[] = [
  {
    treatment: 'overruled',
    pattern:
      /\b(?:overrul(?:e|ed|es|ing)|(?:do|does|did) not (?:lay down|state|represent) (?:the )?(?:correct|good|right) (?:law|position)|(?:not|no longer) (?:a )?(?:good|correct) law|cannot be (?:considered|regarded|treated|held) (?:to be |as )?(?:good|correct) law|disapprov(?:e|ed|ing)|per incuriam|wrongly decided)\b/i,
  },
  {
    treatment: 'distinguished',
    pattern:
      /\b(?:distinguishable|distinguish(?:ed|es|ing)? (?:it|them|that|this|those|these|the (?:case|decision|judgment)s?|on)|(?:is|are|was|were|be) distinguished|(?:has|have|had) no (?:application|bearing|relevance)|(?:not|in)applicable to the (?:facts|present|case|instant)|(?:does|do|can|did) not (?:apply|help|assist|advance|support)|of no (?:assistance|help|avail)|(?:facts|circumstances) (?:of|in) (?:that|those|the said) cases? (?:were|are) (?:quite |entirely |wholly |altogether )?different|not followed|(?:decline|refuse|unable) to follow|dissent(?:ed|ing)? from|(?:unable|not able) to agree with)\b/i,
  },
  {
    treatment: 'followed',
    pattern:
      /\b(?:followed|follow(?:ing)? (?:the|that|this|it)|approv(?:ed|e|ing)|affirmed|reaffirmed|reiterated|applied|applies (?:squarely|with (?:full|equal) force)|squarely (?:covers?|appl(?:y|ies))|concluded by|(?:in|with) (?:respectful )?agreement with|we (?:respectfully )?(?:agree|concur) with|binding on us|bound by|consistently held|the principle (?:laid down|enunciated|stated) in)\b/i,
  },
];

/** The treatment the words say, before any counsel's reliance or overruled objection. */
export function treatmentIn(context: string): Treatment {
  const read = context.replace(OVERRULED_OBJECTION, ' ');
  for (const cue of CUES) if (cue.pattern.test(read)) return cue.treatment;
  return RELIANCE.test(read) && !OTHER_ACTOR.test(read) ? 'followed' : 'referred';
}

const STRENGTH: Readonly<Record<Treatment, number>> = { overruled: 3, distinguished: 2, followed: 1, referred: 0 };

export function strongest(a: Treatment, b: Treatment): Treatment {
  return STRENGTH[b] > STRENGTH[a] ? b : a;
}
