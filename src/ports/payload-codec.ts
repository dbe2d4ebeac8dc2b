/**
 * The payload codec's refusal, part of its contract: whoever calls the codec (the codec
 * server routes) tells a payload it cannot open apart from a fault by this class.
 */
/** A payload the codec refuses to open. The message names the key id, never key material. */
export class PayloadCodecError extends Error {
  constructor(
    readonly reason: 'unknown-key' | 'not-authentic' | 'malformed',
    message: string,
  ) {
    super(message);
    this.name = 'PayloadCodecError';
  }
}
