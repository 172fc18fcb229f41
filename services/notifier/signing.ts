import { createHmac, randomBytes } from "node:crypto";

/** A subscription secret in the Standard Webhooks form: `whsec_` and 24 random bytes in base64. */
export function newSecret(): string {
  return `whsec_${randomBytes(24).toString("base64")}`;
}

/**
 * The signature headers of a delivery: the time-tracking `X-Webhook-Signature-256` (HMAC-SHA256
 * of the raw body keyed by the secret) and the Standard Webhooks headers (HMAC-SHA256 of
 * `id.timestamp.body` keyed by the secret's decoded bytes).
 */
export function signatureHeaders(secret: string, id: string, timestampSeconds: number, body: string): Record<string, string> {
  const key = Buffer.from(secret.startsWith("whsec_") ? secret.slice(6) : secret, "base64");
  const standard = createHmac("sha256", key).update(`${id}.${timestampSeconds}.${body}`).digest("base64");
  const tracking = createHmac("sha256", secret).update(body).digest("hex");
  return {
    "webhook-id": id,
    "webhook-timestamp": String(timestampSeconds),
    "webhook-signature": `v1,${standard}`,
    "x-webhook-signature-256": `sha256=${tracking}`,
  };
}
