import { randomBytes } from "node:crypto";
import { sha256Hex } from "../../../lib/digest.js";
import { create, toJson, type JsonObject, type JsonValue, type MessageInitShape } from "@bufbuild/protobuf";
import { ListValueSchema, type ListValue } from "@bufbuild/protobuf/wkt";
import { SavedReportInputSchema, type ListSavedReportsRequest, type RunSharedReportRequest, type SavedReportInput } from "../../../gen/tracking/v1/saved_reports_pb.js";
import { fieldLimitViolation } from "../../../lib/field-limits.js";
import { GetSummaryReportRequestSchema, GetWeeklyReportRequestSchema, SearchDetailedReportRequestSchema } from "../../../gen/tracking/v1/reports_pb.js";
import { decodeMessage, RestInputError } from "../../../lib/rest-json.js";
import {
  publicReportsAdminsOnly,
  savedReportFixedDaterangeBlank,
  savedReportInputInvalid,
  savedReportsJsonInvalid,
  savedReportsTooMany,
  savedReportListParameterInvalid,
  savedReportNameBlank,
  savedReportParamsInvalid,
  savedReportPublicBlank,
  savedReportTypeInvalid,
  sharedReportPeriodUnsupported,
} from "../errors.js";
import type { ConnectError } from "@connectrpc/connect";
import { dayNumber } from "../reporting.js";
import { addDays, dayText, offsetSecondsAt } from "../reports/rules.js";
import type { Day } from "../time-entries/rules.js";
import type { SavedReportRow } from "./store.js";

/**
 * The saved reports' rules, pure: what a body saves (name, kind, parameters, public, fixed
 * dates), who sees and changes which report, the list's parameters, the token, and the relative
 * periods a report without fixed dates spans.
 */

/** The kinds of report a saved report runs, as `params.report_type` names them. */
export const REPORT_KINDS = ["summary", "detailed", "weekly"] as const;
export type ReportKind = (typeof REPORT_KINDS)[number];

/** The request each kind's parameters are read as: the body of its /reports/api/v3/workspace/... endpoint. */
export const REQUEST_OF = {
  summary: GetSummaryReportRequestSchema,
  detailed: SearchDetailedReportRequestSchema,
  weekly: GetWeeklyReportRequestSchema,
} as const;

/** Parameters that belong to the saved report, not to its report's request. */
const OWN_PARAMS = ["report_type", "period"];

/** The kind `params.report_type` names, or undefined. */
export function reportKindOf(params: Record<string, unknown>): ReportKind | undefined {
  const kind = params.report_type;
  return typeof kind === "string" && (REPORT_KINDS as readonly string[]).includes(kind) ? (kind as ReportKind) : undefined;
}

/** The parameters of the report's request: the saved ones without the saved report's own. */
export function requestParams(params: Record<string, unknown>): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(params)) if (!OWN_PARAMS.includes(key)) out[key] = value as JsonObject[string];
  return out;
}

// ---------------------------------------------------------------------------------------------
// Relative periods.

/** What `params.period` may name: a range counted from the day a report runs, in its owner's zone. */
export const PERIODS = ["today", "yesterday", "thisWeek", "prevWeek", "thisMonth", "prevMonth", "thisYear", "prevYear"] as const;
export type Period = (typeof PERIODS)[number];
/** The period of a report without fixed dates that names none. */
export const DEFAULT_PERIOD: Period = "thisWeek";
/** The periods of the weekly report, whose range is always seven days. */
const WEEKLY_PERIODS: readonly Period[] = ["thisWeek", "prevWeek"];

/** `params.period`: one of PERIODS (the weekly report: a week), the default when absent. */
export function periodOf(params: Record<string, unknown>, kind: ReportKind): Period {
  const period = params.period ?? DEFAULT_PERIOD;
  if (typeof period !== "string" || !(PERIODS as readonly string[]).includes(period)) throw sharedReportPeriodUnsupported();
  if (kind === "weekly" && !WEEKLY_PERIODS.includes(period as Period)) throw sharedReportPeriodUnsupported();
  return period as Period;
}

/** The day it is at `now` in the zone. */
function today(now: Date, zone: string): Day {
  const local = new Date(now.getTime() + offsetSecondsAt(now, zone) * 1000);
  return { year: local.getUTCFullYear(), month: local.getUTCMonth() + 1, day: local.getUTCDate() };
}

const lastOfMonth = (year: number, month: number): Day => {
  const d = new Date(Date.UTC(year, month, 0));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
};

/** The days (YYYY-MM-DD, both included) a period spans at `now`, weeks from `weekStart` (0 Sunday to 6 Saturday). */
export function periodDays(period: Period, now: Date, zone: string, weekStart: number): { startDate: string; endDate: string } {
  const t = today(now, zone);
  const first = Number.isInteger(weekStart) && weekStart >= 0 && weekStart <= 6 ? weekStart : 1;
  // 1970-01-01 was a Thursday (weekday 4, counting from Sunday).
  const weekday = (((dayNumber(t) + 4) % 7) + 7) % 7;
  const weekBegins = addDays(t, -((weekday - first + 7) % 7));
  const span = (a: Day, b: Day) => ({ startDate: dayText(a), endDate: dayText(b) });
  switch (period) {
    case "today":
      return span(t, t);
    case "yesterday":
      return span(addDays(t, -1), addDays(t, -1));
    case "thisWeek":
      return span(weekBegins, addDays(weekBegins, 6));
    case "prevWeek":
      return span(addDays(weekBegins, -7), addDays(weekBegins, -1));
    case "thisMonth":
      return span({ ...t, day: 1 }, lastOfMonth(t.year, t.month));
    case "prevMonth": {
      const last = addDays({ ...t, day: 1 }, -1);
      return span({ ...last, day: 1 }, last);
    }
    case "thisYear":
      return span({ year: t.year, month: 1, day: 1 }, { year: t.year, month: 12, day: 31 });
    case "prevYear":
      return span({ year: t.year - 1, month: 1, day: 1 }, { year: t.year - 1, month: 12, day: 31 });
  }
}

// ---------------------------------------------------------------------------------------------
// What a body saves.

/** A saved report's settings as a body gives them. */
export interface SavedReportSettings {
  name: string;
  params: JsonObject;
  kind: ReportKind;
  /** Left out of a PUT: kept. */
  public?: boolean;
  fixedDaterange?: boolean;
  regenerateToken: boolean;
}

/**
 * The parameters of a body: an object whose `report_type` names a kind, whose other fields its
 * report's request reads (types only: the values are checked when it runs, as the report checks
 * a body), and whose `period`, when given, is one the kind supports.
 */
function checkedParams(params: JsonObject | undefined, typeInvalid: () => ConnectError): { params: JsonObject; kind: ReportKind } {
  const kind = params ? reportKindOf(params) : undefined;
  if (!params || !kind) throw typeInvalid();
  try {
    decodeMessage(REQUEST_OF[kind], requestParams(params), "params");
  } catch (err) {
    if (err instanceof RestInputError) throw savedReportParamsInvalid(err.message);
    throw err;
  }
  if (params.period !== undefined) periodOf(params, kind);
  return { params, kind };
}

/** POST: a name, fixed_daterange, public and params with a report_type, checked in the reference's order. */
export function newSettings(input: SavedReportInput | undefined): SavedReportSettings & { public: boolean; fixedDaterange: boolean } {
  const name = input?.name?.trim();
  if (!name) throw savedReportNameBlank();
  if (input!.fixedDaterange === undefined) throw savedReportFixedDaterangeBlank();
  if (input!.public === undefined) throw savedReportPublicBlank();
  const { params, kind } = checkedParams(input!.params, savedReportTypeInvalid);
  return { name, params, kind, public: input!.public, fixedDaterange: input!.fixedDaterange, regenerateToken: false };
}

/** PUT: a name and params with a report_type; public and fixed_daterange are kept when left out. */
export function changedSettings(input: SavedReportInput | undefined, typeInvalid: () => ConnectError): SavedReportSettings {
  const name = input?.name?.trim();
  if (!name) throw savedReportNameBlank();
  const { params, kind } = checkedParams(input!.params, typeInvalid);
  return { name, params, kind, public: input!.public, fixedDaterange: input!.fixedDaterange, regenerateToken: input!.regenerateToken };
}

/** The most reports one PUT changes. */
export const MAX_BULK_REPORTS = 100;

/**
 * The body of a PUT of several: a JSON array of saved.Payload objects, each read as the single
 * PUT's body is (the codec's types, the declared limits of SavedReportInput).
 */
export function bulkInputs(body: JsonValue | undefined): SavedReportInput[] {
  if (!Array.isArray(body)) throw savedReportsJsonInvalid();
  if (body.length > MAX_BULK_REPORTS) throw savedReportsTooMany(MAX_BULK_REPORTS);
  return body.map((item, i) => {
    let input: SavedReportInput;
    try {
      input = create(SavedReportInputSchema, decodeMessage(SavedReportInputSchema, item, `reports[${i}]`) as MessageInitShape<typeof SavedReportInputSchema>);
    } catch (err) {
      if (err instanceof RestInputError) throw savedReportInputInvalid(err.message);
      throw err;
    }
    const violation = fieldLimitViolation(SavedReportInputSchema, input);
    if (violation) throw savedReportInputInvalid(violation);
    return input;
  });
}

// ---------------------------------------------------------------------------------------------
// Who sees and changes what.

/** Who asks: the caller's id and whether they administer the workspace. */
export interface Asker {
  userId: bigint;
  admin: boolean;
}

/** Admins see every saved report of the workspace; members their own and the public ones. */
export const maySee = (asker: Asker, row: SavedReportRow) => asker.admin || row.public || row.user_id === asker.userId;
/** Admins change and delete any; members their own. */
export const mayChange = (asker: Asker, row: SavedReportRow) => asker.admin || row.user_id === asker.userId;

/** Only admins save a report as public. */
export function checkMaySave(asker: Asker, isPublic: boolean): void {
  if (isPublic && !asker.admin) throw publicReportsAdminsOnly();
}

// ---------------------------------------------------------------------------------------------
// The list.

export const SORT_FIELDS = ["name", "updated_at", "id"] as const;
export const DEFAULT_PER_PAGE = 50;
export const MAX_PER_PAGE = 200;

export interface ListParameters {
  page: number;
  perPage: number;
  sortField: (typeof SORT_FIELDS)[number];
  descending: boolean;
}

/** page (from 1), per_page (1 to 200), sort_field, sort_direction (asc or desc, either case). */
export function listParameters(req: Pick<ListSavedReportsRequest, "page" | "perPage" | "sortField" | "sortDirection">): ListParameters {
  if (req.page !== undefined && req.page < 1) throw savedReportListParameterInvalid("page");
  if (req.perPage !== undefined && (req.perPage < 1 || req.perPage > MAX_PER_PAGE)) throw savedReportListParameterInvalid("per_page");
  const field = req.sortField?.trim() || "name";
  if (!(SORT_FIELDS as readonly string[]).includes(field)) throw savedReportListParameterInvalid("sort_field");
  const direction = (req.sortDirection?.trim() || "asc").toLowerCase();
  if (direction !== "asc" && direction !== "desc") throw savedReportListParameterInvalid("sort_direction");
  return { page: req.page ?? 1, perPage: req.perPage ?? DEFAULT_PER_PAGE, sortField: field as ListParameters["sortField"], descending: direction === "desc" };
}

// ---------------------------------------------------------------------------------------------
// A run's body.

/** A 64-bit value as JSON: a number while it is exact, else its digits (which the report's request reads alike). */
const int = (v: bigint) => (v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= -BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString());
const list = (v: ListValue | undefined) => (v ? (toJson(ListValueSchema, v) as JsonObject[string]) : undefined);

/** The run body's fields that were given, as the JSON of the report's request (snake_case names). */
export function runOverrides(req: RunSharedReportRequest): JsonObject {
  const given: [string, JsonObject[string] | undefined][] = [
    ["start_date", req.startDate],
    ["end_date", req.endDate],
    ["first_timestamp", req.firstTimestamp === undefined ? undefined : int(req.firstTimestamp)],
    ["first_id", req.firstId === undefined ? undefined : int(req.firstId)],
    ["first_row_number", req.firstRowNumber === undefined ? undefined : int(req.firstRowNumber)],
    ["page_size", req.pageSize],
    ["group_ids", req.groupIds.length ? req.groupIds.map(int) : undefined],
    ["user_ids", req.userIds.length ? req.userIds.map(int) : undefined],
    ["client_ids", list(req.clientIds)],
    ["project_ids", list(req.projectIds)],
    ["task_ids", list(req.taskIds)],
    ["tag_ids", list(req.tagIds)],
    ["description", req.description],
    ["billable", req.billable],
    ["rounding", req.rounding],
    ["rounding_minutes", req.roundingMinutes],
    ["grouped", req.grouped],
    ["grouping", req.grouping],
    ["sub_grouping", req.subGrouping],
  ];
  return Object.fromEntries(given.filter(([, v]) => v !== undefined)) as JsonObject;
}

/** A file run's fields that were given: its range in the saved one's place. */
export function fileOverrides(req: { startDate?: string; endDate?: string }): JsonObject {
  return Object.fromEntries(Object.entries({ start_date: req.startDate, end_date: req.endDate }).filter(([, v]) => v !== undefined)) as JsonObject;
}


// ---------------------------------------------------------------------------------------------
// The token.

/** A new token: 128 random bits, hex (what /reports/api/v3/shared/{token} takes). */
export const newReportToken = () => randomBytes(16).toString("hex");
/** What a token is looked up by: its SHA-256 (hex); 128 random bits need no slow hash. */
export const reportTokenHash = (token: string) => sha256Hex(token);
