/** Long case-type forms printed in Supreme Court judgment headers map to the court's own codes. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { supremeCourtCaseType } from '../../src/domain/case/case-type.ts';

it('maps printed long forms (any case, plural) to the codes the SC metadata uses, and keeps the rest', () => {
  assert.deepEqual(
    ['Civil Appeal', 'civil appeals', 'Criminal  Appeal', 'Writ Petition (Civil)', 'Appeal', 'HCP', null].map(supremeCourtCaseType),
    ['C.A.', 'C.A.', 'Crl.A.', 'W.P.(C)', 'Appeal', 'HCP', null],
  );
});
