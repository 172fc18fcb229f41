import type { ConnectError, HandlerContext } from "@connectrpc/connect";
import type { Knex } from "../../../lib/db.js";
import { forbidden, noAccess } from "../../../lib/errors.js";
import { requireUser } from "../../../lib/identity.js";
import { storageId } from "../../../lib/ids.js";
import { mayAct, roleOf } from "./rules.js";
import { memberOf, organizations, type OrganizationRow, type OrganizationUserRow } from "./store.js";

/** Who acts in which organization, with what role: what every organization-scoped handler starts from. */
export interface OrganizationScope {
  userId: bigint;
  organizationId: bigint;
  organization: OrganizationRow;
  /** The caller's organization user row. */
  member: OrganizationUserRow;
  role: string;
  admin: boolean;
  owner: boolean;
}

/** What a call needs beyond membership, declared where the handler asks for its scope. */
export interface OrganizationRequirements {
  /** Organization admins only: the 403's message. */
  admin?: string;
  /** No such organization (or an id no stored one can have); the `denied` error unless given. */
  missing?: () => ConnectError;
  /** The caller is no joined, active member; 403 "User does not have access to this resource." unless given. */
  denied?: () => ConnectError;
}


/**
 * OrganizationGate answers "may this caller act in this organization?" for the accounts service's
 * organization-scoped handlers, from its own tables (no cache: they are here). A user who has not
 * joined (invited) or was deactivated is no member for this.
 */
export class OrganizationGate {
  constructor(private readonly db: Knex) {}

  async scope(ctx: HandlerContext, organizationId: bigint, requirements: OrganizationRequirements = {}): Promise<OrganizationScope> {
    const userId = requireUser(ctx);
    const denied = requirements.denied ?? noAccess;
    const id = storageId(organizationId);
    const organization = id === undefined ? undefined : await organizations.get(this.db, id, organizationId);
    if (!organization) throw (requirements.missing ?? denied)();
    const user = storageId(userId);
    const member = user === undefined ? undefined : await memberOf(this.db, organization.id, user);
    if (!member || !mayAct(member)) throw denied();
    if (requirements.admin && !member.admin) throw forbidden(requirements.admin);
    return { userId, organizationId, organization, member, role: roleOf(member), admin: member.admin, owner: member.owner };
  }
}
