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

/** Every resource of the accounts service, each from its own folder. */
export function accountsRoutes(kit: AccountsKit) {
  const resources = [userHandlers(kit), identityHandlers(kit), workspaceHandlers(kit), organizationHandlers(kit), invitationHandlers(kit), groupHandlers(kit), workspaceUserHandlers(kit), preferenceHandlers(kit)];
  return (router: ConnectRouter) => {
    for (const register of resources) register(router);
  };
}
