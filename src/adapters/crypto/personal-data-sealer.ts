/**
 * Seals and opens the personal fields of events (see domain/personal-data) with AES-256-GCM
 * through WebCrypto, under each subject's own key. A fresh 96-bit nonce per field; the
 * field's place (event type, field name, subject) is the associated data. Opening a field
 * whose key was shredded reads null: the event still folds, with the person gone from it.
 * A field written in plaintext before sealing existed is read as written.
 */
import type { NewEvent, RecordedEvent } from '../../ports/event-store.ts';
import { SubjectErasedError, type PersonalDataSealer, type SubjectKeys } from '../../ports/subject-keys.ts';
import {
  associatedData,
  isSealed,
  PERSONAL_FIELDS,
  personalSubject,
  SEALED_FORMAT,
  type SealedField,
} from '../../domain/personal-data/personal-fields.ts';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function importKey(material: Uint8Array): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', material as Uint8Array<ArrayBuffer>, 'AES-GCM', false, ['encrypt', 'decrypt']);
}

export async function sealField(key: CryptoKey, subjectId: string, aad: string, value: unknown): Promise<SealedField> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ct = await crypto.subtle.encrypt(
    { name: 'AES-GCM', iv, additionalData: encoder.encode(aad) },
    key,
    encoder.encode(JSON.stringify(value ?? null)),
  );
  return { pd: SEALED_FORMAT, sub: subjectId, iv: Buffer.from(iv).toString('base64'), ct: Buffer.from(ct).toString('base64') };
}

/** The field's value; a ciphertext that does not authenticate is a fault, never read as erased. */
export async function openField(key: CryptoKey, sealed: SealedField, aad: string): Promise<unknown> {
  try {
    const plain = await crypto.subtle.decrypt(
      { name: 'AES-GCM', iv: Buffer.from(sealed.iv, 'base64'), additionalData: encoder.encode(aad) },
      key,
      Buffer.from(sealed.ct, 'base64'),
    );
    return JSON.parse(decoder.decode(plain)) as unknown;
  } catch {
    throw new Error(`a sealed personal field of subject ${sealed.sub} does not authenticate`);
  }
}

export class WebCryptoPersonalDataSealer<Tx> implements PersonalDataSealer<Tx> {
  constructor(private readonly keys: SubjectKeys<Tx>) {}

  async seal(events: readonly NewEvent[], trx: Tx): Promise<NewEvent[]> {
    if (!events.some((e) => PERSONAL_FIELDS[e.type] !== undefined)) return [...events];
    const cryptoKeys = new Map<string, CryptoKey>();
    const sealed: NewEvent[] = [];
    for (const event of events) {
      const subjectId = personalSubject(event.type, event.data);
      if (subjectId === undefined) {
        sealed.push(event);
        continue;
      }
      let key = cryptoKeys.get(subjectId);
      if (!key) {
        const material = await this.keys.obtain(subjectId, trx);
        if (material === 'shredded') throw new SubjectErasedError(subjectId);
        key = await importKey(material);
        cryptoKeys.set(subjectId, key);
      }
      const data = { ...(event.data as Record<string, unknown>) };
      for (const field of PERSONAL_FIELDS[event.type]!.fields) {
        if (field in data) data[field] = await sealField(key, subjectId, associatedData(event.type, field, subjectId), data[field]);
      }
      sealed.push({ ...event, data });
    }
    return sealed;
  }

  async open(events: readonly RecordedEvent[], trx?: Tx): Promise<RecordedEvent[]> {
    const subjects = new Set<string>();
    for (const event of events) {
      const spec = PERSONAL_FIELDS[event.type];
      if (!spec) continue;
      const data = event.data as Record<string, unknown>;
      for (const field of spec.fields) {
        const value = data[field];
        if (isSealed(value)) subjects.add(value.sub);
      }
    }
    if (subjects.size === 0) return [...events];
    const found = await this.keys.find([...subjects], trx);
    const cryptoKeys = new Map<string, CryptoKey>();
    for (const [subjectId, material] of found) cryptoKeys.set(subjectId, await importKey(material));
    const opened: RecordedEvent[] = [];
    for (const event of events) {
      const spec = PERSONAL_FIELDS[event.type];
      if (!spec) {
        opened.push(event);
        continue;
      }
      const data = { ...(event.data as Record<string, unknown>) };
      for (const field of spec.fields) {
        const value = data[field];
        if (!isSealed(value)) continue;
        const key = cryptoKeys.get(value.sub);
        data[field] = key ? await openField(key, value, associatedData(event.type, field, value.sub)) : null;
      }
      opened.push({ ...event, data });
    }
    return opened;
  }
}
