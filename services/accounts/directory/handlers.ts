import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import { UserSchema, type User } from "../../../gen/accounts/v1/accounts_pb.js";
import { DirectoryService, DetailedOrganizationUserSchema, type DetailedOrganizationUser } from "../../../gen/accounts/v1/lookups_pb.js";
import { ListOrganizationUsersRequestSchema } from "../../../gen/accounts/v1/organizations_pb.js";
import { noAccess } from "../../../lib/errors.js";
import { requireUser } from "../../../lib/identity.js";
import { rowId } from "../../../lib/ids.js";
import type { AccountsKit } from "../kit.js";
import { organizationScope } from "../access.js";
import { invitationNotFound, organizationOwnerNotFound, queryValueInvalid, userCannotBeFound } from "../errors.js";
import { isPaid } from "../organizations/plan.js";
import { memberQuery, pagination, roleOf } from "../organizations/rules.js";
import { groupsAmong, groupsOfUsers, memberPage, membershipsIn, organizationsOf, workspacesAmong, type MemberListRow, type OrganizationRow } from "../organizations/store.js";
import { invitationOf, pendingInvitationsOf } from "../invitations/store.js";
import { hashToken } from "../users/credentials.js";
import { roleId, searchTerm, workingHours } from "./rules.js";
import { groupWorkspaces, invitationParties, ownerOf, pendingInvitation, searchUsers, userVisibleTo, workspaceCurrencies, workspaceNames, type VisibleUser } from "./store.js";

const stamp = (d: Date | null | undefined) => (d ? timestampFromDate(d) : undefined);

/** A user as the directory answers it: never a token; the default workspace only to its owner (it may be of an organization the caller is not in). */
function userMessage(u: VisibleUser, caller: bigint): User {
  return create(UserSchema, {
    id: u.id,
    email: u.email,
    fullname: u.fullname,
    timezone: u.timezone,
    defaultWorkspaceId: u.id === caller ? (u.default_workspace_id ?? 0n) : 0n,
    beginningOfWeek: u.beginning_of_week,
    imageUrl: "",
    createdAt: timestampFromDate(u.created_at),
    updatedAt: timestampFromDate(u.updated_at),
    at: timestampFromDate(u.updated_at),
    countryId: u.country_id === null ? undefined : u.country_id,
    hasPassword: true,
    openidEnabled: false,
  });
}

function callerOf(ctx: HandlerContext): bigint {
  const user = rowId(requireUser(ctx));
  if (user === undefined) throw noAccess();
  return user;
}

/** People and organizations the caller may see, an organization's owner and detailed users, an invitation by its code. */
export function directoryHandlers({ storage, publicUrl }: AccountsKit) {
  const { db } = storage;

  /** The detailed users of one page: each with its memberships of the organization's workspaces and their paid details. */
  async function detailedUsers(organizationRow: OrganizationRow, rows: MemberListRow[]): Promise<DetailedOrganizationUser[]> {
    const organization = organizationRow.id;
    const userIds = rows.flatMap((r) => (r.member.user_id === null ? [] : [r.member.user_id]));
    const memberships = await membershipsIn(db, organization, userIds);
    const userGroups = await groupsOfUsers(db, organization, userIds);
    const assigned = await groupWorkspaces(db, [...new Set(userGroups.map((g) => g.group_id))]);
    const currencies = await workspaceCurrencies(db, [...new Set(memberships.map((m) => m.workspace_id))]);
    const invitees = rows.filter((r) => !r.member.joined).map((r) => ({ userId: r.member.user_id, email: r.profile?.email ?? r.member.email ?? "" }));
    const pending = await pendingInvitationsOf(db, organization, invitees);
    return rows.map(({ member, profile }) => {
      const own = memberships.filter((m) => m.user_id === member.user_id);
      const groups = userGroups.filter((g) => g.user_id === member.user_id);
      const invitation = member.joined ? undefined : pending.filter((i) => invitationOf(i, { userId: member.user_id, email: profile?.email ?? member.email ?? "" })).at(-1);
      const createdAt = member.created_at ?? organizationRow.created_at;
      const role = roleOf(member);
      return create(DetailedOrganizationUserSchema, {
        admin: member.admin,
        avatarUrl: "",
        canEditEmail: false,
        createdAt: stamp(createdAt),
        email: profile?.email ?? member.email ?? "",
        groups: groups.map((g) => ({ groupId: g.group_id, name: g.name })),
        id: member.id,
        inactive: member.inactive,
        invitationId: invitation ? invitation.id : undefined,
        joined: member.joined,
        name: profile?.fullname,
        organizationId: member.organization_id,
        owner: member.owner,
        roleId: BigInt(roleId(role)),
        updatedAt: stamp(member.updated_at ?? createdAt),
        userId: member.user_id === null ? undefined : member.user_id,
        workspaceCount: BigInt(own.length),
        workspaces: own.map((m) => {
          // Organization owners and admins administer every workspace they are a member of.
          const admin = m.admin || member.owner || member.admin;
          const workspaceRole = admin ? "admin" : m.role;
          return {
            admin,
            cost: member.labour_cost ?? undefined,
            defaultCurrency: currencies.get(m.workspace_id) ?? "USD",
            groups: groups.filter((g) => assigned.some((a) => a.group_id === g.group_id && a.workspace_id === m.workspace_id)).map((g) => ({ groupId: g.group_id, name: g.name })),
            inactive: !m.active,
            rate: member.rate ?? undefined,
            role: workspaceRole,
            roleId: BigInt(roleId(workspaceRole)),
            viewEditBillableRates: admin,
            viewEditLaborCosts: admin,
            workingHours: workingHours(member.working_hours_in_minutes),
            workspaceId: m.workspace_id,
            workspaceName: m.workspace_name,
            workspaceUserId: m.id,
          };
        }),
      });
    });
  }

  return (router: ConnectRouter) =>
    router.service(DirectoryService, {
      async searchUsers(req, ctx) {
        const term = searchTerm(req);
        const caller = callerOf(ctx);
        return { users: (await searchUsers(db, caller, term)).map((u) => userMessage(u, caller)) };
      },

      async getUser(req, ctx) {
        const caller = callerOf(ctx);
        const id = rowId(req.userId);
        const user = id === undefined ? undefined : await userVisibleTo(db, caller, id);
        if (!user) throw userCannotBeFound();
        return { user: userMessage(user, caller) };
      },

      async searchOrganizations(req, ctx) {
        const term = searchTerm(req).toLowerCase();
        const found = (await organizationsOf(db, callerOf(ctx))).filter((r) => r.organization.name.toLowerCase().includes(term));
        return {
          organizations: found.map(({ organization, users }) => ({
            organization: {
              at: stamp(organization.updated_at),
              createdAt: stamp(organization.created_at),
              id: organization.id,
              isMultiWorkspaceEnabled: isPaid(organization),
              isUnified: false,
              maxWorkspaces: BigInt(organization.max_workspaces),
              name: organization.name,
              pricingPlanId: BigInt(organization.pricing_plan_id),
              userCount: BigInt(users),
            },
          })),
        };
      },

      async getOrganizationOwner(_req, ctx) {
        const scope = organizationScope(ctx);
        const owner = await ownerOf(db, scope.organization.id);
        if (!owner) throw organizationOwnerNotFound();
        const createdAt = owner.created_at ?? scope.organization.created_at;
        return {
          owner: {
            avatarUrl: "",
            email: owner.email,
            id: owner.organization_user_id,
            name: owner.fullname,
            organizationId: owner.organization_id,
            organizationUserCreatedAt: stamp(createdAt),
            organizationUserId: owner.organization_user_id,
            organizationUserUpdatedAt: stamp(owner.updated_at ?? createdAt),
            userId: owner.user_id,
          },
        };
      },

      async listOrganizationUsersDetailed(req, ctx) {
        const scope = organizationScope(ctx);
        const organization = scope.organization.id;
        const { filter, activeStatus, onlyAdmins, groups, workspaces, page, perPage, sortDir } = req;
        const query = memberQuery(create(ListOrganizationUsersRequestSchema, { filter, activeStatus, onlyAdmins, groups, workspaces, page, perPage, sortDir }));
        if (query.workspaces && (await workspacesAmong(db, organization, query.workspaces)).length !== query.workspaces.length) throw queryValueInvalid("workspaces");
        if (query.groups && (await groupsAmong(db, organization, query.groups)).length !== query.groups.length) throw queryValueInvalid("groups");
        const { rows, total } = await memberPage(db, organization, query);
        const p = pagination(query, total);
        return {
          users: await detailedUsers(scope.organization, rows),
          page: BigInt(p.page),
          pageSize: BigInt(p.pageSize),
          pages: BigInt(p.pages),
          records: BigInt(p.records),
          sortOrder: p.sortOrder,
        };
      },

      async getInvitation(req) {
        const code = req.invitationCode.trim();
        const invitation = code === "" ? undefined : await pendingInvitation(db, hashToken(code));
        if (!invitation) throw invitationNotFound();
        const parties = await invitationParties(db, invitation);
        const names = await workspaceNames(db, invitation.organization_id, invitation.workspaces.map((w) => w.workspace_id));
        return {
          invitation: {
            accountsSignupUrl: `${publicUrl}/api/signup`,
            code,
            email: invitation.email,
            organizationId: invitation.organization_id,
            organizationName: parties.organizationName,
            senderEmail: parties.senderEmail,
            senderName: parties.senderName,
            sso: false,
            workspaces: invitation.workspaces.filter((w) => names.has(w.workspace_id)).map((w) => ({ workspaceId: w.workspace_id, name: names.get(w.workspace_id)! })),
          },
        };
      },
    });
}
