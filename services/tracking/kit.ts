import type { Client } from "@connectrpc/connect";
import type { WorkspaceRateService } from "../../gen/accounts/v1/rates_pb.js";
import type { ResourceKit } from "../../lib/resource-kit.js";
import type { SecretBox } from "../../lib/secret-box.js";
import type { MemberScope } from "./scope.js";
import type { ImportWorker } from "./imports/worker.js";

/** What the tracking service's resources are built from: the resource kit, and what seals secrets that must be read back. */
export interface TrackingKit extends ResourceKit {
  /** Seals the saved reports' tokens with ENCRYPTION_KEY (the lists show them; a run looks them up by hash). */
  box: SecretBox;
  /** A saved report's owner's scope, resolved as the access interceptor resolves a caller's. */
  memberScope: MemberScope;
  /** Imports (imports/): checks and dry runs at once, and the worker that writes queued jobs. */
  imports: ImportWorker;
  /** Data exports (exports/): the directory of their files (EXPORT_DIR), and a nudge for the worker when a job waits. */
  exports: { dir: string; kick: () => void };
  /** The accounts service's rates of workspaces and workspace users (rates/ hands those levels over). */
  workspaceRates: Client<typeof WorkspaceRateService>;
}
