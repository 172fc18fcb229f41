import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { WorkspaceUserSchema, type WorkspaceUser } from "../../../gen/accounts/v1/organizations_pb.js";
import { entityEvent } from "../../../lib/events.js";
import type { EntityAction } from "../../../lib/event-catalog.js";
import type { Emit } from "../../../lib/storage.js";
import type { MembershipRow, OrganizationUserRow, UserProfile } from "../organizations/store.js";

const stamp = (d: Date | null | undefined) => (d ? timestampFromDate(d) : undefined);
const int64 = (n: number | null) => (n === null ? undefined : BigInt(n));

/**
 * A workspace membership as the workspace user lists and the webhooks' workspace_user events show
 * it; `member` is the user's organization user row (none for a member outside the organization's
 * rows), `at` the last change known.
 */
export function workspaceUserMessage(m: MembershipRow, member: OrganizationUserRow | undefined, profile: UserProfile, at: Date): WorkspaceUser {
  return create(WorkspaceUserSchema, {
    id: m.id,
    workspaceId: m.workspace_id,
    userId: m.user_id,
    active: m.active,
    admin: m.admin,
    workspaceAdmin: m.admin,
    organizationAdmin: member?.admin ?? false,
    inactive: member?.inactive ?? false,
    role: m.role,
    name: profile.fullname,
    email: profile.email,
    timezone: profile.timezone,
    at: stamp(at),
    isDirect: true,
    groupIds: [],
    rate: member?.rate ?? undefined,
    rateLastUpdated: stamp(member?.rate_last_updated),
    labourCost: int64(member?.labour_cost ?? null),
    workingHoursInMinutes: int64(member?.working_hours_in_minutes ?? null),
  });
}

/** One workspace_user event per membership, in the membership's workspace. */
export async function emitMemberships(emit: Emit, action: EntityAction, memberships: MembershipRow[], member: OrganizationUserRow, profile: UserProfile, actor: bigint, now: Date) {
  for (const m of memberships) {
    await emit(entityEvent({ entity: "workspace_user", action, schema: WorkspaceUserSchema, message: workspaceUserMessage(m, member, profile, now), workspaceId: m.workspace_id, userId: actor }));
  }
}
