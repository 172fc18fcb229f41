import type { ConnectRouter } from "@connectrpc/connect";
import type { AccountsKit } from "./kit.js";
import { userHandlers } from "./users/handlers.js";
import { identityHandlers } from "./identity/handlers.js";
import { workspaceHandlers } from "./workspaces/handlers.js";
import { organizationHandlers } from "./organizations/handlers.js";
import { invitationHandlers } from "./invitations/handlers.js";
import { groupHandlers } from "./groups/handlers.js";
import { workspaceUserHandlers } from "./workspace-users/handlers.js";
import { preferenceHandlers } from "./preferences/handlers.js";
import { roleHandlers } from "./roles/handlers.js";
import { auditLogHandlers } from "./audit-logs/handlers.js";
import { imageHandlers } from "./images/handlers.js";
import { referenceDataHandlers } from "./reference-data/handlers.js";
import { directoryHandlers } from "./directory/handlers.js";
import { callerHandlers } from "./caller/handlers.js";
import { workspaceGroupHandlers } from "./workspace-groups/handlers.js";
import { workspaceMemberHandlers } from "./workspace-users/member-handlers.js";
import { workspacePreferenceHandlers } from "./workspace-preferences/handlers.js";
import { workspaceRateHandlers } from "./rates/handlers.js";

/** Every resource of the accounts service, each from its own folder. */
export function accountsRoutes(kit: AccountsKit) {
  const resources = [userHandlers(kit), identityHandlers(kit), workspaceHandlers(kit), organizationHandlers(kit), invitationHandlers(kit), groupHandlers(kit), workspaceUserHandlers(kit), preferenceHandlers(kit), roleHandlers(kit), auditLogHandlers(kit), imageHandlers(kit), referenceDataHandlers(kit), directoryHandlers(kit), callerHandlers(kit), workspaceGroupHandlers(kit), workspaceMemberHandlers(kit), workspacePreferenceHandlers(kit), workspaceRateHandlers(kit)];
  return (router: ConnectRouter) => {
    for (const register of resources) register(router);
  };
}
