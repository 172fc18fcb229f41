import { toJson } from "@bufbuild/protobuf";
import { ListValueSchema, type ListValue } from "@bufbuild/protobuf/wkt";
import type { Client } from "@connectrpc/connect";
import type { IdentityService, WorkspaceMember } from "../../../gen/accounts/v1/accounts_pb.js";
import { reportFeatureNeeded } from "../errors.js";
import { checkSomeGiven } from "../reporting.js";
import type { TrackingScope } from "../scope.js";
import { knownZone } from "../time-entries/rules.js";
import { durationBounds, idChoice, idList, reportRange, rounding, type IdChoice, type RangeInput, type ReportRange, type Rounding } from "./rules.js";

/** The filters every report's body takes (the reference's base.Post): the fields every report request has. */
export interface ReportInput extends RangeInput {
  userIds: bigint[];
  projectIds?: ListValue;
  clientIds?: ListValue;
  tagIds?: ListValue;
  taskIds?: ListValue;
  groupIds: bigint[];
  timeEntryIds: bigint[];
  description?: string;
  billable?: boolean;
  minDurationSeconds?: bigint;
  maxDurationSeconds?: bigint;
  rounding?: number;
  roundingMinutes?: number;
}

/** Which entries a report counts, besides the range and what the caller may see. */
export interface EntryFilters {
  /** The users named, narrowed to the members of the groups named (group_ids). */
  userIds?: bigint[];
  projects?: IdChoice;
  clients?: IdChoice;
  tags?: IdChoice;
  tasks?: IdChoice;
  timeEntryIds?: bigint[];
  /** Part of the description, ignoring case. */
  description?: string;
  billable?: boolean;
  minSeconds?: number;
  maxSeconds?: number;
}

/** A workspace member as reports name them. */
export interface Person {
  name: string;
  email: string;
  active: boolean;
}

/**
 * Everything a report is computed from, settled before any query: the caller's scope, zone and
 * first day of the week, the range, the filters, rounding, whether amounts and labour costs are
 * shown, and the workspace's people (asked of the accounts service once: names, e-mails, zones,
 * groups). The exports reuse it as they reuse the reports' rows.
 */
export interface ReportContext {
  scope: TrackingScope;
  zone: string;
  /** The caller's first day of the week: 0 Sunday to 6 Saturday. */
  weekStart: number;
  range: ReportRange;
  filters: EntryFilters;
  rounding?: Rounding;
  /** The caller sees amounts and rates: not hidden (`hide_amounts`), and not a member of a workspace that shows them to admins only. */
  amounts: boolean;
  /** Labour costs: workspace admins only. */
  labour: boolean;
  currency: string;
  /** The hourly rate where no task, project user or project has one. */
  defaultRate: number;
  /** Workspace members' own hourly rates (after the project's, before the workspace's). */
  memberRates: Map<bigint, number>;
  people: Map<bigint, Person>;
}

const listOf = (v: ListValue | undefined) => (v ? (toJson(ListValueSchema, v) as unknown[]) : undefined);

/** The body's filters that need no one else's answer (groups are resolved with the members). */
export function checkedInput(scope: TrackingScope, input: ReportInput, extra: unknown[] = []) {
  checkSomeGiven(
    input.startDate,
    input.endDate,
    input.startTime,
    input.endTime,
    input.userIds,
    listOf(input.projectIds),
    listOf(input.clientIds),
    listOf(input.tagIds),
    listOf(input.taskIds),
    input.groupIds,
    input.timeEntryIds,
    input.description,
    input.billable,
    input.minDurationSeconds,
    input.maxDurationSeconds,
    input.rounding,
    input.roundingMinutes,
    ...extra,
  );
  // The reference marks the billable filter a premium feature.
  if (input.billable !== undefined && !scope.premium) throw reportFeatureNeeded();
  const durations = durationBounds(input.minDurationSeconds, input.maxDurationSeconds);
  const filters: EntryFilters = {
    userIds: idList(input.userIds),
    projects: idChoice(listOf(input.projectIds), "project_ids"),
    clients: idChoice(listOf(input.clientIds), "client_ids"),
    tags: idChoice(listOf(input.tagIds), "tag_ids"),
    tasks: idChoice(listOf(input.taskIds), "task_ids"),
    timeEntryIds: idList(input.timeEntryIds),
    description: input.description?.trim() || undefined,
    billable: input.billable,
    minSeconds: durations.min,
    maxSeconds: durations.max,
  };
  return { filters, groupIds: idList(input.groupIds), rounding: rounding(input.rounding, input.roundingMinutes) };
}

/** Workspace members' own hourly rates (their organization users' `rate`), for those who have one. */
function memberRates(members: WorkspaceMember[]): Map<bigint, number> {
  return new Map(members.flatMap((m) => (m.rate === undefined ? [] : [[m.userId, m.rate] as const])));
}

/**
 * The report's context: the body checked first (no call for a refused body), then one call to the
 * accounts service for the workspace's members (names, e-mails, the caller's zone and first day
 * of the week, everyone's groups), then the range in the caller's zone.
 */
export async function reportContext(
  identity: Client<typeof IdentityService>,
  scope: TrackingScope,
  input: ReportInput,
  options: { weekly?: boolean; hideAmounts?: boolean; extraGiven?: unknown[] } = {},
): Promise<ReportContext> {
  const checked = checkedInput(scope, input, options.extraGiven);
  const { members } = await identity.listWorkspaceMembers({ workspaceId: scope.workspaceId });
  const me = members.find((m) => m.userId === scope.userId);
  const zone = knownZone(me?.timezone ?? "UTC");
  const range = reportRange(input, zone, options.weekly);
  const filters = { ...checked.filters };
  if (checked.groupIds) {
    const wanted = new Set(checked.groupIds);
    const inGroups = members.filter((m) => m.groupIds.some((g) => wanted.has(g))).map((m) => m.userId);
    filters.userIds = filters.userIds ? filters.userIds.filter((id) => inGroups.includes(id)) : inGroups;
  }
  const weekStart = me && me.beginningOfWeek >= 0 && me.beginningOfWeek <= 6 ? me.beginningOfWeek : 1;
  return {
    scope,
    zone,
    weekStart,
    range,
    filters,
    rounding: checked.rounding,
    amounts: !options.hideAmounts && (scope.admin || !scope.rules.onlyAdminsSeeBillableRates),
    labour: scope.admin,
    currency: scope.rules.defaultCurrency || "USD",
    defaultRate: scope.rules.defaultHourlyRate,
    memberRates: memberRates(members),
    people: new Map(members.map((m) => [m.userId, { name: m.fullname, email: m.email, active: m.active }])),
  };
}
