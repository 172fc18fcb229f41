import type { HandlerContext } from "@connectrpc/connect";
import type { Access } from "../../gen/gateway/v1/annotations_pb.js";
import { refusal, scopeOf, type ScopeResolvers } from "../../lib/access.js";
import type { Knex } from "../../lib/db.js";
import { forbidden, noAccess } from "../../lib/errors.js";
import { rowId } from "../../lib/ids.js";
import { mayAct, roleOf } from "./organizations/rules.js";
import { memberOf, organizations, type AccountMember, type OrganizationRow } from "./organizations/store.js";
import { memberWorkspace, type MemberWorkspace } from "./workspaces/store.js";

/** Who acts in which organization, with what role: what every organization-scoped handler is handed. */
export interface OrganizationScope {
  userId: bigint;
  /** The caller's id as rows hold it (`userId`, one no row can have refused). */
  user: bigint;
  organizationId: bigint;
  organization: OrganizationRow;
  /** The caller's organization user row. */
  member: AccountMember;
  role: string;
  admin: boolean;
  owner: boolean;
}

/** Who acts in which workspace: what every workspace-scoped handler of the accounts service is handed. */
export interface MemberWorkspaceScope {
  userId: bigint;
  /** The caller's id as rows hold it (`userId`, one no row can have refused). */
  user: bigint;
  /** The workspace, with the caller's place in it (its admins include the organization's owner and admins). */
  seen: MemberWorkspace;
}

/** The organization scope the call's declaration resolved (RPCs declared SCOPE_ORGANIZATION). */
export const organizationScope = (ctx: HandlerContext) => scopeOf<OrganizationScope>(ctx);
/** The workspace scope the call's declaration resolved (RPCs declared SCOPE_WORKSPACE). */
export const memberWorkspaceScope = (ctx: HandlerContext) => scopeOf<MemberWorkspaceScope>(ctx);

/**
 * The accounts service's access resolvers, from its own tables (no cache: they are here). In an
 * organization, a user who has not joined (invited) or was deactivated is no member; in a workspace,
 * an active membership is.
 */
export function accountsAccess(db: Knex): ScopeResolvers {
  return {
    async organization(userId: bigint, organizationId: bigint, declared: Access): Promise<OrganizationScope> {
      const denied = () => refusal(declared.denied, noAccess);
      const id = rowId(organizationId);
      const organization = id === undefined ? undefined : await organizations.get(db, id, organizationId);
      if (!organization) throw declared.missing ? refusal(declared.missing, noAccess) : denied();
      const user = rowId(userId);
      const member = user === undefined ? undefined : await memberOf(db, organization.id, user);
      if (!member || !mayAct(member)) throw denied();
      if (declared.admin && !member.admin) throw refusal(declared.notAdmin, noAccess);
      return { userId, user: member.user_id, organizationId, organization, member, role: roleOf(member), admin: member.admin, owner: member.owner };
    },

    async workspace(userId: bigint, workspaceId: bigint, declared: Access): Promise<MemberWorkspaceScope> {
      const user = rowId(userId);
      const workspace = rowId(workspaceId);
      const seen = user === undefined || workspace === undefined ? undefined : await memberWorkspace(db, user, workspace);
      if (!seen || user === undefined) throw refusal(declared.denied, forbidden);
      if (declared.admin && !seen.admin) throw refusal(declared.notAdmin, noAccess);
      return { userId, user, seen };
    },
  };
}
