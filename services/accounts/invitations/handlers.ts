import type { ConnectRouter } from "@connectrpc/connect";
import { create } from "@bufbuild/protobuf";
import { InvitationSchema, InvitationService, type Invitation } from "../../../gen/accounts/v1/invitations_pb.js";
import { forbidden } from "../../../lib/errors.js";
import { idBinding, randomToken, readId } from "../../../lib/ids.js";
import { requireUser } from "../../../lib/identity.js";
import type { AccountsKit } from "../kit.js";
import { alreadyMemberNotice, inactiveMemberInvited, invitationCodeInvalid, invitationCodeNotFound, invitationLimitReached, invitationOrganizationMismatch, invitedWorkspaceInvalid } from "../errors.js";
import { hashToken } from "../users/credentials.js";
import type { Knex } from "../../../lib/db.js";
import { organizationScope } from "../access.js";
import { checkSeatFree } from "../organizations/rules.js";
import { isPaid } from "../organizations/plan.js";
import { activeSeats, defaultWorkspaceIfNone, insertMembership, inviteeForChange, memberForChange, membershipsIn, organizationUsers, organizations, userProfile, workspacesAmong, type OrganizationUserRow } from "../organizations/store.js";
import { emitMemberships } from "../workspace-users/view.js";
import { INVITATION_LIMIT, invitationInput, inviteUrl } from "./rules.js";
import { accountOf, invitationByCodeForChange, invitations, revokePending, sentSince, type InvitationRow } from "./store.js";
import { invitationMail, joinedMail } from "./mails.js";

/** A new organization user who is no admin, owner or deactivated, with no paid fields: what an invitation makes. */
function invitedRow(organization: bigint, who: { user_id: bigint; email: null } | { user_id: null; email: string }, joined: boolean, now: Date): Omit<OrganizationUserRow, "id"> {
  return {
    organization_id: organization, ...who, admin: false, owner: false, inactive: false, joined, role: "user",
    rate: null, rate_last_updated: null, labour_cost: null, working_hours_in_minutes: null, created_at: now, updated_at: now,
  };
}

/**
 * The organization user an invited address stands for, locked: its account's row, or the pending
 * invitee's of the address, which becomes the account's once the address has one (`accountId`).
 */
async function invitedForChange(trx: Knex.Transaction, organization: bigint, email: string, accountId: bigint | undefined, now: Date): Promise<OrganizationUserRow | undefined> {
  const member = accountId === undefined ? undefined : await memberForChange(trx, organization, accountId);
  const invitee = await inviteeForChange(trx, organization, email);
  if (!invitee || accountId === undefined) return member ?? invitee;
  if (member) {
    await organizationUsers.delete(trx, invitee);
    return member;
  }
  return organizationUsers.update(trx, invitee, { user_id: accountId, email: null, updated_at: now });
}

/**
 * Invitations: organization admins invite addresses into the organization and some of its
 * workspaces; the mail carries a code that the invited person, signed in with that address,
 * accepts (joins) or rejects. Whoever is invited is an organization user (not joined) and holds a
 * seat from the invitation on: an account, or an address that has none yet (a pending invitee).
 */
export function invitationHandlers({ storage, clock, box, publicUrl }: AccountsKit) {
  const { db } = storage;

  /** The pending invitation of a code, for the signed-in user it was sent to (403 for anyone else). */
  async function invitationForCaller(trx: Parameters<typeof invitationByCodeForChange>[0], code: string, userId: bigint): Promise<{ invitation: InvitationRow; user: { id: bigint; email: string } }> {
    const invitation = await invitationByCodeForChange(trx, hashToken(code));
    if (!invitation || invitation.state !== "pending") throw invitationCodeInvalid();
    const user = await trx("users").where({ id: userId }).first("id", "email");
    if (!user || String(user.email) !== invitation.email) throw forbidden();
    return { invitation, user: { id: readId(user.id), email: String(user.email) } };
  }

  return (router: ConnectRouter) =>
    router.service(InvitationService, {
      async createInvitations(req, ctx) {
        const scope = organizationScope(ctx);
        const input = invitationInput(req);
        const organization = scope.organization;
        const now = clock.now();
        const sender = await userProfile(db, scope.user);
        const data = await storage.change(async (trx, _emit, mail) => {
          // Changes of memberships run one at a time per organization: seats are counted, an address gets one row.
          await organizations.getForChange(trx, organization.id, organization.id);
          const known = await workspacesAmong(trx, organization.id, input.workspaces.map((w) => w.workspace_id));
          if (known.length !== input.workspaces.length) throw invitedWorkspaceInvalid();
          const limit = isPaid(organization) ? INVITATION_LIMIT.paid : INVITATION_LIMIT.free;
          if ((await sentSince(trx, organization.id, new Date(now.getTime() - INVITATION_LIMIT.windowMs))) + input.emails.length > limit) {
            throw invitationLimitReached();
          }
          const answers: Invitation[] = [];
          let seats = await activeSeats(trx, organization.id);
          for (const email of input.emails) {
            const account = await accountOf(trx, email);
            const member = await invitedForChange(trx, organization.id, email, account?.id, now);
            if (member?.inactive) throw inactiveMemberInvited(email);
            // A joined member needs no invitation; one already invited gets a new one (the old stays valid).
            if (member?.joined) continue;
            if (!member) {
              checkSeatFree(isPaid(organization), seats);
              seats++;
              await organizationUsers.insert(trx, invitedRow(organization.id, account ? { user_id: account.id, email: null } : { user_id: null, email }, false, now));
            }
            const code = randomToken(24);
            const row = await invitations.insert(trx, {
              organization_id: organization.id, code_hash: hashToken(code), code_sealed: box.seal(code), email, recipient_id: account?.id ?? null,
              sender_id: scope.user, workspaces: input.workspaces, state: "pending", created_at: now, updated_at: now,
            });
            const url = inviteUrl(publicUrl, code);
            await mail(invitationMail(email, sender.fullname, organization.name, url, publicUrl));
            answers.push(
              create(InvitationSchema, {
                email,
                invitationId: row.id,
                inviteUrl: url,
                organizationId: organization.id,
                recipientId: account?.id ?? 0n,
                senderId: scope.userId,
                workspaces: input.workspaces.map((w) => ({ userId: account?.id ?? 0n, workspaceId: w.workspace_id, workspaceUserId: 0n })),
              }),
            );
          }
          return answers;
        });
        const invited = new Set(data.map((d) => d.email));
        const messages = input.emails.filter((e) => !invited.has(e)).map(alreadyMemberNotice);
        return { data, messages };
      },

      async acceptInvitation(req, ctx) {
        const userId = requireUser(ctx);
        const now = clock.now();
        await storage.change(async (trx, emit, mail) => {
          const { invitation, user } = await invitationForCaller(trx, req.invitationCode, userId);
          const organization = await organizations.getForChange(trx, invitation.organization_id, invitation.organization_id);
          if (!organization) throw invitationCodeInvalid();
          let member = await invitedForChange(trx, organization.id, invitation.email, user.id, now);
          if (member?.inactive) throw forbidden();
          if (!member) {
            // An invitation from before pending invitees had their row.
            member = await organizationUsers.insert(trx, invitedRow(organization.id, { user_id: user.id, email: null }, true, now));
          } else if (!member.joined) {
            member = await organizationUsers.update(trx, member, { joined: true, updated_at: now });
          }
          const existing = new Set((await membershipsIn(trx, organization.id, [user.id])).map((m) => m.workspace_id));
          const stillThere = new Set(await workspacesAmong(trx, organization.id, invitation.workspaces.map((w) => w.workspace_id)));
          const names = new Map<bigint, string>((await trx("workspaces").whereIn("id", [...stillThere].map(idBinding)).select("id", "name")).map((w: { id: unknown; name: string }) => [readId(w.id), String(w.name)]));
          const added = [];
          for (const w of invitation.workspaces) {
            if (!stillThere.has(w.workspace_id) || existing.has(w.workspace_id)) continue;
            added.push(await insertMembership(trx, { workspace_id: w.workspace_id, user_id: user.id, admin: w.admin, role: w.admin ? "admin" : w.role, active: true }, names.get(w.workspace_id) ?? ""));
            await defaultWorkspaceIfNone(trx, user.id, w.workspace_id);
          }
          await invitations.update(trx, invitation, { state: "joined", recipient_id: user.id, updated_at: now });
          const profile = await userProfile(trx, user.id);
          await emitMemberships(emit, "created", added, member, profile, userId, now);
          const sender = await trx("users").where({ id: invitation.sender_id }).whereNull("closed_at").first("email");
          if (sender) await mail(joinedMail(String(sender.email), profile.fullname, organization.name));
        });
        return { status: "OK" };
      },

      async rejectInvitation(req, ctx) {
        const userId = requireUser(ctx);
        const now = clock.now();
        await storage.change(async (trx) => {
          const { invitation, user } = await invitationForCaller(trx, req.invitationCode, userId);
          await organizations.getForChange(trx, invitation.organization_id, invitation.organization_id);
          const member = await invitedForChange(trx, invitation.organization_id, invitation.email, user.id, now);
          if (member && !member.joined) await organizationUsers.delete(trx, member);
          await invitations.update(trx, invitation, { state: "deleted", updated_at: now });
          // Declining the organization declines each of its invitations to this person.
          await revokePending(trx, invitation.organization_id, { userId: user.id, email: invitation.email }, now);
        });
        return { status: "OK" };
      },

      async resendInvitation(req, ctx) {
        const scope = organizationScope(ctx);
        const sender = await userProfile(db, scope.user);
        await storage.change(async (trx, _emit, mail) => {
          // By the id the creation answered, or by the code of the invite URL.
          const found = /^\d{1,15}$/.test(req.invitationCode)
            ? await invitations.query(trx, scope.organization.id).andWhere({ id: BigInt(req.invitationCode) }).first().forUpdate()
            : await trx(invitations.table).where({ code_hash: hashToken(req.invitationCode) }).first().forUpdate();
          if (!found) throw invitationCodeNotFound();
          const invitation = invitations.read(found);
          if (invitation.organization_id !== scope.organization.id) throw invitationOrganizationMismatch();
          if (invitation.state !== "pending") throw invitationCodeNotFound();
          const url = inviteUrl(publicUrl, box.open(invitation.code_sealed));
          await mail(invitationMail(invitation.email, sender.fullname, scope.organization.name, url, publicUrl));
          await invitations.update(trx, invitation, { updated_at: clock.now() });
        });
        return { status: "OK" };
      },
    });
}
