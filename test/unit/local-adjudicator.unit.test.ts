/**
 * The local adjudicator reads the words next to the screened name and moves the
 * probability by its documented log-odds steps, for and against, quoting only the record.
 * The records here are constructed for the test (no real case), written the way cause
 * titles and judgments write parties.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LOCAL_ADJUDICATOR_NAME, LOCAL_WEIGHTS, LocalContextAdjudicator } from '../../src/adapters/llm/local-adjudicator.ts';
import type { CandidateRecord, ScreeningQuery } from '../../src/domain/screening/features.ts';
import type { AdjudicationRequest } from '../../src/ports/match-adjudicator.ts';

const adjudicator = new LocalContextAdjudicator();

const query = (over: Partial<ScreeningQuery> = {}): ScreeningQuery => ({
  name: 'Ramesh Kumar Verma',
  aliases: [],
  entityType: 'person',
  identifiers: {},
  knownPersons: [],
  ...over,
});

const candidate = (petitioner: string, text: string | null): CandidateRecord => ({
  caseId: 'constructed-1',
  caseNumber: 'W.P. 1/2020',
  courtName: 'Constructed High Court',
  title: `${petitioner} v. State`,
  petitioners: [petitioner],
  respondents: ['State'],
  text,
  decisionDate: null,
  filingDate: null,
});

const request = (q: ScreeningQuery, c: CandidateRecord, probability = 0.6): AdjudicationRequest => ({
  query: q,
  candidate: c,
  matchedParty: { field: 'petitioners[0]', text: c.petitioners[0] ?? '' },
  probability,
  signals: [],
});

const logit = (p: number) => Math.log(p / (1 - p));
const shifted = (p: number, shift: number) => Math.floor((1 / (1 + Math.exp(-(logit(p) + shift)))) * 1000) / 1000;

describe('the local context adjudicator', () => {
  it('is named honestly', () => {
    assert.equal(adjudicator.name, LOCAL_ADJUDICATOR_NAME);
  });

  it('leaves the probability alone when nothing next to the name bears on identity, and says so', async () => {
    const verdict = await adjudicator.adjudicate(request(query(), candidate('RAMESH KUMAR VERMA', null)));
    assert.equal(verdict.probability, 0.6);
    assert.equal(verdict.reasons.length, 1);
    assert.match(verdict.reasons[0] ?? '', /no judgment text is held/);
  });

  it('raises it for a known person named next to the name in the judgment text', async () => {
    const text = 'The appellant Ramesh Kumar Verma, son of Suresh Chand Verma, was employed as a clerk.';
    const verdict = await adjudicator.adjudicate(
      request(query({ knownPersons: ['Suresh Chand Verma'] }), candidate('RAMESH KUMAR VERMA', text)),
    );
    assert.equal(verdict.probability, shifted(0.6, LOCAL_WEIGHTS.knownPerson + LOCAL_WEIGHTS.partyRole));
    assert.ok(verdict.reasons.some((r) => r.includes('"Suresh Chand Verma", a known person')));
  });

  it('lowers it for a relative who is not among the known persons', async () => {
    const verdict = await adjudicator.adjudicate(
      request(query({ knownPersons: ['Suresh Chand Verma'] }), candidate('RAMESH KUMAR VERMA S/O MAHESH PRASAD', null)),
    );
    assert.equal(verdict.probability, shifted(0.6, LOCAL_WEIGHTS.otherRelative));
    assert.ok(verdict.reasons.some((r) => /not one of the known persons/.test(r)));
  });

  it('lowers it for a residence in another state, quoting the record and not the caller', async () => {
    const verdict = await adjudicator.adjudicate(
      request(
        query({ address: { city: 'Mysuru', state: 'Karnataka' } }),
        candidate('RAMESH KUMAR VERMA R/O VILLAGE PIRPAINTI, BIHAR', null),
      ),
    );
    assert.equal(verdict.probability, shifted(0.6, LOCAL_WEIGHTS.otherState));
    const said = verdict.reasons.join(' ');
    assert.match(said, /BIHAR/);
    assert.ok(!/KARNATAKA|MYSURU/i.test(said));
  });

  it("raises it for one of the caller's places next to the name, old or new name of the city", async () => {
    const verdict = await adjudicator.adjudicate(
      request(query({ address: { city: 'Mumbai' } }), candidate('RAMESH KUMAR VERMA, BOMBAY', null)),
    );
    assert.equal(verdict.probability, shifted(0.6, LOCAL_WEIGHTS.place));
  });

  it('lowers it when a company form follows a person’s name', async () => {
    const verdict = await adjudicator.adjudicate(request(query(), candidate('RAMESH KUMAR VERMA PVT. LTD.', null)));
    assert.equal(verdict.probability, shifted(0.6, LOCAL_WEIGHTS.otherEntityType));
  });

  it('is deterministic and stays within its floor and ceiling', async () => {
    const text = 'Ramesh Kumar Verma, son of Suresh Chand Verma, resident of Mumbai, the appellant herein.';
    const strong = request(
      query({ knownPersons: ['Suresh Chand Verma'], address: { city: 'Mumbai' } }),
      candidate('RAMESH KUMAR VERMA', text),
      0.97,
    );
    const first = await adjudicator.adjudicate(strong);
    assert.deepEqual(await adjudicator.adjudicate(strong), first);
    assert.ok(first.probability <= 0.98);
  });
});
