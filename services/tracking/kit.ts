import type { ResourceKit } from "../../lib/resource-kit.js";
import type { SecretBox } from "../../lib/secret-box.js";
import type { MemberScope } from "./scope.js";

/** What the tracking service's resources are built from: the resource kit, and what seals secrets that must be read back. */
export interface TrackingKit extends ResourceKit {
  /** Seals the saved reports' tokens with ENCRYPTION_KEY (the lists show them; a run looks them up by hash). */
  box: SecretBox;
  /** A saved report's owner's scope, resolved as the access interceptor resolves a caller's. */
  memberScope: MemberScope;
}
