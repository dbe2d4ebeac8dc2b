/**
 * Party-name normalisation for search. Cause titles carry honorifics ("SHRI", "SMT.",
 * "M/S."), company-form noise ("(P) LTD.", "PVT. LTD.") and list endings ("& ORS.",
 * "AND ANR.") that users leave out or write differently, and abbreviations with their long
 * forms ("U.O.I."). Both the indexed names and the query go through the same rules, so
 * "M/s. Hydro (Engineers) Pvt. Ltd." and "Hydro Engineers" meet. Names arrive with HTML
 * entities already decoded (the ingest layer does that). Pure, no IO.
 */
import { expandLegalAbbreviations } from './legal-abbreviations.ts';

/** "& ORS.", "AND ANR.", "& ANOTHER", "AND OTHERS", "ETC.": who else is on the side. */
const LIST_ENDINGS = /(?:&|\bAND\b)\s*(?:ORS|ANR|OTHERS|ANOTHER)\b\.?|\bETC\b\.?/g;

/** Honorifics and forms of address, with or without their dot. */
const HONORIFICS = /(?<![A-Z0-9])(?:M\/S|MESSRS|SHRIMATI|SHRI|SHREE|SRI|SH|SMT|KUMARI|KUM|DR|MR|MRS|MS|PROF|LATE)\b\.?(?![A-Z0-9])|^THE\b/g;

/** Company-form words that say nothing about which company. */
const COMPANY_FORMS = /\(\s*P\s*\)|\bPVT\b\.?|\bPRIVATE\b|\bLTD\b\.?|\bLIMITED\b/g;

/** Upper case, abbreviations written out, noise words gone; punctuation still in place. */
export function dropNameNoise(text: string): string {
  return expandLegalAbbreviations(text.toUpperCase())
    .replace(LIST_ENDINGS, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(HONORIFICS, ' ')
    .replace(COMPANY_FORMS, ' ');
}

export function normalisePartyName(name: string): string {
  return dropNameNoise(name)
    .replace(/[^A-Z0-9]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}
