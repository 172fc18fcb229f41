import type { Clock } from "../../lib/clock.js";
import type { Logger } from "../../lib/logger.js";
import type { SecretBox } from "../../lib/secret-box.js";
import type { ServiceStorage } from "../../lib/storage.js";
import type { Authentication } from "./users/authentication.js";
import type { BlobStore } from "../../lib/blobs.js";

/** What the accounts service's resources are built from. */
export interface AccountsKit {
  storage: ServiceStorage;
  clock: Clock;
  log: Logger;
  /** Seals what must be read back (API tokens) with ENCRYPTION_KEY. */
  box: SecretBox;
  /** Password checks, tokens, sessions. */
  auth: Authentication;
  /** The gateway's public URL, for links in mail (PUBLIC_URL). */
  publicUrl: string;
  /** Where uploaded images are kept (lib/blobs.ts; BLOB_DIR). */
  blobs: BlobStore;
}
