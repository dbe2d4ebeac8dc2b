/**
 * The four confidence bands a litigation-check match falls in, read straight off its
 * calibrated probability (spec "Litigation check confidence bands"). Kept apart from the
 * rules that cap a probability so the table has exactly one home. Pure, no IO.
 */

export type Band = 'confirmed' | 'probable' | 'possible' | 'unlikely';

/** Lowest probability of each band; `unlikely` is everything below `possible`. */
export const BAND_FLOORS = { confirmed: 0.9, probable: 0.7, possible: 0.45 } as const;

/** Strongest first, the order matches are reported in. */
export const BANDS: readonly Band[] = ['confirmed', 'probable', 'possible', 'unlikely'];

export function bandOf(probability: number): Band {
  if (probability >= BAND_FLOORS.confirmed) return 'confirmed';
  if (probability >= BAND_FLOORS.probable) return 'probable';
  if (probability >= BAND_FLOORS.possible) return 'possible';
  return 'unlikely';
}
