import { create } from "@bufbuild/protobuf";
import type { Client, HandlerContext } from "@connectrpc/connect";
import { IdentityService, type CheckWorkspaceAccessResponse, type WorkspaceRules, WorkspaceRulesSchema } from "../gen/accounts/v1/accounts_pb.js";
import type { Clock } from "./clock.js";
import type { Directory } from "./directory.js";
import { requireUser } from "./identity.js";
import { forbidden, paymentRequired } from "./errors.js";
import { storageId } from "./ids.js";

type Access = Pick<CheckWorkspaceAccessResponse, "admin" | "organizationId" | "premium" | "role" | "rules">;

/** Who acts in which workspace, with what role: what every workspace-scoped handler starts from. */
export interface WorkspaceScope {
  userId: bigint;
  workspaceId: bigint;
  /** The workspace's storage id (rows' `workspace_id`). */
  workspace: number;
  organizationId: bigint;
  role: string;
  admin: boolean;
  premium: boolean;
  /** The workspace's settings that decide what members may do and what resources default to. */
  rules: WorkspaceRules;
}

/** What a call needs beyond membership, declared where the handler asks for its scope. */
export interface ScopeRequirements {
  /** Workspace admins only: the 403's message. */
  admin?: string;
  /** Premium workspaces only: the 402's message. */
  premium?: string;
  /** The 403's message for a caller who is no member (the webhooks API words it its own way). */
  denied?: string;
}

/**
 * WorkspaceGate answers "may this caller act in this workspace?" for every workspace-scoped
 * handler, by asking the accounts service, and remembers each answer for `ttlMs` of the
 * service's clock: a change of membership, role or plan takes effect within that time.
 */
export class WorkspaceGate {
  private readonly client: Client<typeof IdentityService>;
  private readonly cache = new Map<string, { at: number; access?: Access }>();

  constructor(
    directory: Directory,
    private readonly clock: Clock,
    private readonly ttlMs = 5_000,
  ) {
    this.client = directory.peerClient("accounts", IdentityService);
  }

  /** The caller's scope in the workspace, or the 403 (not a member, no such workspace) / 402 it declares. */
  async scope(ctx: HandlerContext, workspaceId: bigint, requirements: ScopeRequirements = {}): Promise<WorkspaceScope> {
    const userId = requireUser(ctx);
    const workspace = storageId(workspaceId);
    const access = workspace === undefined ? undefined : await this.access(userId, workspaceId);
    if (!access || workspace === undefined) throw forbidden(requirements.denied);
    if (requirements.admin && !access.admin) throw forbidden(requirements.admin);
    if (requirements.premium && !access.premium) throw paymentRequired(requirements.premium);
    return { userId, workspaceId, workspace, organizationId: access.organizationId, role: access.role, admin: access.admin, premium: access.premium, rules: access.rules ?? create(WorkspaceRulesSchema) };
  }

  /** The storage ids of the workspaces the caller is an active member of (the span of `/me/...` lists). */
  async memberships(ctx: HandlerContext): Promise<number[]> {
    const userId = requireUser(ctx);
    const answer = await this.client.listUserWorkspaces({ userId });
    return answer.workspaceIds.map(storageId).filter((id): id is number => id !== undefined);
  }

  private async access(userId: bigint, workspaceId: bigint): Promise<Access | undefined> {
    const key = `${userId}:${workspaceId}`;
    const now = this.clock.now().getTime();
    let entry = this.cache.get(key);
    if (!entry || now - entry.at > this.ttlMs) {
      const answer = await this.client.checkWorkspaceAccess({ userId, workspaceId });
      entry = { at: now, access: answer.allowed ? answer : undefined };
      if (this.cache.size > 10_000) this.cache.clear();
      this.cache.set(key, entry);
    }
    return entry.access;
  }
}
