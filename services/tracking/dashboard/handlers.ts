import type { ConnectRouter } from "@connectrpc/connect";
import { DashboardService } from "../../../gen/tracking/v1/dashboard_pb.js";
import type { Knex } from "../../../lib/db.js";
import { idBinding, readId } from "../../../lib/ids.js";
import type { ResourceKit } from "../../../lib/resource-kit.js";
import { type TrackingScope, trackingScope } from "../scope.js";
import { visibleTo } from "../projects/access.js";
import { projects } from "../projects/store.js";
import { timeEntries, type TimeEntryRow } from "../time-entries/store.js";
import { MOST_ACTIVE_USERS, MOST_ACTIVE_WINDOW_MS, TOP_ACTIVITY_ENTRIES, activityOf, latestPerUser } from "./rules.js";

const sinceDate = (since: bigint | undefined) => (since === undefined ? undefined : new Date(Number(since) * 1000));

/**
 * The workspace dashboard: what its active members track, read from the time entries. The members
 * are asked of the accounts service once per call (no transaction is open): entries of users who
 * left the workspace are not shown.
 */
export function dashboardHandlers({ storage, clock, identity }: ResourceKit) {
  const { db } = storage;

  async function memberIds(scope: TrackingScope): Promise<bigint[]> {
    const { members } = await identity.listWorkspaceMembers({ workspaceId: scope.workspaceId });
    return members.filter((m) => m.active).map((m) => m.userId);
  }

  /** The members' live entries, started since `since` when given. */
  function entriesOf(q: Knex, scope: TrackingScope, members: bigint[], since: Date | undefined): Knex.QueryBuilder {
    const query = timeEntries.query(q, scope.workspaceId).whereIn("user_id", members.map(idBinding)).whereNull("server_deleted_at");
    if (since) query.where("start", ">=", since);
    return query;
  }

  /** The entries as answered, each project checked against what the caller sees. */
  async function answer(scope: TrackingScope, rows: TimeEntryRow[]) {
    const projectIds = [...new Set(rows.map((r) => r.project_id).filter((id): id is bigint => id !== null))];
    const seen = new Set<bigint>();
    if (projectIds.length) {
      const visible = await visibleTo(db, projects.query(db, scope.workspaceId).whereIn("id", projectIds.map(idBinding)), scope.viewer).select("id");
      for (const { id } of visible as { id: unknown }[]) seen.add(readId(id));
    }
    return { activity: rows.map((row) => activityOf(row, row.project_id !== null && seen.has(row.project_id))) };
  }

  const read = (raws: Record<string, unknown>[]) => raws.map((raw) => timeEntries.read(raw));

  return (router: ConnectRouter) =>
    router.service(DashboardService, {
      async listAllActivity(req, ctx) {
        const scope = trackingScope(ctx);
        const members = await memberIds(scope);
        if (members.length === 0) return { activity: [] };
        // Each member's latest start, then the entries that start then (ties resolved by id).
        const latest = entriesOf(db, scope, members, sinceDate(req.since)).groupBy("user_id").select({ latest_user: "user_id" }, db.raw("max(start) as latest_start"));
        const raws = await entriesOf(db, scope, members, sinceDate(req.since))
          .join(latest.as("latest"), (j) => j.on("time_entries.user_id", "=", "latest.latest_user").andOn("time_entries.start", "=", "latest.latest_start"))
          .select("time_entries.*");
        return answer(scope, latestPerUser(read(raws)));
      },

      async listTopActivity(req, ctx) {
        const scope = trackingScope(ctx);
        const members = await memberIds(scope);
        if (members.length === 0) return { activity: [] };
        const raws = await entriesOf(db, scope, members, sinceDate(req.since)).orderBy("start", "desc").orderBy("id", "desc").limit(TOP_ACTIVITY_ENTRIES);
        return answer(scope, read(raws));
      },

      async listMostActive(req, ctx) {
        const scope = trackingScope(ctx);
        const members = await memberIds(scope);
        if (members.length === 0) return { users: [] };
        const from = sinceDate(req.since) ?? new Date(clock.now().getTime() - MOST_ACTIVE_WINDOW_MS);
        // Stopped entries only: a running entry counts nothing until it stops, as everywhere else.
        const rows: { user_id: unknown; total: unknown }[] = await entriesOf(db, scope, members, from)
          .where("duration", ">=", 0)
          .groupBy("user_id")
          .select("user_id", db.raw("sum(duration) as total"))
          .orderBy("total", "desc")
          .orderBy("user_id")
          .limit(MOST_ACTIVE_USERS);
        return { users: rows.map((r) => ({ userId: readId(r.user_id), duration: BigInt(Number(r.total)) })) };
      },
    });
}
