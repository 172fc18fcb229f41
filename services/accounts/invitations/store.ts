import { idBinding, readId } from "../../../lib/ids.js";
import type { Knex } from "../../../lib/db.js";
import { ScopedTable } from "../../../lib/scoped-table.js";

export type InvitationState = "pending" | "joined" | "deleted";

/** A workspace the invitation puts its recipient into. */
export interface InvitedWorkspace {
  workspace_id: bigint;
  admin: boolean;
  role: string;
}

export interface InvitationRow {
  id: bigint;
  organization_id: bigint;
  code_hash: string;
  /** The code sealed with ENCRYPTION_KEY, so a resend mails the same link. */
  code_sealed: string;
  email: string;
  /** The invited account; null while the address had none. */
  recipient_id: bigint | null;
  sender_id: bigint;
  workspaces: InvitedWorkspace[];
  state: InvitationState;
  created_at: Date;
  updated_at: Date;
}

/** An organization's invitations. */
export const invitations = new ScopedTable<InvitationRow>({
  table: "invitations",
  scope: "organization_id",
  columns: {
    id: "id",
    organization_id: "id",
    code_hash: "string",
    code_sealed: "string",
    email: "string",
    recipient_id: "id?",
    sender_id: "id",
    workspaces: "json",
    state: "string",
    created_at: "date",
    updated_at: "date",
  },
  // The workspaces' ids are JSON numbers in the column (ScopedTable writes them back so).
  json: { workspaces: (parsed) => (parsed as Record<string, unknown>[]).map((w) => ({ ...w, workspace_id: readId(w.workspace_id) }) as InvitedWorkspace) },
  order: ["id"],
});

/** The invitation of that code hash, whichever organization it is of, locked for its change. */
export async function invitationByCodeForChange(trx: Knex.Transaction, codeHash: string): Promise<InvitationRow | undefined> {
  const raw = await trx(invitations.table).where({ code_hash: codeHash }).first().forUpdate();
  return raw ? invitations.read(raw) : undefined;
}

/** Invitations the organization sent since `since` (the sending limit counts them). */
export async function sentSince(trx: Knex.Transaction, organization: bigint, since: Date): Promise<number> {
  const [{ n }] = await invitations.query(trx, organization).andWhere("created_at", ">", since).count({ n: "*" });
  return Number(n);
}

/** Someone invited: an account, or an address without one (its invitations name no recipient). */
export interface Invitee {
  userId: bigint | null;
  email: string;
}

/** Whether an invitation is one of the invitee's: sent to its account, or to its address before it had one. */
export const invitationOf = (invitation: Pick<InvitationRow, "recipient_id" | "email">, invitee: Invitee) =>
  invitation.recipient_id === null ? invitation.email === invitee.email : invitation.recipient_id === invitee.userId;

function ofInvitees(q: Knex.QueryBuilder, invitees: Invitee[]): Knex.QueryBuilder {
  const userIds = invitees.flatMap((i) => (i.userId === null ? [] : [i.userId]));
  const emails = invitees.map((i) => i.email);
  return q.andWhere((w) => w.whereIn("recipient_id", userIds.map(idBinding)).orWhere((a) => a.whereNull("recipient_id").whereIn("email", emails)));
}

/** The organization's pending invitations of these invitees, oldest first. */
export async function pendingInvitationsOf(db: Knex, organization: bigint, invitees: Invitee[]): Promise<InvitationRow[]> {
  if (invitees.length === 0) return [];
  const raws: Record<string, unknown>[] = await ofInvitees(invitations.query(db, organization).andWhere({ state: "pending" }), invitees).orderBy("id");
  return raws.map((raw) => invitations.read(raw));
}

/** Ends the invitee's pending invitations into the organization (removed, or declined): none can be accepted any more. */
export async function revokePending(trx: Knex.Transaction, organization: bigint, invitee: Invitee, now: Date): Promise<void> {
  await ofInvitees(invitations.query(trx, organization).andWhere({ state: "pending" }), [invitee]).update({ state: "deleted", updated_at: now });
}

/** The account of an address, if it has one (closed accounts have none). */
export async function accountOf(db: Knex, email: string): Promise<{ id: bigint; fullname: string } | undefined> {
  const row = await db("users").where({ email }).whereNull("closed_at").first("id", "fullname");
  return row ? { id: readId(row.id), fullname: String(row.fullname) } : undefined;
}
