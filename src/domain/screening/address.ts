/**
 * The caller's address as words a court record would use. The request carries a city, a
 * state and a state code (a GST state number like "27" or a two-letter code like "MH");
 * records write the state in full and often under an old or new city name ("Bombay",
 * "Mumbai"). An address only ever corroborates a match, never filters one. Pure.
 */

/** GST state numbers (also the first two digits of a GSTIN) and two-letter codes, to names. */
const STATES: readonly (readonly [string, readonly string[], string])[] = [
  ['01', ['JK'], 'JAMMU AND KASHMIR'],
  ['02', ['HP'], 'HIMACHAL PRADESH'],
  ['03', ['PB'], 'PUNJAB'],
  ['04', ['CH'], 'CHANDIGARH'],
  ['05', ['UK', 'UT'], 'UTTARAKHAND'],
  ['06', ['HR'], 'HARYANA'],
  ['07', ['DL'], 'DELHI'],
  ['08', ['RJ'], 'RAJASTHAN'],
  ['09', ['UP'], 'UTTAR PRADESH'],
  ['10', ['BR'], 'BIHAR'],
  ['11', ['SK'], 'SIKKIM'],
  ['12', ['AR'], 'ARUNACHAL PRADESH'],
  ['13', ['NL'], 'NAGALAND'],
  ['14', ['MN'], 'MANIPUR'],
  ['15', ['MZ'], 'MIZORAM'],
  ['16', ['TR'], 'TRIPURA'],
  ['17', ['ML'], 'MEGHALAYA'],
  ['18', ['AS'], 'ASSAM'],
  ['19', ['WB'], 'WEST BENGAL'],
  ['20', ['JH'], 'JHARKHAND'],
  ['21', ['OD', 'OR'], 'ODISHA'],
  ['22', ['CG', 'CT'], 'CHHATTISGARH'],
  ['23', ['MP'], 'MADHYA PRADESH'],
  ['24', ['GJ'], 'GUJARAT'],
  ['26', ['DN', 'DD', 'DH'], 'DADRA AND NAGAR HAVELI AND DAMAN AND DIU'],
  ['27', ['MH'], 'MAHARASHTRA'],
  ['29', ['KA'], 'KARNATAKA'],
  ['30', ['GA'], 'GOA'],
  ['31', ['LD'], 'LAKSHADWEEP'],
  ['32', ['KL'], 'KERALA'],
  ['33', ['TN'], 'TAMIL NADU'],
  ['34', ['PY'], 'PUDUCHERRY'],
  ['35', ['AN'], 'ANDAMAN AND NICOBAR ISLANDS'],
  ['36', ['TG', 'TS'], 'TELANGANA'],
  ['37', ['AP'], 'ANDHRA PRADESH'],
  ['38', ['LA'], 'LADAKH'],
];

/** Names a place has gone by; records from before a renaming use the old one. */
const PLACE_NAMES: readonly (readonly string[])[] = [
  ['MUMBAI', 'BOMBAY'],
  ['CHENNAI', 'MADRAS'],
  ['KOLKATA', 'CALCUTTA'],
  ['BENGALURU', 'BANGALORE'],
  ['GURUGRAM', 'GURGAON'],
  ['PUNE', 'POONA'],
  ['VADODARA', 'BARODA'],
  ['THIRUVANANTHAPURAM', 'TRIVANDRUM'],
  ['KOCHI', 'COCHIN', 'ERNAKULAM'],
  ['MYSURU', 'MYSORE'],
  ['VARANASI', 'BENARES', 'BANARAS'],
  ['PRAYAGRAJ', 'ALLAHABAD'],
  ['KOZHIKODE', 'CALICUT'],
  ['KANPUR', 'CAWNPORE'],
  ['SHIMLA', 'SIMLA'],
  ['PUDUCHERRY', 'PONDICHERRY'],
  ['ODISHA', 'ORISSA'],
  ['UTTARAKHAND', 'UTTARANCHAL'],
  ['BELAGAVI', 'BELGAUM'],
  ['MANGALURU', 'MANGALORE'],
  ['KALABURAGI', 'GULBARGA'],
  ['PANAJI', 'PANJIM'],
];

function normalisePlace(place: string): string {
  return place
    .toUpperCase()
    .replace(/&/g, ' AND ')
    .replace(/[^A-Z0-9]+/g, ' ')
    .trim();
}

function withOtherNames(place: string): string[] {
  const group = PLACE_NAMES.find((names) => names.includes(place));
  return group === undefined ? [place] : [...group];
}

export function stateName(code: string): string | undefined {
  const c = code.trim().toUpperCase();
  return STATES.find(([number, letters]) => number === c.padStart(2, '0') || letters.includes(c))?.[2];
}

export interface AddressPlaces {
  /** City spellings, old and new, upper case. */
  cities: readonly string[];
  /** State names, upper case. */
  states: readonly string[];
}

export function placesOf(address: { city?: string; state?: string; stateCode?: string } | undefined): AddressPlaces {
  const city = normalisePlace(address?.city ?? '');
  const state = normalisePlace(address?.state ?? '');
  const fromCode = address?.stateCode === undefined ? undefined : stateName(address.stateCode);
  const states = [...new Set([state, fromCode ?? ''].filter((s) => s !== '').flatMap(withOtherNames))];
  return { cities: city === '' ? [] : withOtherNames(city), states };
}
