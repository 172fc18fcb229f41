import type { ServiceImpl } from "@connectrpc/connect";
import type { HiringAdminService } from "../../../gen/hiring/v1/admin_pb.js";
import { hiringError, notFound } from "../../../lib/errors.js";
import type { HiringKit } from "../kit.js";
import { apiKeys, workspaces } from "./store.js";
import { newApiKey, newWorkspaceId, workspaceName } from "./rules.js";
import { KeyVerifier } from "./verifier.js";

/** Hiring workspaces and their API keys (part of `HiringAdminService`). */
export function keyHandlers({ storage, clock }: HiringKit): Pick<ServiceImpl<typeof HiringAdminService>, "createWorkspace" | "createApiKey" | "revokeApiKey" | "verifyApiKey"> {
  const { db } = storage;
  const keys = new KeyVerifier((id) => apiKeys.active(db, id), clock);
  return {
    async createWorkspace(req) {
      const name = workspaceName(req.name);
      const id = newWorkspaceId();
      const key = newApiKey();
      const now = clock.now();
      await storage.change(async (trx) => {
        await workspaces.create(trx, id, name, now);
        await apiKeys.insert(trx, { id: key.id, workspace_id: id, secret_hash: key.secretHash, created_at: now });
      });
      return { workspaceId: id, name, apiKeyId: key.id, apiKey: key.key };
    },

    async createApiKey(req) {
      if (!(await workspaces.exists(db, req.workspaceId))) throw notFound(`workspace ${req.workspaceId} not found`);
      const key = newApiKey();
      await apiKeys.insert(db, { id: key.id, workspace_id: req.workspaceId, secret_hash: key.secretHash, created_at: clock.now() });
      return { apiKeyId: key.id, apiKey: key.key };
    },

    async revokeApiKey(req) {
      const revoked = await apiKeys.revoke(db, req.apiKeyId, clock.now());
      keys.forget(req.apiKeyId);
      if (!revoked) throw notFound(`API key ${req.apiKeyId} not found or already revoked`);
      return {};
    },

    async verifyApiKey(req) {
      const workspaceId = await keys.verify(req.apiKey);
      if (!workspaceId) throw hiringError.unauthorized();
      return { workspaceId };
    },
  };
}
