import type { ConnectRouter } from "@connectrpc/connect";
import { ConnectError } from "@connectrpc/connect";
import { ImportService, type ImportFile } from "../../../gen/tracking/v1/imports_pb.js";
import type { Knex } from "../../../lib/db.js";
import type { WorkspaceScope } from "../../../lib/workspace-scope.js";
import type { TrackingKit } from "../kit.js";
import { trackingScope } from "../scope.js";
import { importNoFiles, importNotFound, importNotUploading, importTimeZoneInvalid, importTooLarge } from "../errors.js";
import { isKnownZone } from "./rules.js";
import { contentJson } from "./sources.js";
import { addPart, deleteParts, emptyCounts, importJobs, partsOf, type ImportJobRow } from "./store.js";
import { importMessage } from "./view.js";

/** The most bytes an import's files may hold together, as uploaded. */
export const MAX_IMPORT_BYTES = 512 * 1024 * 1024;

/**
 * Imports: admins upload files (a file in parts when it is larger than one request's body); the
 * last part closes the upload, which checks every file whole before anything is written (a fault
 * anywhere answers 400 naming the file, line or entry, and the job fails). A dry run then goes
 * through the files at once and answers what it would do; otherwise the job is queued for the
 * import worker (`worker.ts`), and GetImport follows it.
 */
export function importHandlers({ storage, clock, identity, imports }: TrackingKit) {
  const { db } = storage;

  /** The zone of the CSV files' wall-clock times: the one given, else the importing admin's own. */
  async function zoneOf(given: string, userId: bigint): Promise<string> {
    if (given) {
      if (!isKnownZone(given)) throw importTimeZoneInvalid();
      return given;
    }
    const { timezone } = await identity.getUserProfile({ userId });
    return timezone && isKnownZone(timezone) ? timezone : "UTC";
  }

  /** Adds the files (or parts of files already there, by name) to a job that is uploading. */
  async function addFiles(trx: Knex.Transaction, job: ImportJobRow, files: ImportFile[]): Promise<ImportJobRow> {
    if (files.length === 0) return job;
    const parts = await partsOf(trx, job.id);
    const bytes = job.uploaded_bytes + files.reduce((n, f) => n + f.content.length, 0);
    if (bytes > MAX_IMPORT_BYTES) throw importTooLarge(MAX_IMPORT_BYTES);
    const names = [...job.files];
    for (const file of files) {
      let index = names.indexOf(file.name);
      if (index < 0) index = names.push(file.name) - 1;
      const part = parts.get(index) ?? 0;
      await addPart(trx, job.id, index, part, file.content);
      parts.set(index, part + 1);
    }
    return importJobs.update(trx, job, { files: names, uploaded_bytes: bytes, at: clock.now() });
  }

  /** The upload is complete: check every file, then run a dry run at once or queue the job. */
  async function close(job: ImportJobRow, scope: WorkspaceScope): Promise<ImportJobRow> {
    const fail = async (err: ConnectError) => {
      await storage.change((trx) => importJobs.update(trx, job, { state: "failed", error: err.rawMessage, at: clock.now(), finished_at: clock.now() }));
      await deleteParts(db, job.id);
      return err;
    };
    if (job.files.length === 0) throw await fail(importNoFiles());
    let content;
    try {
      content = await imports.check(job);
    } catch (err) {
      throw err instanceof ConnectError ? await fail(err) : err;
    }
    const checked = { ...job, entries_total: content.entries };
    if (job.dry_run) return imports.dryRun(checked, scope, content);
    const queued = await storage.change((trx) => importJobs.update(trx, job, { state: "queued", entries_total: content.entries, content: contentJson(content), at: clock.now() }));
    imports.kick();
    return queued;
  }

  return (router: ConnectRouter) =>
    router.service(ImportService, {
      async createImport(req, ctx) {
        const scope = trackingScope(ctx);
        if (req.files.length === 0 && !req.moreFiles) throw importNoFiles();
        const timeZone = await zoneOf(req.timeZone, scope.userId);
        const now = clock.now();
        const job = await storage.change(async (trx) => {
          const row = await importJobs.insert(trx, {
            workspace_id: scope.workspaceId, user_id: scope.userId, state: "uploading", dry_run: req.dryRun, time_zone: timeZone,
            entries_total: 0, entries_done: 0, uploaded_bytes: 0, files: [], counts: emptyCounts(), invited: [], content: null, error: null, created_at: now, at: now, finished_at: null,
          });
          return addFiles(trx, row, req.files);
        });
        return { import: importMessage(req.moreFiles ? job : await close(job, scope)) };
      },

      async addImportFile(req, ctx) {
        const scope = trackingScope(ctx);
        const job = await storage.change(async (trx) => {
          const row = await importJobs.getForChange(trx, scope.workspaceId, req.importId);
          if (!row) throw importNotFound();
          if (row.state !== "uploading") throw importNotUploading();
          return addFiles(trx, row, req.file ? [req.file] : []);
        });
        return { import: importMessage(req.moreFiles ? job : await close(job, scope)) };
      },

      async getImport(req, ctx) {
        const scope = trackingScope(ctx);
        const row = await importJobs.get(db, scope.workspaceId, req.importId);
        if (!row) throw importNotFound();
        return { import: importMessage(row) };
      },
    });
}
