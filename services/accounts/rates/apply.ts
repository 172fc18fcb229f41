import type { Knex } from "../../../lib/db.js";
import type { RateKey } from "../../../lib/rate-history.js";
import type { Emit } from "../../../lib/storage.js";
import { rateWorkspaceInvalid, rateWorkspaceUserMissing } from "../errors.js";
import { isPaid } from "../organizations/plan.js";
import { memberForChange, membershipsIn, organizationUsers, organizations, userProfile, type MembershipRow } from "../organizations/store.js";
import { emitMemberships } from "../workspace-users/view.js";
import { hasMembership, membershipByIdForChange, workspaceById, workspaceByIdForChange } from "../workspace-users/store.js";
import { memberWorkspace, workspaces, type MemberWorkspace, type WorkspaceRow } from "../workspaces/store.js";
import { workspaceEvent } from "../workspaces/view.js";
import { workspaceRateHistory } from "./store.js";

/** A rate's entity: the workspace, and for a workspace user its membership. */
export interface WorkspaceRateEntity {
  workspace: WorkspaceRow;
  membership?: MembershipRow;
}

/** The entity a rate names, locked for the change: the path's workspace, or one of its memberships; undefined when gone. */
async function lockedEntity(trx: Knex.Transaction, key: RateKey): Promise<WorkspaceRateEntity | undefined> {
  const workspace = await workspaceByIdForChange(trx, key.workspace);
  if (!workspace) return undefined;
  if (key.level === "workspace") return key.levelId === workspace.id ? { workspace } : undefined;
  const membership = await membershipByIdForChange(trx, workspace, key.levelId);
  return membership ? { workspace, membership } : undefined;
}

/** The same for a new rate: a missing entity is the route's 400. */
export async function entityForChange(trx: Knex.Transaction, key: RateKey): Promise<WorkspaceRateEntity> {
  const entity = await lockedEntity(trx, key);
  if (!entity) throw key.level === "workspace" ? rateWorkspaceInvalid() : rateWorkspaceUserMissing();
  return entity;
}

/** The same without locks, for a list. */
export async function checkEntity(db: Knex, key: RateKey): Promise<void> {
  const workspace = await workspaceById(db, key.workspace);
  if (key.level === "workspace") {
    if (!workspace || key.levelId !== workspace.id) throw rateWorkspaceInvalid();
  } else if (!workspace || !(await hasMembership(db, workspace.id, key.levelId))) {
    throw rateWorkspaceUserMissing();
  }
}

/**
 * The entity's value follows the rate that holds now (`RateHistory.begin`), with the event the
 * same change through PUT emits: a workspace's `default_hourly_rate` (and `rate_last_updated`),
 * `workspace updated`; a workspace user's `rate` (and `rate_last_updated`) or, for labor costs,
 * `labour_cost`, kept on the user's organization row as PUT .../organizations/{id}/users/{id}
 * keeps them, `workspace_user updated` for each of the user's memberships in the organization.
 * A workspace has no labor cost: such rates are history only; a rate of a workspace user since
 * removed is marked applied and changes nothing. `actor` is the change's user.
 */
export async function applyWorkspaceRate(trx: Knex.Transaction, emit: Emit, key: RateKey, actor: bigint, now: Date): Promise<void> {
  // The entity first, then its rates: the order a new rate locks them in.
  const entity = await lockedEntity(trx, key);
  const current = await workspaceRateHistory.begin(trx, key, now);
  if (!current || !entity) return;
  const { workspace, membership } = entity;
  if (key.level === "workspace") {
    if (key.type !== "billable_rates" || workspace.default_hourly_rate === current.amount) return;
    const updated = await workspaces.update(trx, workspace, { default_hourly_rate: current.amount, rate_last_updated: now, updated_at: now });
    await emit(workspaceEvent("updated", await seenBy(trx, updated, actor), actor));
    return;
  }
  if (!membership) return;
  const member = await memberForChange(trx, workspace.organization_id, membership.user_id);
  if (!member) return;
  const billable = key.type === "billable_rates";
  const amount = billable ? current.amount : Math.round(current.amount);
  if ((billable ? member.rate : member.labour_cost) === amount) return;
  const changes = billable ? { rate: amount, rate_last_updated: now } : { labour_cost: amount };
  const updated = await organizationUsers.update(trx, member, { ...changes, updated_at: now });
  const memberships = await membershipsIn(trx, workspace.organization_id, [membership.user_id]);
  await emitMemberships(emit, "updated", memberships, updated, await userProfile(trx, membership.user_id), actor, now);
}

/** The workspace as the actor sees it (as the workspace's events show it); a former member sees it as a member. */
async function seenBy(trx: Knex.Transaction, workspace: WorkspaceRow, actor: bigint): Promise<MemberWorkspace> {
  const seen = await memberWorkspace(trx, actor, workspace.id);
  if (seen) return seen;
  const organization = await organizations.get(trx, workspace.organization_id, workspace.organization_id);
  return { workspace, admin: false, role: "user", premium: organization ? isPaid(organization) : false };
}
