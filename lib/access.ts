import type { Client } from "@connectrpc/connect";
import { IdentityService, type CheckWorkspaceAccessResponse } from "../gen/accounts/v1/accounts_pb.js";
import type { Directory } from "./directory.js";
import { forbidden, rewrap } from "./errors.js";

export type WorkspaceAccess = Pick<CheckWorkspaceAccessResponse, "admin" | "organizationId" | "premium" | "role">;

/**
 * WorkspaceGate asks the accounts service whether a user may act in a time-tracking
 * workspace, and remembers answers for a few seconds: membership changes take effect within
 * `ttlMs`.
 */
export class WorkspaceGate {
  private readonly client: Client<typeof IdentityService>;
  private readonly cache = new Map<string, { at: number; access?: WorkspaceAccess }>();

  constructor(directory: Directory, private readonly ttlMs = 5_000) {
    this.client = directory.client("accounts", IdentityService);
  }

  /** The user's access, or 403 when the workspace does not exist or the user is no member. */
  async require(userId: bigint, workspaceId: bigint, message = "Forbidden"): Promise<WorkspaceAccess> {
    const key = `${userId}:${workspaceId}`;
    const now = Date.now();
    let entry = this.cache.get(key);
    if (!entry || now - entry.at > this.ttlMs) {
      const answer = await this.client.checkWorkspaceAccess({ userId, workspaceId }).catch((err) => {
        throw rewrap(err);
      });
      entry = { at: now, access: answer.allowed ? answer : undefined };
      if (this.cache.size > 10_000) this.cache.clear();
      this.cache.set(key, entry);
    }
    if (!entry.access) throw forbidden(message);
    return entry.access;
  }
}
