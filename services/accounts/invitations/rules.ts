import type { CreateInvitationsRequest } from "../../../gen/accounts/v1/invitations_pb.js";
import { emailsMissing, invitedEmailInvalid, invitedRoleInvalid, invitedWorkspaceInvalid, invitedWorkspacesMissing, missingEmail } from "../errors.js";
import { rowId } from "../../../lib/ids.js";
import { isValidEmail } from "../users/rules.js";
import { ORGANIZATION_ROLES } from "../organizations/rules.js";
import type { InvitedWorkspace } from "./store.js";

/** Invitations an organization may send within a day, by plan (the specification leaves the window open). */
export const INVITATION_LIMIT = { free: 20, paid: 200, windowMs: 24 * 3600_000 } as const;

/** The addresses and workspaces of POST /organizations/{id}/invitations, with the reference's messages. */
export function invitationInput(req: CreateInvitationsRequest): { emails: string[]; workspaces: InvitedWorkspace[] } {
  if (req.emails.length === 0) throw emailsMissing();
  if (req.workspaces.length === 0) throw invitedWorkspacesMissing();
  const emails: string[] = [];
  for (const raw of req.emails) {
    const email = raw.trim().toLowerCase();
    if (!email) throw missingEmail();
    if (!isValidEmail(email)) throw invitedEmailInvalid(raw.trim());
    if (!emails.includes(email)) emails.push(email);
  }
  const workspaces: InvitedWorkspace[] = [];
  for (const w of req.workspaces) {
    const id = rowId(w.workspaceId);
    if (id === undefined) throw invitedWorkspaceInvalid();
    const role = w.role.trim() || (w.admin ? "admin" : "user");
    if (!(ORGANIZATION_ROLES as readonly string[]).includes(role)) throw invitedRoleInvalid(ORGANIZATION_ROLES);
    if (!workspaces.some((x) => x.workspace_id === id)) workspaces.push({ workspace_id: id, admin: w.admin || role === "admin", role });
  }
  return { emails, workspaces };
}

/** The invitation's page on PUBLIC_URL, where the invited person signs in or up and accepts or declines. */
export function inviteUrl(publicUrl: string, code: string): string {
  return `${publicUrl}/invitations/${code}`;
}
