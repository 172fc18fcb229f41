import { createHmac, createSecretKey, randomBytes, type KeyObject } from "node:crypto";

/** A subscription secret in the Standard Webhooks form: `whsec_` and 24 random bytes in base64. */
export function newSecret(): string {
  return `whsec_${randomBytes(24).toString("base64")}`;
}

/**
 * The key of the Standard Webhooks signature: the base64 bytes after `whsec_`, as the common
 * verification libraries decode it; a secret of another form (the time-tracking API lets users
 * choose one) is used as its UTF-8 bytes.
 */
function standardKey(secret: string): Buffer {
  return secret.startsWith("whsec_") ? Buffer.from(secret.slice(6), "base64") : Buffer.from(secret, "utf8");
}

/** Secrets' keys made once (the first of a secret's deliveries), as KeyObjects: an HMAC keyed by a string or Buffer prepares its key every time. */
const KEPT_KEYS = 10_000;
const keys = new Map<string, { standard: KeyObject; tracking: KeyObject }>();

function keysOf(secret: string): { standard: KeyObject; tracking: KeyObject } {
  let kept = keys.get(secret);
  if (!kept) {
    kept = { standard: createSecretKey(standardKey(secret)), tracking: createSecretKey(Buffer.from(secret, "utf8")) };
    // The oldest go first (a Map keeps insertion order).
    if (keys.size >= KEPT_KEYS) keys.delete(keys.keys().next().value!);
    keys.set(secret, kept);
  }
  return kept;
}

/** Standard Webhooks `webhook-signature`: `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body`. */
export function standardSignature(secret: string, id: string, timestampSeconds: number, body: string): string {
  return `v1,${createHmac("sha256", keysOf(secret).standard).update(`${id}.${timestampSeconds}.${body}`).digest("base64")}`;
}

/** Time-tracking `X-Webhook-Signature-256`: `sha256=` and the hex HMAC-SHA256 of the raw body keyed by the secret. */
export function trackingSignature(secret: string, body: string): string {
  return `sha256=${createHmac("sha256", keysOf(secret).tracking).update(body).digest("hex")}`;
}

/** The signature headers of every delivery: Standard Webhooks and the time-tracking one. */
export function signatureHeaders(secret: string, id: string, timestampSeconds: number, body: string): Record<string, string> {
  return {
    "webhook-id": id,
    "webhook-timestamp": String(timestampSeconds),
    "webhook-signature": standardSignature(secret, id, timestampSeconds, body),
    "x-webhook-signature-256": trackingSignature(secret, body),
  };
}
