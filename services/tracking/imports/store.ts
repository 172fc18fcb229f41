import type { Knex } from "../../../lib/db.js";
import { idBinding, readId } from "../../../lib/ids.js";
import { ScopedTable } from "../../../lib/scoped-table.js";
import type { ImportContentJson, UploadedFile } from "./sources.js";

/** The kinds of objects an import counts. */
export const COUNTED = ["clients", "projects", "tasks", "tags", "project_users", "users", "time_entries"] as const;
export type Counted = (typeof COUNTED)[number];
export type Tally = Record<Counted, number>;
export interface ImportCounts {
  created: Tally;
  matched: Tally;
  skipped: Tally;
}

export const emptyTally = (): Tally => ({ clients: 0, projects: 0, tasks: 0, tags: 0, project_users: 0, users: 0, time_entries: 0 });
export const emptyCounts = (): ImportCounts => ({ created: emptyTally(), matched: emptyTally(), skipped: emptyTally() });

/** uploading: files still coming; queued: checked, waiting for the worker; running; finished; failed (refused, or stopped by a fault). */
export type ImportState = "uploading" | "queued" | "running" | "finished" | "failed";

export interface ImportJobRow {
  id: bigint;
  workspace_id: bigint;
  user_id: bigint;
  state: ImportState;
  dry_run: boolean;
  time_zone: string;
  entries_total: number;
  /** Entries gone through, in the files' order: a resumed job skips them. */
  entries_done: number;
  uploaded_bytes: number;
  files: string[];
  counts: ImportCounts;
  invited: string[];
  /** What the files name, as the check of the upload read it (null until then). */
  content: ImportContentJson | null;
  error: string | null;
  created_at: Date;
  at: Date;
  finished_at: Date | null;
}

export const importJobs = new ScopedTable<ImportJobRow>({
  table: "import_jobs",
  scope: "workspace_id",
  columns: {
    id: "id",
    workspace_id: "id",
    user_id: "id",
    state: "string",
    dry_run: "boolean",
    time_zone: "string",
    entries_total: "integer",
    entries_done: "integer",
    uploaded_bytes: "integer",
    files: "json",
    counts: "json",
    invited: "json",
    content: "json?",
    error: "string?",
    created_at: "date",
    at: "date",
    finished_at: "date?",
  },
  order: ["id"],
});

/** The oldest job that waits for the worker or was cut short (a crash mid-import leaves it running), any workspace. */
export async function nextRunnableJob(db: Knex): Promise<ImportJobRow | undefined> {
  const raw = await db(importJobs.table).whereIn("state", ["queued", "running"]).orderBy("id").first();
  return raw ? importJobs.read(raw) : undefined;
}

const PARTS = "import_file_parts";

/** Stores one part of a file (parts of a file are read back in the order of `part`). */
export async function addPart(trx: Knex.Transaction, importId: bigint, file: number, part: number, data: Uint8Array): Promise<void> {
  await trx(PARTS).insert({ import_id: importId, file_index: file, part_index: part, data: Buffer.from(data) });
}

/** How many parts each file of the job has so far. */
export async function partsOf(db: Knex, importId: bigint): Promise<Map<number, number>> {
  const rows: { file_index: number; n: number | string }[] = await db(PARTS).where("import_id", idBinding(importId)).groupBy("file_index").select("file_index").count({ n: "*" });
  return new Map(rows.map((r) => [Number(r.file_index), Number(r.n)]));
}

export async function deleteParts(db: Knex, importId: bigint): Promise<void> {
  await db(PARTS).where("import_id", idBinding(importId)).delete();
}

/** The job's files, read back part by part from the database (one part in memory at a time while streaming). */
export function uploadedFiles(db: Knex, job: Pick<ImportJobRow, "id" | "files">): UploadedFile[] {
  return job.files.map((name, file) => {
    const part = async (index: number): Promise<Buffer | undefined> => {
      const row = await db(PARTS).where({ import_id: job.id, file_index: file, part_index: index }).first("data");
      return row ? Buffer.from(row.data as Uint8Array) : undefined;
    };
    async function* chunks(): AsyncGenerator<Buffer> {
      for (let i = 0; ; i++) {
        const data = await part(i);
        if (!data) return;
        yield data;
      }
    }
    return {
      name,
      head: async () => (await part(0))?.subarray(0, 8) ?? Buffer.alloc(0),
      bytes: async () => {
        const all: Buffer[] = [];
        for await (const c of chunks()) all.push(c);
        return Buffer.concat(all);
      },
      chunks,
    };
  });
}

/** Entries of people without an account, owned by the importing admin: the address each stands for. */
export const ORIGINS = "import_entry_origins";

/** The addresses of the workspace's entries starting at `starts` that stand for someone without an account. */
export async function originsAt(db: Knex, workspace: bigint, starts: Date[]): Promise<Map<bigint, string>> {
  const rows: { time_entry_id: unknown; email: string }[] = await db(ORIGINS)
    .join("time_entries", "time_entries.id", `${ORIGINS}.time_entry_id`)
    .where(`${ORIGINS}.workspace_id`, idBinding(workspace))
    .whereIn("time_entries.start", starts)
    .select(`${ORIGINS}.time_entry_id`, `${ORIGINS}.email`);
  return new Map(rows.map((r) => [readId(r.time_entry_id), String(r.email)]));
}

const INVITATIONS = "import_invitations";

/** The addresses among `emails` an import into the workspace has invited already. */
export async function invitedAlready(db: Knex, workspace: bigint, emails: string[]): Promise<Set<string>> {
  if (emails.length === 0) return new Set();
  const rows: { email: string }[] = await db(INVITATIONS).where("workspace_id", idBinding(workspace)).whereIn("email", emails).select("email");
  return new Set(rows.map((r) => String(r.email)));
}

export async function recordInvited(db: Knex, workspace: bigint, emails: string[], now: Date): Promise<void> {
  if (emails.length === 0) return;
  await db(INVITATIONS)
    .insert(emails.map((email) => ({ workspace_id: workspace, email, created_at: now })))
    .onConflict(["workspace_id", "email"])
    .ignore();
}
