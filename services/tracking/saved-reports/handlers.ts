import { toJson, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import { ConnectError, type ConnectRouter } from "@connectrpc/connect";
import { SavedReportService, type SavedReportInput } from "../../../gen/tracking/v1/saved_reports_pb.js";
import type { Knex } from "../../../lib/db.js";
import { caller } from "../../../lib/identity.js";
import { idBinding, rowId } from "../../../lib/ids.js";
import { likePattern } from "../../../lib/scoped-table.js";
import {
  publicReportsAdminsOnly,
  savedReportFailed,
  savedReportNotFound,
  savedReportsMissing,
  savedReportTypeInvalidOnUpdate,
  sharedReportOwnerGone,
  sharedReportTokenInvalid,
} from "../errors.js";
import type { TrackingKit } from "../kit.js";
import { trackingScope, type TrackingScope } from "../scope.js";
import { deleteSchedulesOf, scheduledReports, schedulesOf } from "../scheduled-reports/store.js";
import {
  bulkInputs,
  changedSettings,
  checkMaySave,
  fileOverrides,
  listParameters,
  mayChange,
  maySee,
  newReportToken,
  newSettings,
  reportTokenHash,
  runOverrides,
  type Asker,
  type SavedReportSettings,
} from "./rules.js";
import { runNames, runSavedReport } from "./run.js";
import { runReport, runRows, type ReportRows, type ReportRunner } from "../reports/run.js";
import { fileName, reportTable } from "../reports/tables.js";
import { fileOfTable } from "../reports/formats/index.js";
import { displayMode } from "../reports/rules.js";
import { savedReportByTokenHash, savedReports, type SavedReportRow } from "./store.js";
import { savedReportMessage, sharedReportResponse } from "./view.js";

const asker = (scope: TrackingScope): Asker => ({ userId: scope.userId, admin: scope.admin });

/** The saved reports of a workspace: CRUD in /api/v9, and the runs by token in /reports/api/v3 (JSON, CSV, XLSX, PDF). */
export function savedReportHandlers({ storage, clock, identity, box, memberScope }: TrackingKit) {
  const { db } = storage;

  /** A sealed token in the clear; one the key no longer opens (ENCRYPTION_KEY changed) shows as "" until a PUT regenerates it. */
  const opened = (row: SavedReportRow) => {
    try {
      return box.open(row.token_sealed);
    } catch {
      return "";
    }
  };

  /** The answers of rows, each with its schedules' recipients. */
  async function answers(q: Knex, workspace: bigint, rows: SavedReportRow[], deletedAt?: Date) {
    const schedules = await schedulesOf(q, workspace, rows.map((r) => r.id));
    return rows.map((r) => savedReportMessage(r, opened(r), schedules.get(r.id) ?? [], deletedAt));
  }

  /**
   * A change of one report, read locked: 404 for one the caller does not see, 403 for one they see
   * but may not change (a member and someone else's public report) or would make public.
   */
  async function change(trx: Knex.Transaction, scope: TrackingScope, existing: SavedReportRow, settings: SavedReportSettings): Promise<SavedReportRow> {
    const who = asker(scope);
    if (!mayChange(who, existing)) throw publicReportsAdminsOnly();
    const isPublic = settings.public ?? existing.public;
    checkMaySave(who, isPublic);
    const token = settings.regenerateToken ? newReportToken() : undefined;
    return savedReports.update(trx, existing, {
      name: settings.name,
      params: settings.params,
      public: isPublic,
      fixed_daterange: settings.fixedDaterange ?? existing.fixed_daterange,
      ...(token ? { token_hash: reportTokenHash(token), token_sealed: box.seal(token) } : {}),
      updated_at: clock.now(),
      updated_by: scope.userId,
    });
  }

  /** The rows of `ids` that `reachable` lets the caller at, locked; 404 naming how many were found when any is not. */
  async function lockedRows(trx: Knex.Transaction, scope: TrackingScope, ids: bigint[], reachable: (who: Asker, row: SavedReportRow) => boolean): Promise<Map<bigint, SavedReportRow>> {
    const wanted = [...new Set(ids)];
    const found = new Map<bigint, SavedReportRow>();
    for (const id of wanted) {
      const row = await savedReports.getForChange(trx, scope.workspaceId, id);
      if (row && reachable(asker(scope), row)) found.set(id, row);
    }
    if (found.size < wanted.length) throw savedReportsMissing(found.size, wanted.length);
    return found;
  }

  /**
   * The saved report a token names and the scope it runs in, its owner's: a public one for anyone,
   * a private one for its owner and the workspace's admins when the caller is known (the same
   * 403 as an unknown token otherwise); 403 when the owner is no active member any more.
   */
  async function tokenReport(token: string, callerId: bigint | undefined): Promise<{ row: SavedReportRow; scope: TrackingScope }> {
    const row = await savedReportByTokenHash(db, reportTokenHash(token));
    if (!row) throw sharedReportTokenInvalid();
    if (!row.public) {
      if (callerId === undefined || rowId(callerId) === undefined) throw sharedReportTokenInvalid();
      if (callerId !== row.user_id) {
        const access = await identity.checkWorkspaceAccess({ userId: callerId, workspaceId: row.workspace_id });
        if (!access.allowed || !access.admin) throw sharedReportTokenInvalid();
      }
    }
    const scope = await memberScope(row.user_id, row.workspace_id);
    if (!scope) throw sharedReportOwnerGone();
    return { row, scope };
  }

  /** The token's saved report run by `run`: with its totals (the JSON answer, XLSX, PDF) or without them (CSV). */
  async function runByToken<R extends ReportRows>(token: string, callerId: bigint | undefined, overrides: JsonObject, run: ReportRunner<R>): Promise<{ row: SavedReportRow; run: R }> {
    const { row, scope } = await tokenReport(token, callerId);
    return { row, run: await runSavedReport(db, identity, scope, row, overrides, { now: clock.now() }, run) };
  }

  return (router: ConnectRouter) =>
    router.service(SavedReportService, {
      async listSavedReports(req, ctx) {
        const scope = trackingScope(ctx);
        const page = listParameters(req);
        const q = savedReports.query(db, scope.workspaceId);
        if (!scope.admin) q.andWhere((w) => w.where("public", true).orWhere("user_id", idBinding(scope.userId)));
        if (req.fixedDates !== undefined) q.andWhere("fixed_daterange", req.fixedDates);
        if (req.public !== undefined) q.andWhere("public", req.public);
        if (req.name?.trim()) q.andWhereRaw("LOWER(name) LIKE ? ESCAPE '!'", [likePattern(req.name.trim())]);
        if (req.scheduled !== undefined) {
          const scheduled = scheduledReports.query(db, scope.workspaceId).select("saved_report_id");
          if (req.scheduled) q.whereIn("id", scheduled);
          else q.whereNotIn("id", scheduled);
        }
        const dir = page.descending ? "desc" : "asc";
        if (page.sortField === "name") q.orderByRaw(`LOWER(name) ${dir}`);
        else if (page.sortField === "updated_at") q.orderBy("updated_at", dir);
        q.orderBy("id", dir);
        const rows = ((await q.offset((page.page - 1) * page.perPage).limit(page.perPage)) as Record<string, unknown>[]).map((raw) => savedReports.read(raw));
        return { savedReports: await answers(db, scope.workspaceId, rows) };
      },

      async createSavedReport(req, ctx) {
        const scope = trackingScope(ctx);
        const settings = newSettings(req.report);
        checkMaySave(asker(scope), settings.public);
        const token = newReportToken();
        const now = clock.now();
        const row = await storage.change((trx) =>
          savedReports.insert(trx, {
            workspace_id: scope.workspaceId,
            user_id: scope.userId,
            name: settings.name,
            params: settings.params,
            public: settings.public,
            fixed_daterange: settings.fixedDaterange,
            token_hash: reportTokenHash(token),
            token_sealed: box.seal(token),
            created_at: now,
            updated_at: now,
            updated_by: scope.userId,
          }),
        );
        return { savedReport: savedReportMessage(row, token, []) };
      },

      async updateSavedReports(req, ctx) {
        const scope = trackingScope(ctx);
        const changes = bulkInputs(req.reports ? (toJson(ValueSchema, req.reports) as JsonValue) : undefined).map((input: SavedReportInput) => {
          try {
            return { id: input.id, settings: changedSettings(input, savedReportTypeInvalidOnUpdate) };
          } catch (err) {
            throw err instanceof ConnectError ? savedReportFailed(input.id, err.rawMessage) : err;
          }
        });
        const rows = await storage.change(async (trx) => {
          const found = await lockedRows(trx, scope, changes.map((c) => c.id), maySee);
          const out: SavedReportRow[] = [];
          for (const { id, settings } of changes) {
            const changed = await change(trx, scope, found.get(id)!, settings);
            found.set(id, changed);
            out.push(changed);
          }
          return out;
        });
        return { savedReports: await answers(db, scope.workspaceId, rows) };
      },

      async bulkDeleteSavedReports(req, ctx) {
        const scope = trackingScope(ctx);
        const now = clock.now();
        const deleted = await storage.change(async (trx) => {
          const rows = [...(await lockedRows(trx, scope, req.ids, mayChange)).values()];
          const answered = await answers(trx, scope.workspaceId, rows, now);
          for (const row of rows) {
            await deleteSchedulesOf(trx, scope.workspaceId, row.id);
            await savedReports.delete(trx, row);
          }
          return answered;
        });
        return { savedReports: deleted };
      },

      async getSavedReport(req, ctx) {
        const scope = trackingScope(ctx);
        const row = await savedReports.get(db, scope.workspaceId, req.reportId);
        if (!row || !maySee(asker(scope), row)) throw savedReportNotFound(req.reportId);
        return { savedReport: (await answers(db, scope.workspaceId, [row]))[0] };
      },

      async updateSavedReport(req, ctx) {
        const scope = trackingScope(ctx);
        const settings = changedSettings(req.report, savedReportTypeInvalidOnUpdate);
        const row = await storage.change(async (trx) => {
          const existing = await savedReports.getForChange(trx, scope.workspaceId, req.reportId);
          if (!existing || !maySee(asker(scope), existing)) throw savedReportNotFound(req.reportId);
          return change(trx, scope, existing, settings);
        });
        return { savedReport: (await answers(db, scope.workspaceId, [row]))[0] };
      },

      async deleteSavedReport(req, ctx) {
        const scope = trackingScope(ctx);
        const now = clock.now();
        const answer = await storage.change(async (trx) => {
          const existing = await savedReports.getForChange(trx, scope.workspaceId, req.reportId);
          if (!existing || !mayChange(asker(scope), existing)) throw savedReportNotFound(req.reportId);
          const [answered] = await answers(trx, scope.workspaceId, [existing], now);
          await deleteSchedulesOf(trx, scope.workspaceId, existing.id);
          await savedReports.delete(trx, existing);
          return answered;
        });
        return { savedReport: answer };
      },

      async runSharedReport(req, ctx) {
        const overrides = runOverrides(req);
        const { row, run } = await runByToken(req.reportToken, caller(ctx).userId, overrides, runReport);
        return sharedReportResponse(run, row, overrides, await runNames(db, run));
      },

      async *runSharedReportCsv(req, ctx) {
        const { row, run } = await runByToken(req.reportToken, caller(ctx).userId, fileOverrides(req), runRows);
        yield* fileOfTable("csv", reportTable(db, run, row.name), fileName(run, "csv"));
      },

      async *runSharedReportXlsx(req, ctx) {
        const { row, run } = await runByToken(req.reportToken, caller(ctx).userId, fileOverrides(req), runReport);
        yield* fileOfTable("xlsx", reportTable(db, run, row.name), fileName(run, "xlsx"));
      },

      async *runSharedReportPdf(req, ctx) {
        const mode = displayMode(req.displayMode);
        const { row, run } = await runByToken(req.reportToken, caller(ctx).userId, fileOverrides(req), runReport);
        yield* fileOfTable("pdf", reportTable(db, run, row.name, mode), fileName(run, "pdf"));
      },
    });
}
