import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import { OrganizationAdminService, OrganizationSchema, OrganizationService, OrganizationUserSchema, type Organization, type OrganizationUser } from "../../../gen/accounts/v1/organizations_pb.js";
import { noAccess } from "../../../lib/errors.js";
import { requireUser } from "../../../lib/identity.js";
import { rowId } from "../../../lib/ids.js";
import { changeRow } from "../../../lib/resource-kit.js";
import type { AccountsKit } from "../kit.js";
import { notOrganizationMember, organizationNotFound, organizationUserNotFound, ownerCannotLeave, queryValueInvalid, userWorkspaceLimit } from "../errors.js";
import { workspaceEvent } from "../workspaces/view.js";
import { emitMemberships } from "../workspace-users/view.js";
import { workspaces } from "../workspaces/store.js";
import { PRICING_PLAN, isPaid, pricingPlan } from "./plan.js";
import { DEFAULT_MAX_WORKSPACES, MAX_WORKSPACES_PER_USER, checkRemovable, checkSeatFree, mayAct, memberQuery, newOrganization, organizationUserChanges, organizationUserInput, pagination, removalIds, renamedOrganization, roleOf } from "./rules.js";
import { organizationScope } from "../access.js";
import { activeSeats, defaultWorkspaceIfNone, deleteOrganization, groupsAmong, groupsOfUsers, insertMembership, insertWorkspace, memberForChange, memberPage, membersForChange, membershipsIn, organizationUsers, organizations, organizationsOf, removeMember, setMembershipsActive, userCount, userProfile, workspaceCountForChange, workspacesAmong, type MemberListRow, type MembershipRow, type OrganizationRow, type OrganizationUserRow, type UserProfile } from "./store.js";
import { invitationOf, pendingInvitationsOf, revokePending } from "../invitations/store.js";

const stamp = (d: Date | null | undefined) => (d ? timestampFromDate(d) : undefined);
const int64 = (n: number | null) => (n === null ? undefined : BigInt(n));

/** An organization as one of its users sees it (`admin` and `owner` are that user's). */
export function organizationMessage(organization: OrganizationRow, member: OrganizationUserRow, users: number): Organization {
  return create(OrganizationSchema, {
    id: organization.id,
    name: organization.name,
    admin: member.admin,
    owner: member.owner,
    at: stamp(organization.updated_at),
    createdAt: stamp(organization.created_at),
    isMultiWorkspaceEnabled: isPaid(organization),
    isUnified: false,
    maxWorkspaces: BigInt(organization.max_workspaces),
    pricingPlanId: BigInt(organization.pricing_plan_id),
    userCount: BigInt(users),
    // Plans are set by operators: no trials, no payments.
    trialInfo: { canHaveTrial: false, trial: false, trialAvailable: false },
  });
}

/**
 * An organization user as the list answers it; `profile` is its account's (none for a pending
 * invitee), `invitation` the latest pending one of someone who has not joined.
 */
function organizationUserMessage(
  member: OrganizationUserRow,
  profile: UserProfile | undefined,
  memberships: MembershipRow[],
  organization: OrganizationRow,
  groups: { group_id: bigint; name: string }[],
  invitation: { id: bigint; code: string | undefined } | undefined,
): OrganizationUser {
  const createdAt = member.created_at ?? organization.created_at;
  return create(OrganizationUserSchema, {
    id: member.id,
    userId: member.user_id === null ? undefined : member.user_id,
    organizationId: member.organization_id,
    name: profile?.fullname,
    email: profile?.email ?? member.email ?? "",
    invitationId: invitation ? invitation.id : undefined,
    invitationCode: invitation?.code,
    avatarUrl: "",
    // E-mails of organization users are not changed through the organization.
    canEditEmail: false,
    admin: member.admin,
    owner: member.owner,
    inactive: member.inactive,
    joined: member.joined,
    role: roleOf(member),
    groups: groups.map((g) => ({ groupId: g.group_id, name: g.name })),
    workspaces: memberships.map((m) => ({
      admin: m.admin,
      inactive: !m.active,
      name: m.workspace_name,
      role: m.role,
      workspaceId: m.workspace_id,
      workspaceName: m.workspace_name,
      workspaceUserId: m.id,
    })),
    workspaceCount: BigInt(memberships.length),
    createdAt: stamp(createdAt),
    updatedAt: stamp(member.updated_at ?? createdAt),
    rate: member.rate ?? undefined,
    labourCost: int64(member.labour_cost),
    workingHoursInMinutes: int64(member.working_hours_in_minutes),
  });
}

/** Organizations and their users (REST), and the plan operators set (internal). */
export function organizationHandlers({ storage, clock, box, log }: AccountsKit) {
  const { db } = storage;

  /** The latest pending invitation of each listed user who has not joined, with its code (sealed: read back). */
  async function invitationsOf(organization: bigint, rows: MemberListRow[]): Promise<Map<bigint, { id: bigint; code: string | undefined }>> {
    const invitees = new Map(rows.filter((r) => !r.member.joined).map((r) => [r.member.id, { userId: r.member.user_id, email: r.profile?.email ?? r.member.email ?? "" }]));
    const pending = await pendingInvitationsOf(db, organization, [...invitees.values()]);
    const out = new Map<bigint, { id: bigint; code: string | undefined }>();
    for (const [memberId, invitee] of invitees) {
      const latest = pending.filter((i) => invitationOf(i, invitee)).at(-1);
      if (latest) out.set(memberId, { id: latest.id, code: openCode(latest.code_sealed) });
    }
    return out;
  }

  function openCode(sealed: string): string | undefined {
    try {
      return box.open(sealed);
    } catch (err) {
      // Sealed with another key (ENCRYPTION_KEY changed): the list is answered without the code.
      log.error({ err }, "an invitation code does not open with the configured ENCRYPTION_KEY");
      return undefined;
    }
  }

  return (router: ConnectRouter) => {
    router.service(OrganizationService, {
      async createOrganization(req, ctx) {
        const userId = requireUser(ctx);
        const user = rowId(userId);
        if (user === undefined) throw noAccess();
        const { name, workspaceName } = newOrganization(req);
        const now = clock.now();
        const { organization, workspaceId } = await storage.change(async (trx, emit) => {
          if ((await workspaceCountForChange(trx, user)) >= MAX_WORKSPACES_PER_USER) throw userWorkspaceLimit(MAX_WORKSPACES_PER_USER);
          const organization = await organizations.insert(trx, { name, owner_id: user, max_workspaces: DEFAULT_MAX_WORKSPACES, pricing_plan_id: PRICING_PLAN.free, created_at: now, updated_at: now });
          const member = await organizationUsers.insert(trx, {
            organization_id: organization.id,
            user_id: user,
            email: null,
            admin: true,
            owner: true,
            inactive: false,
            joined: true,
            role: "admin",
            rate: null,
            rate_last_updated: null,
            labour_cost: null,
            working_hours_in_minutes: null,
            created_at: now,
            updated_at: now,
          });
          const workspaceId = await insertWorkspace(trx, organization.id, workspaceName, now);
          await emit(workspaceEvent("created", { workspace: (await workspaces.get(trx, organization.id, workspaceId))!, admin: true, role: "admin", premium: isPaid(organization) }, userId));
          const membership = await insertMembership(trx, { workspace_id: workspaceId, user_id: user, admin: true, role: "admin", active: true }, workspaceName);
          await defaultWorkspaceIfNone(trx, user, workspaceId);
          await emitMemberships(emit, "created", [membership], member, await userProfile(trx, user), userId, now);
          return { organization, workspaceId };
        });
        return { id: organization.id, name, workspaceId, workspaceName };
      },

      async getOrganization(req, ctx) {
        const scope = organizationScope(ctx);
        return { organization: organizationMessage(scope.organization, scope.member, await userCount(db, scope.organization.id)) };
      },

      async updateOrganization(req, ctx) {
        const scope = organizationScope(ctx);
        const name = renamedOrganization(req.name);
        await changeRow(storage, organizations, { scope: scope.organization.id, id: req.organizationId, missing: noAccess }, (existing, trx) =>
          organizations.update(trx, existing, { name, updated_at: clock.now() }),
        );
        return {};
      },

      async listOrganizationUsers(req, ctx) {
        const scope = organizationScope(ctx);
        const organization = scope.organization.id;
        const query = memberQuery(req);
        if (query.workspaces && (await workspacesAmong(db, organization, query.workspaces)).length !== query.workspaces.length) {
          throw queryValueInvalid("workspaces");
        }
        if (query.groups && (await groupsAmong(db, organization, query.groups)).length !== query.groups.length) {
          throw queryValueInvalid("groups");
        }
        const { rows, total } = await memberPage(db, organization, query);
        const userIds = rows.flatMap((r) => (r.member.user_id === null ? [] : [r.member.user_id]));
        const memberships = await membershipsIn(db, organization, userIds);
        const userGroups = await groupsOfUsers(db, organization, userIds);
        const invited = await invitationsOf(organization, rows);
        const page = pagination(query, total);
        return {
          users: rows.map((r) =>
            organizationUserMessage(
              r.member,
              r.profile,
              memberships.filter((m) => m.user_id === r.member.user_id),
              scope.organization,
              userGroups.filter((g) => g.user_id === r.member.user_id),
              invited.get(r.member.id),
            ),
          ),
          page: BigInt(page.page),
          pageSize: BigInt(page.pageSize),
          pages: BigInt(page.pages),
          records: BigInt(page.records),
          sortOrder: page.sortOrder,
        };
      },

      async patchOrganizationUsers(req, ctx) {
        const scope = organizationScope(ctx);
        const ids = removalIds(req.delete);
        const now = clock.now();
        await changeRow(storage, organizations, { scope: scope.organization.id, id: req.organizationId, missing: noAccess }, async (organization, trx, emit) => {
          const found = await membersForChange(trx, organization.id, ids.map(rowId).filter((id) => id !== undefined));
          checkRemovable(ids, found);
          for (const member of found) {
            const profile = member.user_id === null ? undefined : await userProfile(trx, member.user_id);
            // Removed, the person can no longer join through an invitation still open.
            await revokePending(trx, organization.id, { userId: member.user_id, email: profile?.email ?? member.email ?? "" }, now);
            const removed = await removeMember(trx, member);
            if (profile) await emitMemberships(emit, "deleted", removed, member, profile, scope.userId, now);
          }
        });
        return {};
      },

      async leaveOrganization(req, ctx) {
        const userId = requireUser(ctx);
        const organizationId = rowId(req.organizationId);
        const user = rowId(userId);
        if (organizationId === undefined || user === undefined) throw notOrganizationMember();
        const now = clock.now();
        await changeRow(storage, organizations, { scope: organizationId, id: req.organizationId, missing: notOrganizationMember }, async (organization, trx, emit) => {
          const member = await memberForChange(trx, organization.id, user);
          if (!member) throw notOrganizationMember();
          const others = (await userCount(trx, organization.id)) - 1;
          if (member.owner && others > 0) throw ownerCannotLeave();
          const profile = await userProfile(trx, user);
          await emitMemberships(emit, "deleted", await removeMember(trx, member), member, profile, userId, now);
          // The last user gone, the organization goes with its workspaces.
          if (others === 0) for (const workspace of await deleteOrganization(trx, organization)) await emit(workspaceEvent("deleted", { workspace, admin: true, role: "admin", premium: isPaid(organization) }, userId));
        });
        return {};
      },

      async updateOrganizationUser(req, ctx) {
        const scope = organizationScope(ctx);
        const input = organizationUserInput(req);
        const now = clock.now();
        await changeRow(storage, organizations, { scope: scope.organization.id, id: req.organizationId, missing: noAccess }, async (organization, trx, emit) => {
          const target = await organizationUsers.getForChange(trx, organization.id, req.organizationUserId);
          if (!target) throw organizationUserNotFound();
          const paid = isPaid(organization);
          const changes = organizationUserChanges(input, target, paid, now);
          if (Object.keys(changes).length === 0) return;
          if (target.inactive && changes.inactive === false) checkSeatFree(paid, await activeSeats(trx, organization.id));
          const updated = await organizationUsers.update(trx, target, { ...changes, updated_at: now });
          // A pending invitee has no account: no workspace memberships, nothing to tell.
          if (target.user_id === null) return;
          let memberships = await membershipsIn(trx, organization.id, [target.user_id]);
          if ("inactive" in changes) memberships = await setMembershipsActive(trx, memberships, mayAct(updated));
          await emitMemberships(emit, "updated", memberships, updated, await userProfile(trx, target.user_id), scope.userId, now);
        });
        return {};
      },

      async listMyOrganizations(_req, ctx) {
        const user = rowId(requireUser(ctx));
        const rows = user === undefined ? [] : await organizationsOf(db, user);
        return { organizations: rows.map((r) => organizationMessage(r.organization, r.member, r.users)) };
      },
    });

    router.service(OrganizationAdminService, {
      async setOrganizationPlan(req) {
        const missing = () => organizationNotFound(req.organizationId);
        const id = rowId(req.organizationId);
        if (id === undefined) throw missing();
        const pricingPlanId = pricingPlan(req.paid);
        await changeRow(storage, organizations, { scope: id, id: req.organizationId, missing }, (existing, trx) =>
          organizations.update(trx, existing, { pricing_plan_id: pricingPlanId, updated_at: clock.now() }),
        );
        return { pricingPlanId: BigInt(pricingPlanId) };
      },
    });
  };
}
