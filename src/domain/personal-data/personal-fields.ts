/**
 * Which fields of which events are personal data, whose, and the sealed form they take in
 * the log. A sealed field is an envelope naming its subject (the key id: one key per
 * subject) and its format version; the ciphertext binds the event type and field name, so
 * an envelope copied into another field or event does not open. Pure: the cipher is an
 * adapter's.
 */

export interface PersonalFieldSpec {
  /** The data subject the fields belong to: the key that seals them is theirs. */
  readonly subject: (data: Readonly<Record<string, unknown>>) => string;
  readonly fields: readonly string[];
}

const userIdOf = (data: Readonly<Record<string, unknown>>): string => String(data.userId);
/** A user's own account id is their user id, so erasing them shreds their webhooks too; an organisation's are its own. */
const accountIdOf = (data: Readonly<Record<string, unknown>>): string => String(data.accountId);

/**
 * Every event type that carries personal fields. An event type not here is stored as given.
 * Webhook URLs often hold tokens or names, and their signing secrets are credentials, so
 * both are sealed beside the user's identity.
 */
export const PERSONAL_FIELDS: Readonly<Record<string, PersonalFieldSpec>> = {
  UserRegistered: { subject: userIdOf, fields: ['email', 'name', 'passwordHash'] },
  WebhookEndpointRegistered: { subject: accountIdOf, fields: ['url', 'secret'] },
  WebhookSecretRotated: { subject: accountIdOf, fields: ['secret'] },
};

export const SEALED_FORMAT = 1;

export interface SealedField {
  /** Format version of the envelope. */
  readonly pd: typeof SEALED_FORMAT;
  /** Subject id, which names the key. */
  readonly sub: string;
  /** AES-GCM nonce and ciphertext (with tag), base64. */
  readonly iv: string;
  readonly ct: string;
}

export function isSealed(value: unknown): value is SealedField {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return v.pd === SEALED_FORMAT && typeof v.sub === 'string' && typeof v.iv === 'string' && typeof v.ct === 'string';
}

/** What the ciphertext is bound to: the field's place, so it opens nowhere else. */
export function associatedData(eventType: string, field: string, subjectId: string): string {
  return `${eventType}\u0000${field}\u0000${subjectId}`;
}

/** The subject of an event's personal fields, or undefined for an event with none. */
export function personalSubject(type: string, data: unknown): string | undefined {
  const spec = PERSONAL_FIELDS[type];
  if (!spec || typeof data !== 'object' || data === null) return undefined;
  return spec.subject(data as Record<string, unknown>);
}
