import { ScopedTable } from "../../../lib/scoped-table.js";

export interface TimeEntryNoteRow {
  id: bigint;
  /** The entry's owner (the only one who reads and writes its notes). */
  user_id: bigint;
  time_entry_id: bigint;
  notes: string;
  at: Date;
}

/** A user's notes, one row per time entry that has some. */
export const timeEntryNotes = new ScopedTable<TimeEntryNoteRow>({
  table: "time_entry_notes",
  scope: "user_id",
  columns: { id: "id", user_id: "id", time_entry_id: "id", notes: "string", at: "date" },
  order: ["time_entry_id"],
});
