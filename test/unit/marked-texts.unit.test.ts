/**
 * Marked case texts kept as JSON bytes: a text is planned once however many accounts read
 * it, each account's bytes are what marking gives, an edited text is planned anew, and
 * both bounds hold (a text planned again once pushed out; bytes written again once pushed
 * out).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MarkedTexts } from '../../src/application/watermark/marked-texts.ts';
import { finish } from '../../src/domain/steps.ts';
import { embed, planSteps, type MarkPlan } from '../../src/domain/watermark/embed.ts';
import { tagFromBytes } from '../../src/domain/watermark/tag.ts';
import { caseBody } from '../../src/http/routes/cases/case-body-support.ts';

const tagOf = (accountId: string) => tagFromBytes(Buffer.from(accountId.padEnd(8, '.')));
const prose = (n: number) =>
  `The appellant ${String(n)} argued before the learned bench that the order under appeal was passed without hearing the respondent at all, and prayed that it be set aside.`;

function counted(options: { planChars: number; markedBytes: number }) {
  const planned: string[] = [];
  const plan = (text: string): Promise<MarkPlan> => {
    planned.push(text);
    return Promise.resolve(finish(planSteps(text)));
  };
  return { planned, texts: new MarkedTexts({ plan, tagOf, ...options }) };
}

const decode = (bytes: Uint8Array) => JSON.parse(new TextDecoder().decode(bytes)) as string;

describe('MarkedTexts', () => {
  it('plans a text once for many accounts, and gives each account its own marks', async () => {
    const { planned, texts } = counted({ planChars: 10_000, markedBytes: 100_000 });
    const text = prose(1);
    for (let a = 0; a < 20; a += 1) {
      assert.equal(decode(await texts.markedJson(`acct_${String(a)}`, text)), embed(text, tagOf(`acct_${String(a)}`)));
    }
    assert.equal(planned.length, 1);
    assert.notEqual(decode(await texts.markedJson('acct_1', text)), decode(await texts.markedJson('acct_2', text)));
  });

  it("keeps an account's bytes while they fit, and plans an edited text anew", async () => {
    const { planned, texts } = counted({ planChars: 10_000, markedBytes: 100_000 });
    const first = await texts.markedJson('acct_1', prose(1));
    assert.equal(await texts.markedJson('acct_1', prose(1)), first);
    const edited = await texts.markedJson('acct_1', prose(2));
    assert.equal(decode(edited), embed(prose(2), tagOf('acct_1')));
    assert.deepEqual(planned, [prose(1), prose(2)]);
  });

  it('drops the least recently used plans and bytes past their bounds', async () => {
    const { planned, texts } = counted({ planChars: prose(1).length * 2, markedBytes: 1 });
    const first = await texts.markedJson('acct_1', prose(1));
    assert.notEqual(await texts.markedJson('acct_1', prose(1)), first, 'bytes over the bound are not kept');
    await texts.markedJson('acct_1', prose(2));
    await texts.markedJson('acct_1', prose(3));
    await texts.markedJson('acct_1', prose(1));
    assert.deepEqual(planned, [prose(1), prose(2), prose(3), prose(1)]);
  });
});

describe('caseBody', () => {
  it('parses to the fields with the marked summary and text, and the meta', () => {
    const encode = (s: string) => new TextEncoder().encode(JSON.stringify(s));
    const body = caseBody({ caseId: 'sc-1', title: 'A "v" B' }, null, encode('marked\u200b text'), { otherDocuments: [] });
    assert.deepEqual(JSON.parse(new TextDecoder().decode(body)), {
      success: true,
      data: { caseId: 'sc-1', title: 'A "v" B', summary: null, text: 'marked\u200b text' },
      meta: { otherDocuments: [] },
    });
  });
});
