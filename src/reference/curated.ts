/**
 * HAND-CURATED PUBLIC KNOWLEDGE for the reference generator (scripts/build-reference.ts).
 * Everything the datasets do not say lives here and nowhere else: our stable ids, readable
 * court and bench names, well-known aliases, which open-dataset bench partition is which
 * portal bench, the Supreme Court and district-courts nodes, the meaning of Supreme Court
 * case-number prefixes, and the standard case-type labels with the description patterns
 * that sort High Court dropdown options into them. Codes themselves always come from data.
 */

export interface CuratedBench {
  /** Bench partition name in the open High Court dataset (bench-codes.json key). */
  readonly openDataset: string;
  /** Bench code within the High Court on the eCourts portals (dropdown portal_bench_code). */
  readonly hcServicesCourt: string;
  readonly id: string;
  readonly name: string;
  readonly city: string;
  readonly aliases?: readonly string[];
}

export interface CuratedHighCourt {
  /** Key into court-codes.json ("STATE~COURT" on the judgments portal). */
  readonly judgmentsPortal: string;
  readonly id: string;
  readonly name: string;
  readonly aliases: readonly string[];
  readonly benches: readonly CuratedBench[];
}

export interface CuratedCourt {
  readonly id: string;
  readonly name: string;
  readonly abbreviation?: string;
  readonly aliases: readonly string[];
}

export const SUPREME_COURT: CuratedCourt = {
  id: 'supreme-court',
  name: 'Supreme Court of India',
  abbreviation: 'SCI',
  aliases: ['Supreme Court', "Hon'ble Supreme Court of India", 'Indian Supreme Court', 'SC'],
};

/** The corpus and the coverage record roll every district court up into one node. */
export const DISTRICT_COURTS: CuratedCourt = {
  id: 'district-courts',
  name: 'District Courts',
  aliases: [
    'District Court',
    'districtCourts',
    'District and Sessions Courts',
    'District and Sessions Court',
    'Subordinate Courts',
    'Subordinate Judiciary',
  ],
};

/**
 * The 25 High Courts. Bench mapping (open-dataset partition -> portal bench code) follows the
 * portal bench names; Bombay's "testcase" and "newos_spl" partitions are assigned to the
 * Nagpur bench and the Special Court (TORTS) by elimination, the only two left over.
 */
export const HIGH_COURTS: readonly CuratedHighCourt[] = [
  {
    judgmentsPortal: '9~13',
    id: 'allahabad-hc',
    name: 'Allahabad High Court',
    aliases: ['High Court of Judicature at Allahabad', 'Allahabad HC', 'High Court of Allahabad'],
    benches: [
      {
        openDataset: 'cisdb_16012018',
        hcServicesCourt: '1',
        id: 'allahabad-hc-prayagraj',
        name: 'Principal Seat at Prayagraj',
        city: 'Prayagraj',
        aliases: ['Principal Seat at Allahabad'],
      },
      { openDataset: 'cishclko', hcServicesCourt: '2', id: 'allahabad-hc-lucknow', name: 'Lucknow Bench', city: 'Lucknow' },
    ],
  },
  {
    judgmentsPortal: '28~2',
    id: 'andhra-pradesh-hc',
    name: 'Andhra Pradesh High Court',
    aliases: ['High Court of Andhra Pradesh', 'AP High Court', 'Andhra Pradesh HC', 'High Court of Andhra Pradesh at Amaravati'],
    benches: [
      {
        openDataset: 'aphc',
        hcServicesCourt: '1',
        id: 'andhra-pradesh-hc-amaravati',
        name: 'Principal Seat at Amaravati',
        city: 'Amaravati',
      },
    ],
  },
  {
    judgmentsPortal: '27~1',
    id: 'bombay-hc',
    name: 'Bombay High Court',
    aliases: ['High Court of Bombay', 'High Court of Judicature at Bombay', 'Bombay HC', 'Mumbai High Court'],
    benches: [
      {
        openDataset: 'newas',
        hcServicesCourt: '1',
        id: 'bombay-hc-appellate-side',
        name: 'Principal Seat, Appellate Side',
        city: 'Mumbai',
      },
      { openDataset: 'newos', hcServicesCourt: '2', id: 'bombay-hc-original-side', name: 'Principal Seat, Original Side', city: 'Mumbai' },
      {
        openDataset: 'hcaurdb',
        hcServicesCourt: '3',
        id: 'bombay-hc-aurangabad',
        name: 'Aurangabad Bench',
        city: 'Chhatrapati Sambhajinagar',
        aliases: ['Bombay High Court at Aurangabad'],
      },
      {
        openDataset: 'testcase',
        hcServicesCourt: '4',
        id: 'bombay-hc-nagpur',
        name: 'Nagpur Bench',
        city: 'Nagpur',
        aliases: ['Bombay High Court at Nagpur'],
      },
      {
        openDataset: 'hcbgoa',
        hcServicesCourt: '5',
        id: 'bombay-hc-goa',
        name: 'Goa Bench',
        city: 'Panaji',
        aliases: ['Bombay High Court at Goa', 'High Court of Bombay at Goa'],
      },
      {
        openDataset: 'newos_spl',
        hcServicesCourt: '6',
        id: 'bombay-hc-special-court-torts',
        name: 'Special Court (TORTS)',
        city: 'Mumbai',
      },
      {
        openDataset: 'kolhcdb',
        hcServicesCourt: '7',
        id: 'bombay-hc-kolhapur',
        name: 'Kolhapur Bench',
        city: 'Kolhapur',
        aliases: ['Bombay High Court at Kolhapur'],
      },
    ],
  },
  {
    judgmentsPortal: '19~16',
    id: 'calcutta-hc',
    name: 'Calcutta High Court',
    aliases: ['High Court at Calcutta', 'High Court of Calcutta', 'Calcutta HC', 'Kolkata High Court'],
    benches: [
      {
        openDataset: 'calcutta_original_side',
        hcServicesCourt: '1',
        id: 'calcutta-hc-original-side',
        name: 'Original Side',
        city: 'Kolkata',
      },
      {
        openDataset: 'calcutta_circuit_bench_at_jalpaiguri',
        hcServicesCourt: '2',
        id: 'calcutta-hc-jalpaiguri',
        name: 'Circuit Bench at Jalpaiguri',
        city: 'Jalpaiguri',
      },
      {
        openDataset: 'calcutta_appellate_side',
        hcServicesCourt: '3',
        id: 'calcutta-hc-appellate-side',
        name: 'Appellate Side',
        city: 'Kolkata',
      },
      {
        openDataset: 'calcutta_circuit_bench_at_port_blair',
        hcServicesCourt: '4',
        id: 'calcutta-hc-port-blair',
        name: 'Circuit Bench at Port Blair',
        city: 'Port Blair',
      },
    ],
  },
  {
    judgmentsPortal: '22~18',
    id: 'chhattisgarh-hc',
    name: 'Chhattisgarh High Court',
    aliases: ['High Court of Chhattisgarh', 'Chhattisgarh HC', 'Bilaspur High Court'],
    benches: [
      {
        openDataset: 'cghccisdb',
        hcServicesCourt: '1',
        id: 'chhattisgarh-hc-bilaspur',
        name: 'Principal Seat at Bilaspur',
        city: 'Bilaspur',
      },
    ],
  },
  {
    judgmentsPortal: '7~26',
    id: 'delhi-hc',
    name: 'Delhi High Court',
    aliases: ['High Court of Delhi', 'Delhi HC', 'High Court of Delhi at New Delhi'],
    benches: [
      { openDataset: 'dhcdb', hcServicesCourt: '1', id: 'delhi-hc-new-delhi', name: 'Principal Seat at New Delhi', city: 'New Delhi' },
    ],
  },
  {
    judgmentsPortal: '18~6',
    id: 'gauhati-hc',
    name: 'Gauhati High Court',
    aliases: ['Guwahati High Court', 'Gauhati HC', 'High Court of Gauhati', 'Gawahati High Court'],
    benches: [
      { openDataset: 'asghccis', hcServicesCourt: '1', id: 'gauhati-hc-guwahati', name: 'Principal Seat at Guwahati', city: 'Guwahati' },
      { openDataset: 'nlghccis', hcServicesCourt: '2', id: 'gauhati-hc-kohima', name: 'Kohima Bench', city: 'Kohima' },
      { openDataset: 'azghccis', hcServicesCourt: '3', id: 'gauhati-hc-aizawl', name: 'Aizawl Bench', city: 'Aizawl' },
      { openDataset: 'arghccis', hcServicesCourt: '4', id: 'gauhati-hc-itanagar', name: 'Itanagar Bench', city: 'Itanagar' },
    ],
  },
  {
    judgmentsPortal: '24~17',
    id: 'gujarat-hc',
    name: 'Gujarat High Court',
    aliases: ['High Court of Gujarat', 'Gujarat HC'],
    benches: [
      {
        openDataset: 'gujarathc',
        hcServicesCourt: '1',
        id: 'gujarat-hc-ahmedabad',
        name: 'Principal Seat at Ahmedabad',
        city: 'Ahmedabad',
      },
    ],
  },
  {
    judgmentsPortal: '2~5',
    id: 'himachal-pradesh-hc',
    name: 'Himachal Pradesh High Court',
    aliases: ['High Court of Himachal Pradesh', 'HP High Court', 'Himachal Pradesh HC', 'Shimla High Court'],
    benches: [
      { openDataset: 'cmis', hcServicesCourt: '1', id: 'himachal-pradesh-hc-shimla', name: 'Principal Seat at Shimla', city: 'Shimla' },
    ],
  },
  {
    judgmentsPortal: '1~12',
    id: 'jammu-kashmir-hc',
    name: 'Jammu & Kashmir and Ladakh High Court',
    aliases: [
      'High Court of Jammu & Kashmir and Ladakh',
      'High Court of Jammu and Kashmir',
      'Jammu and Kashmir High Court',
      'J&K High Court',
      'J&K HC',
      'J&K and Ladakh High Court',
    ],
    benches: [
      { openDataset: 'jammuhc', hcServicesCourt: '1', id: 'jammu-kashmir-hc-jammu', name: 'Jammu Wing', city: 'Jammu' },
      { openDataset: 'kashmirhc', hcServicesCourt: '2', id: 'jammu-kashmir-hc-srinagar', name: 'Srinagar Wing', city: 'Srinagar' },
    ],
  },
  {
    judgmentsPortal: '20~7',
    id: 'jharkhand-hc',
    name: 'Jharkhand High Court',
    aliases: ['High Court of Jharkhand', 'Jharkhand HC', 'Ranchi High Court'],
    benches: [
      { openDataset: 'jhar_pg', hcServicesCourt: '1', id: 'jharkhand-hc-ranchi', name: 'Principal Seat at Ranchi', city: 'Ranchi' },
    ],
  },
  {
    judgmentsPortal: '29~3',
    id: 'karnataka-hc',
    name: 'Karnataka High Court',
    aliases: ['High Court of Karnataka', 'Karnataka HC', 'Bangalore High Court', 'Bengaluru High Court'],
    benches: [
      {
        openDataset: 'karnataka_bng_old',
        hcServicesCourt: '1',
        id: 'karnataka-hc-bengaluru',
        name: 'Principal Seat at Bengaluru',
        city: 'Bengaluru',
      },
      { openDataset: 'karhcdharwad', hcServicesCourt: '2', id: 'karnataka-hc-dharwad', name: 'Dharwad Bench', city: 'Dharwad' },
      {
        openDataset: 'karhckalaburagi',
        hcServicesCourt: '3',
        id: 'karnataka-hc-kalaburagi',
        name: 'Kalaburagi Bench',
        city: 'Kalaburagi',
        aliases: ['Gulbarga Bench', 'Kalburagi Bench'],
      },
    ],
  },
  {
    judgmentsPortal: '32~4',
    id: 'kerala-hc',
    name: 'Kerala High Court',
    aliases: ['High Court of Kerala', 'Kerala HC', 'High Court of Kerala at Ernakulam'],
    benches: [
      { openDataset: 'highcourtofkerala', hcServicesCourt: '1', id: 'kerala-hc-kochi', name: 'Principal Seat at Kochi', city: 'Kochi' },
    ],
  },
  {
    judgmentsPortal: '23~23',
    id: 'madhya-pradesh-hc',
    name: 'Madhya Pradesh High Court',
    aliases: ['High Court of Madhya Pradesh', 'MP High Court', 'Madhya Pradesh HC', 'Jabalpur High Court'],
    benches: [
      {
        openDataset: 'mphc_db_jbp',
        hcServicesCourt: '1',
        id: 'madhya-pradesh-hc-jabalpur',
        name: 'Principal Seat at Jabalpur',
        city: 'Jabalpur',
      },
      { openDataset: 'mphc_db_ind', hcServicesCourt: '2', id: 'madhya-pradesh-hc-indore', name: 'Indore Bench', city: 'Indore' },
      { openDataset: 'mphc_db_gwl', hcServicesCourt: '3', id: 'madhya-pradesh-hc-gwalior', name: 'Gwalior Bench', city: 'Gwalior' },
    ],
  },
  {
    judgmentsPortal: '33~10',
    id: 'madras-hc',
    name: 'Madras High Court',
    aliases: ['High Court of Judicature at Madras', 'High Court of Madras', 'Madras HC', 'Chennai High Court'],
    benches: [
      { openDataset: 'hc_cis_mas', hcServicesCourt: '1', id: 'madras-hc-chennai', name: 'Principal Seat at Chennai', city: 'Chennai' },
      { openDataset: 'mdubench', hcServicesCourt: '2', id: 'madras-hc-madurai', name: 'Madurai Bench', city: 'Madurai' },
    ],
  },
  {
    judgmentsPortal: '14~25',
    id: 'manipur-hc',
    name: 'Manipur High Court',
    aliases: ['High Court of Manipur', 'Manipur HC'],
    benches: [
      { openDataset: 'manipurhc_pg', hcServicesCourt: '1', id: 'manipur-hc-imphal', name: 'Principal Seat at Imphal', city: 'Imphal' },
    ],
  },
  {
    judgmentsPortal: '17~21',
    id: 'meghalaya-hc',
    name: 'Meghalaya High Court',
    aliases: ['High Court of Meghalaya', 'Meghalaya HC'],
    benches: [
      { openDataset: 'meghalaya', hcServicesCourt: '1', id: 'meghalaya-hc-shillong', name: 'Principal Seat at Shillong', city: 'Shillong' },
    ],
  },
  {
    judgmentsPortal: '21~11',
    id: 'orissa-hc',
    name: 'Orissa High Court',
    aliases: ['High Court of Orissa', 'Odisha High Court', 'High Court of Odisha', 'Orissa HC', 'Odisha HC'],
    benches: [{ openDataset: 'cisnc', hcServicesCourt: '1', id: 'orissa-hc-cuttack', name: 'Principal Seat at Cuttack', city: 'Cuttack' }],
  },
  {
    judgmentsPortal: '10~8',
    id: 'patna-hc',
    name: 'Patna High Court',
    aliases: ['High Court of Judicature at Patna', 'The High Court of Judicature at Patna', 'High Court of Patna', 'Patna HC'],
    benches: [
      { openDataset: 'patnahcucisdb94', hcServicesCourt: '1', id: 'patna-hc-patna', name: 'Principal Seat at Patna', city: 'Patna' },
    ],
  },
  {
    judgmentsPortal: '3~22',
    id: 'punjab-haryana-hc',
    name: 'Punjab and Haryana High Court',
    aliases: [
      'High Court of Punjab and Haryana',
      'P&H High Court',
      'Punjab & Haryana High Court',
      'P&H HC',
      'High Court of Punjab and Haryana at Chandigarh',
    ],
    benches: [
      {
        openDataset: 'phhc',
        hcServicesCourt: '1',
        id: 'punjab-haryana-hc-chandigarh',
        name: 'Principal Seat at Chandigarh',
        city: 'Chandigarh',
      },
    ],
  },
  {
    judgmentsPortal: '8~9',
    id: 'rajasthan-hc',
    name: 'Rajasthan High Court',
    aliases: ['High Court of Rajasthan', 'Rajasthan HC', 'High Court of Judicature for Rajasthan'],
    benches: [
      { openDataset: 'jaipur', hcServicesCourt: '1', id: 'rajasthan-hc-jaipur', name: 'Jaipur Bench', city: 'Jaipur' },
      {
        openDataset: 'rhcjodh240618',
        hcServicesCourt: '2',
        id: 'rajasthan-hc-jodhpur',
        name: 'Principal Seat at Jodhpur',
        city: 'Jodhpur',
      },
    ],
  },
  {
    judgmentsPortal: '11~24',
    id: 'sikkim-hc',
    name: 'Sikkim High Court',
    aliases: ['High Court of Sikkim', 'Sikkim HC'],
    benches: [
      { openDataset: 'sikkimhc_pg', hcServicesCourt: '1', id: 'sikkim-hc-gangtok', name: 'Principal Seat at Gangtok', city: 'Gangtok' },
    ],
  },
  {
    judgmentsPortal: '36~29',
    id: 'telangana-hc',
    name: 'Telangana High Court',
    aliases: ['High Court for the State of Telangana', 'High Court for State of Telangana', 'High Court of Telangana', 'Telangana HC'],
    benches: [
      { openDataset: 'taphc', hcServicesCourt: '1', id: 'telangana-hc-hyderabad', name: 'Principal Seat at Hyderabad', city: 'Hyderabad' },
    ],
  },
  {
    judgmentsPortal: '16~20',
    id: 'tripura-hc',
    name: 'Tripura High Court',
    aliases: ['High Court of Tripura', 'Tripura HC'],
    benches: [
      { openDataset: 'thcnc', hcServicesCourt: '1', id: 'tripura-hc-agartala', name: 'Principal Seat at Agartala', city: 'Agartala' },
    ],
  },
  {
    judgmentsPortal: '5~15',
    id: 'uttarakhand-hc',
    name: 'Uttarakhand High Court',
    aliases: ['High Court of Uttarakhand', 'Uttarakhand HC', 'Nainital High Court', 'Uttaranchal High Court'],
    benches: [
      {
        openDataset: 'ukhcucis_pg',
        hcServicesCourt: '1',
        id: 'uttarakhand-hc-nainital',
        name: 'Principal Seat at Nainital',
        city: 'Nainital',
      },
    ],
  },
];

/** Extra names for tribunals beyond their name and abbreviation from tribunals.json. */
export const TRIBUNAL_ALIASES: Readonly<Record<string, readonly string[]>> = {
  NCLT: ['Company Law Tribunal'],
  NCLAT: ['Company Law Appellate Tribunal'],
  ITAT: ['Income-tax Appellate Tribunal'],
  NGT: ['Green Tribunal'],
  CESTAT: ['Customs Excise and Service Tax Appellate Tribunal'],
  APTEL: ['Electricity Appellate Tribunal'],
  NCDRC: ['National Consumer Commission', 'National Consumer Forum'],
  SCDRC: ['State Consumer Commission', 'State Commission'],
};

/**
 * Meaning of Supreme Court case-number prefixes (text before " No." in case_no). Prefixes
 * the data holds that are absent here keep their own label; EXCLUDED_SC_PREFIXES are not
 * case types at all.
 */
export const SC_PREFIX_LABELS: Readonly<Record<string, string>> = {
  'C.A.': 'Civil Appeal',
  'Crl.A.': 'Criminal Appeal',
  'W.P.(C)': 'Writ Petition (Civil)',
  'W.P.(Crl.)': 'Writ Petition (Criminal)',
  'SLP(C)': 'Special Leave Petition (Civil)',
  'S.L.P.(C)...CC': 'Special Leave Petition (Civil)',
  'SLP(Crl)': 'Special Leave Petition (Criminal)',
  'SLP(Crl.)...CRLMP': 'Special Leave Petition (Criminal)',
  'CONMT.PET.(C)': 'Contempt Petition (Civil)',
  'CONMT.PET.(Crl.)': 'Contempt Petition (Criminal)',
  'T.P.(C)': 'Transfer Petition (Civil)',
  'T.P.(Crl.)': 'Transfer Petition (Criminal)',
  'T.C.(C)': 'Transferred Case (Civil)',
  'T.C.(Crl.)': 'Transferred Case (Criminal)',
  'R.P.(C)': 'Review Petition (Civil)',
  'R.P.(Crl.)': 'Review Petition (Criminal)',
  'CURATIVE PET(C)': 'Curative Petition',
  'CURATIVE PET(R)': 'Curative Petition',
  'ARBIT.PETITON': 'Arbitration Petition',
  'SMW(C)': 'Suo Motu Writ Petition (Civil)',
  'SMW(Crl)': 'Suo Motu Writ Petition (Criminal)',
  'SMC(C)': 'Suo Motu Contempt Petition (Civil)',
  'SMC(Crl)': 'Suo Motu Contempt Petition (Criminal)',
  'ORGNL.SUIT': 'Original Suit',
  'ELECT.PET.(C)': 'Election Petition',
  'SPL.REF.': 'Special Reference',
  'TAX.REF.CASE(C)': 'Tax Reference Case',
  MA: 'Miscellaneous Application',
};

/** "9999" is a placeholder the SC source uses for 3 records, not a case type. */
export const EXCLUDED_SC_PREFIXES: readonly string[] = ['9999'];

/**
 * title_prefix_candidate values that the source split wrongly at an unbalanced parenthesis
 * (see the dataset's SOURCE.md), mapped to the code the option label actually starts with.
 */
export const HC_PREFIX_REPAIRS: Readonly<Record<string, string>> = {
  'PPIL(PUBLIC INTEREST LITIGATION': 'PPIL',
  'UNNUMB.MFA(KME)(UNNUMBERED MFA': 'UNNUMB.MFA(KME)',
  'ZRFA(MISC.)(UN.NU. REGULAR FIRST APPEAL': 'ZRFA(MISC.)',
  'ARB(ARBITRATION ACT CASE': 'ARB',
  'SS(SPECIAL SUITS': 'SS',
  'UNNUMB.MSA(FS)(UNNUMBERED MISC.SECOND APPEAL': 'UNNUMB.MSA(FS)',
  'UNNUMB.RPJJ(UNNUMBERED REV.PETITION': 'UNNUMB.RPJJ',
  'RCC(RCC-Original Suits/Pet.': 'RCC',
};

export interface StandardLabel {
  readonly label: string;
  readonly description: string;
  /**
   * Matched against the portal description, upper-cased with every run of non-alphanumerics
   * turned into one space and common misspellings fixed (see describeKey in the builder).
   */
  readonly match?: RegExp;
  readonly unless?: RegExp;
}

const CRL = '(?:CRIMINAL|CRL|CR|CRI|CRIL)';

/**
 * The standard labels, most specific first: a description takes the first label that
 * matches. Anchored patterns keep "Misc case in Criminal Appeal" out of "Criminal Appeal".
 */
export const STANDARD_LABELS: readonly StandardLabel[] = [
  {
    label: 'Suo Motu Writ Petition (Criminal)',
    description: 'Writ petitions (criminal) taken up by the court on its own motion.',
    match: /^(?=.*\bSUO MOT[OU]\b)(?=.*\b(WRIT|WP)\b)(?=.*\b(CRIMINAL|CRL)\b)/,
  },
  {
    label: 'Suo Motu Writ Petition (Civil)',
    description: 'Writ petitions (civil) taken up by the court on its own motion.',
    match: /^(?=.*\bSUO MOT[OU]\b)(?=.*\b(WRIT|WP|WPC)\b)/,
  },
  {
    label: 'Suo Motu Contempt Petition (Criminal)',
    description: 'Criminal contempt taken up by the court on its own motion.',
    match: /^(?=.*\bSUO MOT[OU]\b)(?=.*\bCONT)(?=.*\b(CRIMINAL|CRL)\b)/,
  },
  {
    label: 'Suo Motu Contempt Petition (Civil)',
    description: 'Civil contempt taken up by the court on its own motion.',
    match: /^(?=.*\bSUO MOT[OU]\b)(?=.*\bCONT)/,
  },
  {
    label: 'Public Interest Litigation',
    description: 'Public interest litigation, usually writ petitions in the public interest.',
    match: /^(WRIT PETITION )?(PUBLIC INTEREST LITIGATION|PIL)\b/,
  },
  {
    label: 'Habeas Corpus Petition',
    description: 'Petitions for a writ of habeas corpus.',
    match: /^(CRIMINAL |CIVIL RULE )?(WRIT PETITION )?(HABEAS CORPUS|HABEAS CORPUS PETITION)\b/,
  },
  {
    label: 'Writ Petition (Criminal)',
    description: 'Writ petitions on the criminal side.',
    match: new RegExp(`^(${CRL} WRIT( PETITION| JURISDICTION CASE)?|WRIT PETITION ${CRL}|WP ${CRL})\\b`),
  },
  {
    label: 'Writ Petition (Civil)',
    description: 'Writ petitions on the civil side, under Articles 226 and 227 of the Constitution (Article 32 at the Supreme Court).',
    match: /^(CIVIL WRIT( PETITION| JURISDICTION CASE)?|WRIT PETITION (C|CIVIL)|WP C|WPC)\b/,
  },
  {
    label: 'Writ Petition',
    description: 'Writ petitions the court does not mark civil or criminal (in practice mostly civil).',
    match: /^(WRIT PETITIONS?|WRIT PETITION UNDER ARTICLE 226( OF THE CONSTITUTION)?|WRITS?)$/,
  },
  {
    label: 'Petition under Article 227',
    description: 'Petitions invoking the supervisory jurisdiction of the High Court under Article 227.',
    match: /^((MATTERS|PETITIONS?|WRIT PETITIONS?|APPLICATIONS?) UNDER ARTICLE 227|ARTICLE 227)\b/,
  },
  { label: 'Writ Appeal', description: "Intra-court appeals against a single judge's writ decision.", match: /^WRIT APPEALS?\b/ },
  {
    label: 'Letters Patent Appeal',
    description: 'Intra-court appeals under the Letters Patent.',
    match: /^(LETTERS?|LATTERS?) PATENTS? APPEALS?\b/,
  },
  {
    label: 'Special Appeal',
    description: 'Intra-court special appeals (Allahabad, Uttarakhand and others).',
    match: /^SPECIAL APPEALS?\b/,
  },
  {
    label: 'Death Sentence Reference',
    description: 'References for confirmation of a death sentence.',
    match: new RegExp(
      `^(DEATH (SENTENCE )?REF(ERENCE)?|CONFIRMATION CASE|MURDER REF(ERENCE)?|${CRL} (DEATH REFERENCE|REFERENCE DEATH))\\b`,
    ),
  },
  {
    label: 'Anticipatory Bail Application',
    description: 'Applications for anticipatory bail (s. 438 CrPC / s. 482 BNSS).',
    match: /^(?!MISC|MC )(.*\bANTICIPATORY BAIL\b|.*\bSECTION 438\b)/,
  },
  {
    label: 'Bail Cancellation Application',
    description: 'Applications to cancel bail.',
    match: /^(BAIL CANCELLATION|CANCELLATION OF BAIL|(SECOND )?BAIL CANCELLATION)\b/,
  },
  {
    label: 'Bail Application',
    description: 'Applications for regular, interim or short-term bail and suspension of sentence pending appeal.',
    match: new RegExp(
      `^((REGULAR |${CRL} (MISC(ELLANEOUS)? )?|ALL |SHORT TERM |[A-Z]+ SHORT TERM )?BAIL (APPLICATIONS?|APPLNS?|APPL|PETITIONS?|APPICATION)|BAIL|BAIL APPLICATIONS? .*|ALL BAIL APPLICATIONS? .*)\\b`,
    ),
  },
  {
    label: 'Criminal Appeal',
    description: 'Criminal appeals, including appeals against acquittal and by the State.',
    match: new RegExp(`^((GOVT|GOVERNMENT|STATE) )?${CRL} APPEALS?\\b|^(APPEALS? AGAINST ACQUITTAL|ACQUITTAL APPEAL)\\b`),
  },
  {
    label: 'Criminal Revision',
    description: 'Criminal revision petitions and applications.',
    match: new RegExp(`^${CRL} (REVISIONS?|REV|REVN|REVISION PETITION|REVISION APPLICATION|REVISION CASE)\\b`),
  },
  {
    label: 'Review Petition (Criminal)',
    description: 'Petitions to review a criminal judgment or order.',
    match: new RegExp(`^(${CRL} REVIEW|REVIEW (PETITION|APPLICATION)S? ${CRL}\\b)`),
  },
  {
    label: 'Criminal Reference',
    description: 'References on the criminal side other than death references.',
    match: new RegExp(`^${CRL} REF(ERENCE)?S?\\b`),
  },
  {
    label: 'Contempt Petition (Criminal)',
    description: 'Criminal contempt proceedings.',
    match: new RegExp(
      `^(${CRL} CONTEMPT|CONTEMPT (PETITION |CASE |CASES )?${CRL}|CONTEMPT OF COURT ${CRL}|PROCEEDINGS RELATING TO CRIMINAL CONTEMPT|${CRL} ORIGINAL PETITION CONTEMPT)\\b`,
    ),
  },
  {
    label: 'Transfer Petition (Criminal)',
    description: 'Petitions to transfer a criminal case.',
    match: new RegExp(`^(TRANSFER (PETITION|APPLICATION)S? (FOR TRANSFER (OF )?A )?${CRL}|${CRL} TRANSFER|TRANSFER APPEAL CRIMINAL)\\b`),
  },
  {
    label: 'Criminal Leave to Appeal',
    description: 'Applications for leave to appeal in criminal cases, mostly against acquittal.',
    match: new RegExp(
      `^(${CRL} (LEAVE|LEAVE TO APPEAL|LEAVE PETITION)|SPECIAL LEAVE APPLICATION|LEAVE TO APPEAL AGAINST ACQUITTAL|${CRL} APPLICATION FOR LEAVE)\\b`,
    ),
  },
  {
    label: 'Criminal Miscellaneous Petition',
    description: 'Criminal petitions and miscellaneous applications, including quashing petitions under s. 482 CrPC / s. 528 BNSS.',
    match: new RegExp(
      `^(${CRL} (MISC|MISCELLANEOUS|PETITION|PETITIONS|PETN|ORIGINAL PETITION|ORIGINAL APPLICATION|APPLICATION|MISC CASE|M C|MC)|PETITION.* 482|APPLICATION U S 482|OR ${CRL} MISC)\\b`,
    ),
  },
  {
    label: 'Original Side Appeal',
    description: 'Intra-court appeals from judgments of the original side.',
    match: /^(ORIGINAL SIDE APPEALS?|APPEALS? FROM (THE )?ORIGINAL SIDE)\b/,
  },
  {
    label: 'Miscellaneous Case in Main Matter',
    description: 'Miscellaneous cases and applications filed within a pending or decided main matter (e.g. "Misc. Case in Writ Appeal").',
    match: /^(MISC|MISCELLANEOUS) (CASES?|APPLICATIONS?|PETITIONS?) (IN|OF|FILED IN)\b/,
  },
  {
    label: 'Contempt Appeal',
    description: 'Appeals against orders in contempt proceedings.',
    match: /^(CONTEMPT APPEALS?|APPEALS? AGAINST ORDERS IN (CIVIL|CRIMINAL) CONTEMPT)/,
  },
  {
    label: 'Contempt Petition (Civil)',
    description: 'Civil contempt proceedings (contempt petitions not marked criminal are listed here too).',
    match:
      /^(CIVIL CONTEMPT|CONTEMPT (PETITIONS?|CASES?|APPLICATIONS?)( CIVIL| C)?$|CONTEMPT (PETITION |CASE |CASES )?(CIVIL|C)\b|CONTEMPT OF COURT( CASES)?( RELATING TO)? CIVIL|CONTEMPT OF COURTS? CASES?$|CONTEMPT OF COURT$)/,
  },
  {
    label: 'Civil Revision',
    description: 'Civil revision petitions and applications.',
    match:
      /^(CIVIL REVISIONS?|CIVIL REV|CIVIL REVN|CIVIL REVISION (PETITION|APPLICATION|CASE)S?|REVISION PETITION CIVIL|CI REV PET|CIVIL REV PETN)\b/,
  },
  {
    label: 'Review Petition (Civil)',
    description: 'Petitions to review a civil judgment or order (review petitions not marked criminal are listed here too).',
    match: /^(CIVIL )?REVIEW (PETITION|APPLICATION)S?\b|^CIVIL REVIEW\b/,
  },
  {
    label: 'Execution Appeal',
    description: 'First and second appeals in execution proceedings.',
    match: /^EXECUTION (FIRST |SECOND )?APPEALS?\b/,
  },
  {
    label: 'First Appeal from Order',
    description: 'First appeals against appealable orders (FAO, appeals from orders).',
    match: /^(FIRST APPEALS? FROM ORDERS?|APPEALS? FROM ORDERS?|FIRST APPEALS? AGAINST ORDERS?)\b/,
  },
  {
    label: 'Miscellaneous First Appeal',
    description: 'Miscellaneous and civil miscellaneous appeals against orders of subordinate courts and tribunals.',
    match:
      /^(MISCELLANEOUS (FIRST )?APPEALS?|MISC (FIRST )?APPEALS?|MISCELLANEOUS APPEAL FIRST|CIVIL MISC(ELLANEOUS)? APPEALS?|CMA|1ST MISC APPEAL)\b/,
  },
  {
    label: 'First Appeal',
    description: 'Regular first appeals against decrees of subordinate courts.',
    match: /^(REGULAR )?FIRST APPEALS?\b|^FIRST CIVIL APPEAL\b|^CIVIL FIRST APPEAL\b/,
  },
  {
    label: 'Second Appeal',
    description: 'Second appeals, including miscellaneous and regular second appeals.',
    match: /^((REGULAR|MISC|MISCELLANEOUS|CIVIL) )?SECOND APPEALS?\b/,
  },
  { label: 'Civil Appeal', description: "Civil appeals (the Supreme Court's main civil appeal type).", match: /^CIVIL APPEALS?$/ },
  {
    label: 'Matrimonial Appeal',
    description: 'Appeals in matrimonial and family court matters.',
    match: /^(FAMILY COURT APPEALS?|MATRIMONIAL APPEALS?|MAT APPEALS?|APPEALS? UNDER (SECTION 19 OF )?(THE )?FAMILY COURTS? ACT)\b/,
  },
  {
    label: 'Motor Accident Claims Appeal',
    description: 'Appeals against awards of motor accident claims tribunals.',
    match:
      /^((MOTOR ACCIDENTS?|MAC|M A C|MACT)( CLAIMS?)?( TRIBUNAL)? APPEALS?|MOTOR ACCIDENT CLAIMS? APPEALS?|APPEALS? UNDER (THE )?MOTOR VEHICLES ACT|1ST MISC APPEAL SB MOTOR ACCIDENT CLAIM)\b/,
  },
  { label: 'Company Petition', description: 'Company petitions under the Companies Act.', match: /^COMPANY PETITIONS?\b/ },
  { label: 'Company Appeal', description: 'Company appeals.', match: /^COMPANY APPEALS?\b/ },
  { label: 'Company Application', description: 'Company applications in pending company proceedings.', match: /^COMPANY APPLICATIONS?\b/ },
  { label: 'Commercial Appeal', description: 'Appeals under the Commercial Courts Act.', match: /^COMMERCIAL (APPEALS?|APPELLATE)\b/ },
  { label: 'Commercial Suit', description: 'Commercial suits.', match: /^(COMMERCIAL SUITS?|CIVIL SUIT COMMERCIAL( DIVISION)?)\b/ },
  {
    label: 'Arbitration Appeal',
    description: 'Appeals under the Arbitration and Conciliation Act (s. 37) and earlier arbitration law.',
    match: /^((COMMERCIAL )?ARBITRATION APPEALS?|APPEALS? UNDER (THE )?(INDIAN )?ARBITRATION ACT|COMMERCIAL ARBITRATION U S 37)/,
  },
  {
    label: 'Arbitration Petition',
    description: 'Arbitration petitions and applications (appointment, interim measures, setting aside, enforcement).',
    match:
      /^((COMMERCIAL )?ARBITRATION (PETITIONS?|APPLICATIONS?|CASES?|ORIGINAL PETITIONS?|ACT CASES?)|PETITIONS? UNDER (THE )?(INDIAN )?ARBITRATION ACT|COMMERCIAL ARBITRATION U S \d+)\b/,
  },
  { label: 'Election Petition', description: 'Election petitions.', match: /^(ELECTION PETITIONS?|ELEC PET)\b/ },
  {
    label: 'Execution Petition',
    description: 'Execution petitions and applications.',
    match: /^EXECUTION (PETITIONS?|APPLICATIONS?|CASES?)\b/,
  },
  {
    label: 'Civil Suit',
    description: "Civil suits on a High Court's original side.",
    match: /^(CIVIL SUITS?|ORIGINAL SUITS?|SUITS?|MONEY SUITS?|CIVIL SUITS? ORIGINAL SIDE)$/,
  },
  { label: 'Admiralty Suit', description: 'Admiralty suits.', match: /^(ADMIRALTY|ADMIRALITY) SUITS?\b/ },
  {
    label: 'Testamentary Case',
    description: 'Probate, letters of administration and other testamentary matters.',
    match: /^TESTAMENTARY (CASES?|SUITS?|PETITIONS?)\b/,
  },
  {
    label: 'Original Petition',
    description: 'Original petitions (civil).',
    match: /^(ORIGINAL PETITIONS?|ORIGINAL PETITION CIVIL|OP CIVIL)$/,
  },
  { label: 'Civil Reference', description: 'References on the civil side.', match: /^CIVIL REF(ERENCE)?S?\b/ },
  {
    label: 'Transfer Petition (Civil)',
    description: 'Petitions to transfer a civil case.',
    match: /^(TRANSFER (PETITION|APPLICATION)S? (UNDER SECTION 24 C P C|CIVIL|C)|CIVIL TRANSFER (PETITION|APPLICATION)S?)\b/,
  },
  {
    label: 'Transfer Petition',
    description: 'Transfer petitions the court does not mark civil or criminal.',
    match: /^TRANSFER (PETITIONS?|APPLICATIONS?)$/,
  },
  {
    label: 'Income Tax Appeal',
    description: 'Appeals under s. 260A of the Income-tax Act.',
    match: /^(INCOME TAX APPEALS?|APPEALS? U S 260 ?A)\b/,
  },
  {
    label: 'Income Tax Reference',
    description: 'References and applications for a reference under the Income-tax Act (ss. 256, 257).',
    match:
      /^(INCOME TAX (REFERENCES?|REF|APPLICATIONS?|CASES?)|REFERENCE UNDER SECTION 256|APPLICATION UNDER SECTION 256|APPLICATION FOR DIRECTION TO MAKE A REFERENCE)\b/,
  },
  { label: 'Wealth Tax Case', description: 'Wealth-tax appeals, references and applications.', match: /^WEALTH TAX\b/ },
  { label: 'Gift Tax Case', description: 'Gift-tax appeals, references and applications.', match: /^GIFT TAX\b/ },
  { label: 'Estate Duty Case', description: 'Estate duty references and applications.', match: /^ESTATE DUTY\b/ },
  {
    label: 'Central Excise Case',
    description: 'Central excise appeals and references.',
    match:
      /^(CENTRAL EXCISE|CEN EXCISE|EXCISE) (APPEALS?|REFERENCES?|REF|APPLICATIONS?|CASES?)\b|^REFERENCE UNDER CENTRAL EXCISE ACT\b|^APPEAL U S 35G\b/,
  },
  {
    label: 'Customs Case',
    description: 'Customs appeals and references.',
    match: /^(CUSTOMS?|CUS) (APPEALS?|REFERENCES?|REF|APPLICATIONS?|CASES?)\b|^REFERENCE UNDER (THE )?CUSTOMS ACT\b/,
  },
  {
    label: 'Sales Tax Case',
    description: 'Sales tax, VAT and trade tax appeals, references and revisions.',
    match: /^(SALES TAX|VAT|VALUE ADDED TAX|TRADE TAX|COMMERCIAL TAX)\b/,
  },
  { label: 'Service Tax Case', description: 'Service tax appeals and references.', match: /^SERVICE TAX\b/ },
  { label: 'Other Tax Case', description: 'Appeals, references and revisions under other tax laws.', match: /^OTHER TAX\b/ },
  { label: 'Caveat', description: 'Caveats lodged before an expected filing.', match: /^CAVEAT( PETITIONS?| APPLICATIONS?)?$/ },
  { label: 'Cross Objection', description: 'Cross objections in appeals.', match: /^CROSS OBJECTIONS?\b/ },
  {
    label: 'Interlocutory Application',
    description: 'Interlocutory and interim applications in pending matters.',
    match: /^(INTERLOCUTORY|INTERIM) APPLICATIONS?\b/,
  },
  {
    label: 'Civil Miscellaneous Application',
    description: 'Civil miscellaneous applications and petitions.',
    match: /^CIVIL MISC(ELLANEOUS)? (APPLICATIONS?|PETITIONS?|CASES?)\b/,
  },
  { label: 'Miscellaneous Application', description: 'Miscellaneous applications.', match: /^MISC(ELLANEOUS)? APPLICATIONS?$/ },
  {
    label: 'Special Leave Petition (Civil)',
    description: 'Petitions for special leave to appeal to the Supreme Court (civil), Article 136.',
  },
  {
    label: 'Special Leave Petition (Criminal)',
    description: 'Petitions for special leave to appeal to the Supreme Court (criminal), Article 136.',
  },
  { label: 'Transferred Case (Civil)', description: 'Civil cases transferred to the Supreme Court.' },
  { label: 'Transferred Case (Criminal)', description: 'Criminal cases transferred to the Supreme Court.' },
  { label: 'Curative Petition', description: 'Curative petitions against a final Supreme Court judgment after review.' },
  { label: 'Original Suit', description: 'Original suits in the Supreme Court under Article 131.' },
  { label: 'Special Reference', description: 'Presidential references to the Supreme Court under Article 143.' },
  { label: 'Tax Reference Case', description: 'Tax references made directly to the Supreme Court.' },
];

/**
 * Code spellings unambiguous across every court (compared without punctuation, spacing or
 * case), mapped to their label ahead of the description, which is often vaguer ("Appeals").
 */
export const UNAMBIGUOUS_CODES: Readonly<Record<string, string>> = {
  WPC: 'Writ Petition (Civil)',
  WPCRL: 'Writ Petition (Criminal)',
  WPCR: 'Writ Petition (Criminal)',
  CRLA: 'Criminal Appeal',
  CRLMC: 'Criminal Miscellaneous Petition',
  CRLREVP: 'Criminal Revision',
  CRLRC: 'Criminal Revision',
  CRLREF: 'Criminal Reference',
  CRLLP: 'Criminal Leave to Appeal',
  WA: 'Writ Appeal',
  LPA: 'Letters Patent Appeal',
  OSA: 'Original Side Appeal',
  RFA: 'First Appeal',
  RSA: 'Second Appeal',
  FAO: 'First Appeal from Order',
  ABA: 'Anticipatory Bail Application',
  PIL: 'Public Interest Litigation',
};

/** Portal description misspellings fixed before matching (the codes themselves are untouched). */
export const DESCRIPTION_SPELLING_FIXES: readonly (readonly [RegExp, string])[] = [
  [/\bLATTERS\b/g, 'LETTERS'],
  [/\bREFRENCE\b/g, 'REFERENCE'],
  [/\bREFENCE\b/g, 'REFERENCE'],
  [/\bCRIMINIAL\b/g, 'CRIMINAL'],
  [/\bPETITON\b/g, 'PETITION'],
  [/\bPETTITON\b/g, 'PETITION'],
  [/\bAPPLICATON\b/g, 'APPLICATION'],
  [/\bAPPEALS? FROM ORDERS\b/g, 'APPEAL FROM ORDER'],
  [/\bMOTO\b/g, 'MOTU'],
];
