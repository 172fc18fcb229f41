import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/** Format version of a sealed value; a new scheme or key rotation would add another. */
const VERSION = "v1";

/**
 * SecretBox keeps secrets that must be read back (API tokens, webhook signing secrets) unreadable
 * at rest: AES-256-GCM with the configured key (ENCRYPTION_KEY), a fresh 96-bit nonce per value.
 * A sealed value is `v1.<nonce>.<tag>.<ciphertext>` in base64url, so a database dump alone
 * reveals nothing and a changed byte fails to open.
 */
export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error("SecretBox needs a 32-byte key");
  }

  seal(plaintext: string): string {
    const nonce = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.key, nonce);
    const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return [VERSION, nonce, cipher.getAuthTag(), ciphertext].map((p) => (typeof p === "string" ? p : p.toString("base64url"))).join(".");
  }

  /** The plaintext; throws when the value was not sealed with this key or was changed. */
  open(sealed: string): string {
    const [version, nonce, tag, ciphertext] = sealed.split(".");
    if (version !== VERSION || ciphertext === undefined) throw new Error("not a sealed value");
    const decipher = createDecipheriv("aes-256-gcm", this.key, Buffer.from(nonce, "base64url"));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]).toString("utf8");
  }
}
