import { create, type JsonObject } from "@bufbuild/protobuf";
import { compareIds } from "../../../lib/ids.js";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import {
  RunSharedReportResponseSchema,
  SavedReportSchema,
  SharedReportTotalsSchema,
  type RunSharedReportResponse,
  type SavedReport,
} from "../../../gen/tracking/v1/saved_reports_pb.js";
import { detailedResponse, summaryResponse, totalsResponse, weeklyResponse } from "../reports/view.js";
import type { ScheduledReportRow } from "../scheduled-reports/store.js";
import type { RunNames } from "./run.js";
import type { ReportRun } from "../reports/run.js";
import type { SavedReportRow } from "./store.js";

/** The saved reports' answers: models.SavedReport, and the shared report's saved.ReportOutput. */

/** The users and groups a saved report's schedules mail it to, once each, ascending. */
function recipientsOf(schedules: ScheduledReportRow[]) {
  const ids = (pick: (s: ScheduledReportRow) => bigint[]) => [...new Set(schedules.flatMap(pick))].sort(compareIds);
  return { scheduledEmailUids: ids((s) => s.user_ids), scheduledEmailGids: ids((s) => s.group_ids) };
}

/** A saved report as the API answers it, its token opened; `deletedAt` in the answer of its deletion. */
export function savedReportMessage(row: SavedReportRow, token: string, schedules: ScheduledReportRow[], deletedAt?: Date): SavedReport {
  return create(SavedReportSchema, {
    id: row.id,
    name: row.name,
    params: JSON.stringify(row.params),
    public: row.public,
    fixedDaterange: row.fixed_daterange,
    token,
    uid: row.user_id,
    updatedAt: timestampFromDate(row.updated_at),
    updatedBy: row.updated_by,
    deletedAt: deletedAt ? timestampFromDate(deletedAt) : undefined,
    isNAResource: false,
    isCommentingEnabled: false,
    ...recipientsOf(schedules),
  });
}

/** The report's totals as totals.ReportData (the detailed totals' answer, with its graph). */
function totalsOf(run: ReportRun) {
  const { rangeStart: _start, rangeEnd: _end, $typeName: _type, ...totals } = totalsResponse(run.ctx, run.totals, true);
  return create(SharedReportTotalsSchema, totals);
}

/** What the results name, by id (dictionary.ReportDictionaries); users by name only. */
function dictionaries(names: RunNames) {
  const byId = <T, R>(map: Map<bigint, T>, make: (id: bigint, value: T) => R) => Object.fromEntries([...map].map(([id, v]) => [String(id), make(id, v)]));
  const named = (map: Map<bigint, string>) => byId(map, (id, name) => ({ id, name }));
  return {
    clients: named(names.clients),
    projects: byId(names.projects, (id, p) => ({ id, name: p.name, color: p.color, clientId: p.clientId ?? undefined, currency: p.currency ?? undefined })),
    tags: named(names.tags),
    tasks: byId(names.tasks, (id, t) => ({ id, name: t.name, projectId: t.projectId })),
    userGroups: {},
    users: named(names.users),
  };
}

/** The shared report's answer: the report of the saved kind with its totals, what it ran with, and the names it refers to. */
export function sharedReportResponse(run: ReportRun, row: SavedReportRow, inputParams: JsonObject, names: RunNames): RunSharedReportResponse {
  const { ctx } = run;
  const totals = totalsOf(run);
  const common = {
    reportName: row.name,
    reportType: run.kind,
    public: row.public,
    fixedDaterange: row.fixed_daterange,
    hideAmounts: !ctx.amounts,
    isCommentingEnabled: false,
    inputParams,
    savedParams: row.params as JsonObject,
    features: {},
    dictionaries: dictionaries(names),
  };
  switch (run.kind) {
    case "summary": {
      const { grouping, subGrouping, groups } = run.summary!;
      const answer = summaryResponse(ctx, grouping, subGrouping, groups);
      return create(RunSharedReportResponseSchema, { ...common, summaryResults: { report: { groups: answer.groups }, totals }, rangeStart: answer.rangeStart, rangeEnd: answer.rangeEnd });
    }
    case "detailed": {
      const answer = detailedResponse(ctx, run.detailed!.page, run.detailed!.enrich);
      return create(RunSharedReportResponseSchema, {
        ...common,
        detailedResults: { report: answer.rows, totals },
        rangeStart: answer.rangeStart,
        rangeEnd: answer.rangeEnd,
        nextId: answer.nextId,
        nextRowNumber: answer.nextRowNumber,
        nextTimestamp: answer.nextTimestamp,
      });
    }
    case "weekly": {
      const answer = weeklyResponse(ctx, run.weekly!);
      return create(RunSharedReportResponseSchema, { ...common, weeklyResults: { report: answer.rows, totals }, rangeStart: answer.rangeStart, rangeEnd: answer.rangeEnd });
    }
  }
}
