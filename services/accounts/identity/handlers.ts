import type { ConnectRouter } from "@connectrpc/connect";
import { IdentityService } from "../../../gen/accounts/v1/accounts_pb.js";
import { notFound } from "../../../lib/errors.js";
import { storageId } from "../../../lib/ids.js";
import type { AccountsKit } from "../kit.js";
import { AccountsStore } from "../users/store.js";

/** The internal questions about callers: who they are, where they may act; and the plan operators set. */
export function identityHandlers({ storage, clock, auth }: AccountsKit) {
  const store = new AccountsStore(storage.db);
  return (router: ConnectRouter) => {
    router.service(IdentityService, {
      async authenticate(req) {
        return { userId: BigInt(await auth.authenticate(req.username, req.password, req.sessionToken)) };
      },

      async checkWorkspaceAccess(req) {
        const userId = storageId(req.userId);
        const workspaceId = storageId(req.workspaceId);
        const row = userId && workspaceId ? await store.workspaceAccess(userId, workspaceId) : undefined;
        if (!row) return { allowed: false };
        return {
          allowed: true,
          admin: Boolean(row.admin),
          organizationId: BigInt(row.organization_id),
          premium: Boolean(row.premium),
          role: row.role,
        };
      },

      async setWorkspacePlan(req) {
        const workspaceId = storageId(req.workspaceId);
        const updated = workspaceId ? await store.setWorkspacePremium(workspaceId, req.premium, clock.now()) : 0;
        if (!updated) throw notFound(`workspace ${req.workspaceId} not found`);
        return {};
      },
    });
  };
}
