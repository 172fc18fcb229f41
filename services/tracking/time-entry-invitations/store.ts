import type { Knex } from "../../../lib/db.js";
import { idBinding } from "../../../lib/ids.js";
import { ScopedTable } from "../../../lib/scoped-table.js";
import type { TimeEntryRow } from "../time-entries/store.js";

export interface InvitationRow {
  id: bigint;
  workspace_id: bigint;
  time_entry_id: bigint;
  shared_by_user_id: bigint;
  /** The invitee. */
  user_id: bigint;
  /** pending, accepted or rejected. */
  status: string;
  created_at: Date;
  at: Date;
}

export const invitations = new ScopedTable<InvitationRow>({
  table: "time_entry_invitations",
  scope: "workspace_id",
  columns: { id: "id", workspace_id: "id", time_entry_id: "id", shared_by_user_id: "id", user_id: "id", status: "string", created_at: "date", at: "date" },
  order: ["id"],
});

/**
 * The invitations the entries make (one per user each is shared with), made on first need: the
 * time entries keep whom they are shared with, this table what each invitee answered.
 */
export async function ensureInvitations(trx: Knex.Transaction, entries: TimeEntryRow[], now: Date): Promise<InvitationRow[]> {
  const out: InvitationRow[] = [];
  for (const entry of entries) {
    if (entry.shared_with_user_ids.length === 0) continue;
    const have = (await invitations.query(trx, entry.workspace_id).where("time_entry_id", idBinding(entry.id))).map((raw: Record<string, unknown>) => invitations.read(raw));
    for (const userId of entry.shared_with_user_ids) {
      const found = have.find((i: InvitationRow) => i.user_id === userId);
      out.push(found ?? (await invitations.insert(trx, {
        workspace_id: entry.workspace_id, time_entry_id: entry.id, shared_by_user_id: entry.user_id, user_id: userId, status: "pending", created_at: now, at: now,
      })));
    }
  }
  return out;
}
