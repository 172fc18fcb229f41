import { create } from "@bufbuild/protobuf";
import type { Client, HandlerContext } from "@connectrpc/connect";
import { IdentityService, type CheckWorkspaceAccessResponse, type WorkspaceRules, WorkspaceRulesSchema } from "../gen/accounts/v1/accounts_pb.js";
import type { Clock } from "./clock.js";
import type { Directory } from "./directory.js";
import type { Access } from "../gen/gateway/v1/annotations_pb.js";
import { refusal, scopeOf, type ScopeResolvers } from "./access.js";
import { forbidden, noAccess, paymentRequired } from "./errors.js";
import { rowId } from "./ids.js";

type Membership = Pick<CheckWorkspaceAccessResponse, "admin" | "organizationId" | "premium" | "role" | "rules">;
/** A membership and nothing more. */
const MEMBER = {} as const;

/** Who acts in which workspace, with what role: what every workspace-scoped handler starts from. */
export interface WorkspaceScope {
  userId: bigint;
  workspaceId: bigint;
  organizationId: bigint;
  role: string;
  admin: boolean;
  premium: boolean;
  /** The workspace's settings that decide what members may do and what resources default to. */
  rules: WorkspaceRules;
}

/** The workspace scope the call's declaration resolved (RPCs declared SCOPE_WORKSPACE). */
export const workspaceScope = (ctx: HandlerContext) => scopeOf<WorkspaceScope>(ctx);

/** How long a workspace gate remembers an answer unless told otherwise. */
export const WORKSPACE_ACCESS_TTL_MS = 5_000;

/**
 * WorkspaceGate answers "may this caller act in this workspace?" for every workspace-scoped
 * handler, by asking the accounts service, and remembers each answer for `ttlMs` of the
 * service's clock: a change of membership, role or plan takes effect within that time.
 */
export class WorkspaceGate {
  private readonly client: Client<typeof IdentityService>;
  private readonly cache = new Map<string, { at: number; access?: Membership }>();

  constructor(
    directory: Directory,
    private readonly clock: Clock,
    private readonly ttlMs = WORKSPACE_ACCESS_TTL_MS,
  ) {
    this.client = directory.peerClient("accounts", IdentityService);
  }

  /** The resolvers of the service's access interceptor: a workspace's scope as its RPC declares it. */
  resolvers(): ScopeResolvers {
    return { workspace: (userId, workspaceId, access) => this.scope(userId, workspaceId, access) };
  }

  /** The caller's scope in the workspace, or the refusal the RPC declares (not a member, no such workspace; not an admin; not premium). */
  async scope(userId: bigint, workspaceId: bigint, declared: Partial<Pick<Access, "admin" | "premium" | "denied" | "notAdmin" | "notPremium">> = MEMBER): Promise<WorkspaceScope> {
    const workspace = rowId(workspaceId);
    const access = workspace === undefined ? undefined : await this.access(userId, workspaceId);
    if (!access || workspace === undefined) throw refusal(declared.denied, forbidden);
    if (declared.admin && !access.admin) throw refusal(declared.notAdmin, noAccess);
    if (declared.premium && !access.premium) throw paymentRequired(declared.notPremium ?? "");
    return { userId, workspaceId, organizationId: access.organizationId, role: access.role, admin: access.admin, premium: access.premium, rules: access.rules ?? create(WorkspaceRulesSchema) };
  }

  /** The ids of the workspaces the user is an active member of. */
  async memberships(userId: bigint): Promise<bigint[]> {
    const answer = await this.client.listUserWorkspaces({ userId });
    return answer.workspaceIds.map(rowId).filter((id): id is bigint => id !== undefined);
  }

  /** The user's scope in each workspace they are an active member of (the span of `/me/...` lists). */
  async memberScopes(userId: bigint): Promise<WorkspaceScope[]> {
    const out = [];
    for (const workspace of await this.memberships(userId)) out.push(await this.scope(userId, workspace));
    return out;
  }

  private async access(userId: bigint, workspaceId: bigint): Promise<Membership | undefined> {
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
