import type { Knex } from "../../../lib/db.js";
import { ScopedTable } from "../../../lib/scoped-table.js";

export type InvitationState = "pending" | "joined" | "deleted";

/** A workspace the invitation puts its recipient into. */
export interface InvitedWorkspace {
  workspace_id: number;
  admin: boolean;
  role: string;
}

export interface InvitationRow {
  id: number;
  organization_id: number;
  code_hash: string;
  /** The code sealed with ENCRYPTION_KEY, so a resend mails the same link. */
  code_sealed: string;
  email: string;
  /** The invited account; null while the address had none. */
  recipient_id: number | null;
  sender_id: number;
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
  order: ["id"],
});

/** The invitation of that code hash, whichever organization it is of, locked for its change. */
export async function invitationByCodeForChange(trx: Knex.Transaction, codeHash: string): Promise<InvitationRow | undefined> {
  const raw = await trx(invitations.table).where({ code_hash: codeHash }).first().forUpdate();
  return raw ? invitations.read(raw) : undefined;
}

/** Invitations the organization sent since `since` (the sending limit counts them). */
export async function sentSince(trx: Knex.Transaction, organization: number, since: Date): Promise<number> {
  const [{ n }] = await invitations.query(trx, organization).andWhere("created_at", ">", since).count({ n: "*" });
  return Number(n);
}

/** Pending invitations of addresses without an account: each holds a seat like an invited user. */
export async function pendingWithoutAccount(trx: Knex.Transaction, organization: number): Promise<number> {
  const [{ n }] = await invitations.query(trx, organization).andWhere({ state: "pending" }).whereNull("recipient_id").count({ n: "*" });
  return Number(n);
}

/** The account of an address, if it has one (closed accounts have none). */
export async function accountOf(db: Knex, email: string): Promise<{ id: number; fullname: string } | undefined> {
  const row = await db("users").where({ email }).whereNull("closed_at").first("id", "fullname");
  return row ? { id: Number(row.id), fullname: String(row.fullname) } : undefined;
}
