import type { ConnectRouter } from "@connectrpc/connect";
import { TimeEntryNotesService } from "../../../gen/tracking/v1/time_entry_notes_pb.js";
import type { Knex } from "../../../lib/db.js";
import type { ResourceKit } from "../../../lib/resource-kit.js";
import { idBinding, readId, rowId } from "../../../lib/ids.js";
import { trackingUserScope } from "../scope.js";
import { userEntries } from "../time-entries/store.js";
import { resourceNotFound } from "../errors.js";
import { timeEntryNotes } from "./store.js";

/** How many entries the checklist's count check asks for. */
export const CHECKLIST_ENTRIES = 10;

/**
 * The notes of the caller's own live time entries (an entry of someone else, a deleted one or an
 * id no entry has: 404 "Resource can not be found", as the reference answers). An entry without
 * notes answers them empty.
 */
export function timeEntryNoteHandlers({ storage, clock }: ResourceKit) {
  const { db } = storage;

  /** The caller's live entry `id` (as a row id), or 404. */
  async function ownEntry(q: Knex, user: bigint, id: bigint): Promise<bigint> {
    const n = rowId(id);
    const raw = n === undefined ? undefined : await userEntries(q, user).where("id", idBinding(n)).whereNull("server_deleted_at").first("id");
    if (!raw) throw resourceNotFound();
    return n!;
  }

  async function notesOf(user: bigint, ids: bigint[]): Promise<Map<bigint, string>> {
    if (ids.length === 0) return new Map();
    const rows = await timeEntryNotes.query(db, user).whereIn("time_entry_id", ids.map(idBinding)).select("time_entry_id", "notes");
    return new Map(rows.map((r: { time_entry_id: unknown; notes: string }) => [readId(r.time_entry_id), r.notes]));
  }

  return (router: ConnectRouter) =>
    router.service(TimeEntryNotesService, {
      async getTimeEntryNotes(req, ctx) {
        const { userId: user } = trackingUserScope(ctx);
        const id = await ownEntry(db, user, req.timeEntryId);
        return { notes: { id, notes: (await notesOf(user, [id])).get(id) ?? "" } };
      },

      async updateTimeEntryNotes(req, ctx) {
        const { userId: user } = trackingUserScope(ctx);
        const now = clock.now();
        const id = await storage.change(async (trx) => {
          const entry = await ownEntry(trx, user, req.timeEntryId);
          const existing = await timeEntryNotes.query(trx, user).where("time_entry_id", idBinding(entry)).forUpdate().first();
          if (existing) await timeEntryNotes.update(trx, timeEntryNotes.read(existing), { notes: req.notes, at: now });
          else await timeEntryNotes.insert(trx, { user_id: user, time_entry_id: entry, notes: req.notes, at: now });
          return entry;
        }, { againOnDuplicate: { attempts: 3, giveUp: resourceNotFound } });
        return { notes: { id, notes: req.notes } };
      },

      async deleteTimeEntryNotes(req, ctx) {
        const { userId: user } = trackingUserScope(ctx);
        await storage.change(async (trx) => {
          const entry = await ownEntry(trx, user, req.timeEntryId);
          await timeEntryNotes.query(trx, user).where("time_entry_id", idBinding(entry)).delete();
        });
        return {};
      },

      async listTimeEntryNotes(req, ctx) {
        const { userId: user } = trackingUserScope(ctx);
        const wanted = [...new Set(req.timeEntryIds.map(rowId).filter((n): n is bigint => n !== undefined))];
        if (wanted.length === 0) return { notes: [] };
        const own: bigint[] = (await userEntries(db, user).whereIn("id", wanted.map(idBinding)).whereNull("server_deleted_at").orderBy("id").select("id")).map((r: { id: unknown }) => readId(r.id));
        const notes = await notesOf(user, own);
        return { notes: own.map((id) => ({ id, notes: notes.get(id) ?? "" })) };
      },

      async getTimeEntryChecklist(_req, ctx) {
        const { userId: user } = trackingUserScope(ctx);
        const row = await userEntries(db, user).count({ n: "id" }).first();
        const count = Number(row?.n ?? 0);
        return { checklist: [{ timeEntriesCountCheck: count >= CHECKLIST_ENTRIES, timeEntriesCreatedCheck: count > 0 }] };
      },
    });
}
