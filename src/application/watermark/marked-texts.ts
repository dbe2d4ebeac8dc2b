/**
 * Marked case texts as the JSON string bytes a charged read writes. Marking has two parts
 * (domain/watermark/embed.ts): planning a text (words, letter contexts, carrier hashes:
 * about 2.5 ms of CPU for a 33k-character judgment, in steps that give the event loop
 * back) and writing one account's marks into the planned bytes (a copy, some 50 µs). So
 * each text is planned once per process and every account's bytes are written from the
 * plan: a round robin over many accounts costs a copy per read, not a marking.
 *
 * The marked bytes of the accounts reading now are kept too, bounded by their size, so a
 * hot (account, case) pair is neither re-marked nor re-serialized. Plans are keyed by the
 * text itself (an edited text is a new key and planned anew), marked bytes by account and
 * plan. A marked text is a pure function of the account's tag and the text, so a kept
 * copy is always what marking would give. Both maps drop their least recently used first.
 *
 * Not shared between instances: writing an account's bytes from a plan costs less than
 * fetching them from Redis would, and a plan is made once per text per process.
 */
import { jsonPlanOf, markedJson, type JsonMarkPlan, type MarkPlan } from '../../domain/watermark/embed.ts';
import type { AccountTag } from '../../domain/watermark/tag.ts';

export interface MarkedTextsOptions {
  /** Plans a text, giving the event loop back while a long one is planned. */
  readonly plan: (text: string) => Promise<MarkPlan>;
  readonly tagOf: (accountId: string) => AccountTag;
  /** Characters of planned text kept (a plan holds about six bytes per character). */
  readonly planChars: number;
  /** Bytes of marked JSON kept across accounts. */
  readonly markedBytes: number;
}

interface Planned {
  readonly id: number;
  readonly plan: Promise<JsonMarkPlan>;
}

export class MarkedTexts {
  readonly #plans = new Map<string, Planned>();
  #planChars = 0;
  #nextId = 0;
  readonly #marked = new Map<string, Uint8Array>();
  #markedBytes = 0;

  constructor(private readonly options: MarkedTextsOptions) {}

  /** The account's marked text as the UTF-8 bytes of a JSON string (quotes included). */
  async markedJson(accountId: string, text: string): Promise<Uint8Array> {
    const planned = this.#planned(text);
    const key = `${accountId}\u0000${String(planned.id)}`;
    const kept = this.#marked.get(key);
    if (kept !== undefined) {
      this.#marked.delete(key);
      this.#marked.set(key, kept);
      return kept;
    }
    const bytes = markedJson(await planned.plan, this.options.tagOf(accountId));
    if (bytes.length <= this.options.markedBytes) {
      this.#marked.set(key, bytes);
      this.#markedBytes += bytes.length;
      for (const [oldest, value] of this.#marked) {
        if (this.#markedBytes <= this.options.markedBytes) break;
        this.#marked.delete(oldest);
        this.#markedBytes -= value.length;
      }
    }
    return bytes;
  }

  #planned(text: string): Planned {
    const kept = this.#plans.get(text);
    if (kept !== undefined) {
      this.#plans.delete(text);
      this.#plans.set(text, kept);
      return kept;
    }
    const planned = { id: this.#nextId++, plan: this.options.plan(text).then(jsonPlanOf) };
    // A failed plan is not kept: the next read plans again.
    planned.plan.catch(() => this.#plans.get(text) === planned && this.#forget(text));
    if (text.length > this.options.planChars) return planned;
    this.#plans.set(text, planned);
    this.#planChars += text.length;
    for (const [oldest] of this.#plans) {
      if (this.#planChars <= this.options.planChars) break;
      this.#forget(oldest);
    }
    return planned;
  }

  #forget(text: string): void {
    this.#plans.delete(text);
    this.#planChars -= text.length;
  }
}
