import { Code, ConnectError, type Client, type HandlerContext } from "@connectrpc/connect";
import type { IdentityService } from "../../gen/accounts/v1/accounts_pb.js";
import { scopeOf, type ScopeResolvers } from "../../lib/access.js";
import type { Knex } from "../../lib/db.js";
import type { WorkspaceGate, WorkspaceScope } from "../../lib/workspace-scope.js";
import { viewerOf, type Viewer } from "./projects/access.js";

/**
 * What the tracking service's handlers are handed: the caller's place in the workspace and how they
 * see its projects. The viewer is resolved with the scope, before the handler runs, so no handler
 * reads projects without it and none asks the accounts service for it inside a transaction.
 */
export interface TrackingScope extends WorkspaceScope {
  /** Who looks at the workspace's projects: private ones are seen by admins, their users and their groups only. */
  viewer: Viewer;
}

/** The caller's own scope (RPCs declared SCOPE_USER): the workspaces they are an active member of. */
export interface TrackingUserScope {
  userId: bigint;
  /** The ids of the caller's workspaces. */
  memberships(): Promise<bigint[]>;
  /** The caller's scope in each of their workspaces. */
  workspaces(): Promise<TrackingScope[]>;
}

/** The workspace scope the call's declaration resolved (RPCs declared SCOPE_WORKSPACE). */
export const trackingScope = (ctx: HandlerContext) => scopeOf<TrackingScope>(ctx);
/** The user scope the call's declaration resolved (RPCs declared SCOPE_USER). */
export const trackingUserScope = (ctx: HandlerContext) => scopeOf<TrackingUserScope>(ctx);

/**
 * A user's scope in a workspace as the access interceptor would resolve it for them, or undefined
 * when they are no active member of it (any more): what work done on a user's behalf outside their
 * own request (a saved report's run, a scheduled mail) acts in.
 */
export type MemberScope = (userId: bigint, workspace: bigint) => Promise<TrackingScope | undefined>;

/** The tracking service's access resolvers: the workspace gate's answer, with the caller as a viewer of its projects. */
export function trackingAccess(gate: WorkspaceGate, db: Knex, identity: Client<typeof IdentityService>): ScopeResolvers & { member: MemberScope } {
  const withViewer = async (scope: WorkspaceScope): Promise<TrackingScope> => ({ ...scope, viewer: await viewerOf(db, identity, scope) });
  return {
    workspace: async (userId, workspaceId, access) => withViewer(await gate.scope(userId, workspaceId, access)),
    member: async (userId, workspace) => {
      const scope = await gate.scope(userId, workspace).catch((err: unknown) => {
        if (err instanceof ConnectError && err.code === Code.PermissionDenied) return undefined;
        throw err;
      });
      return scope && withViewer(scope);
    },
    user: (userId): TrackingUserScope => new UserScope(userId, gate, withViewer),
  };
}

/**
 * The caller's own scope, made on every call of an RPC declared SCOPE_USER: its methods are the
 * class's, not closures made (and, under tsx, named) for each call.
 */
class UserScope implements TrackingUserScope {
  constructor(
    readonly userId: bigint,
    private readonly gate: WorkspaceGate,
    private readonly withViewer: (scope: WorkspaceScope) => Promise<TrackingScope>,
  ) {}

  memberships(): Promise<bigint[]> {
    return this.gate.memberships(this.userId);
  }

  async workspaces(): Promise<TrackingScope[]> {
    return Promise.all((await this.gate.memberScopes(this.userId)).map(this.withViewer));
  }
}
