/**
 * The texts already marked for an account, kept so a case read again by the same account
 * is not marked again: marking a judgment's text costs milliseconds of CPU (2.5 ms for a
 * 33k-character Supreme Court judgment), more than the rest of a charged read together.
 * A marked text is a pure function of the account's tag and the text, so a kept copy is
 * always the answer marking would give. Bounded by the characters held; the least
 * recently read go first. Keyed by a digest of the text, so an edited text is marked anew.
 */
import { createHash } from 'node:crypto';

export type Mark = (accountId: string, text: string) => Promise<string>;

export class MarkedTexts {
  readonly #kept = new Map<string, string>();
  #chars = 0;

  constructor(
    private readonly mark: Mark,
    private readonly maxChars: number,
  ) {}

  async marked(accountId: string, text: string): Promise<string> {
    const key = `${accountId}\u0000${createHash('sha256').update(text).digest('base64')}`;
    const kept = this.#kept.get(key);
    if (kept !== undefined) {
      this.#kept.delete(key);
      this.#kept.set(key, kept);
      return kept;
    }
    const marked = await this.mark(accountId, text);
    if (marked.length > this.maxChars) return marked;
    this.#kept.set(key, marked);
    this.#chars += marked.length;
    for (const [oldest, value] of this.#kept) {
      if (this.#chars <= this.maxChars) break;
      this.#kept.delete(oldest);
      this.#chars -= value.length;
    }
    return marked;
  }
}
