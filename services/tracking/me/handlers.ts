import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import { TrackingMeService } from "../../../gen/tracking/v1/me_pb.js";
import type { Knex } from "../../../lib/db.js";
import { idBinding } from "../../../lib/ids.js";
import type { ResourceKit } from "../../../lib/resource-kit.js";
import { trackingUserScope } from "../scope.js";
import { clientMessage } from "../clients/view.js";
import { clients } from "../clients/store.js";
import { visibleTo } from "../projects/access.js";
import { flag } from "../projects/rules.js";
import { projects } from "../projects/store.js";
import { projectMessages } from "../projects/view.js";
import { tasks } from "../tasks/store.js";
import { taskMessages } from "../tasks/view.js";
import { tags } from "../tags/store.js";
import { tagMessage } from "../tags/changes.js";
import { newestFirst, RECENT_DAYS } from "../time-entries/rules.js";
import { timeEntries, userEntries } from "../time-entries/store.js";
import { entryMessages } from "../time-entries/view.js";
import { webTimerEntry } from "./view.js";

const sinceDate = (since: bigint | undefined) => (since === undefined ? undefined : new Date(Number(since) * 1000));

/**
 * The caller's own lists across the workspaces they are an active member of: projects they may
 * see (archived ones with `include_archived`, changed and deleted ones with `since`), the tasks
 * of those projects, and the workspaces' clients.
 */
export function meHandlers({ storage, clock }: ResourceKit) {
  const { db } = storage;

  /** Per workspace of the caller, the query of the projects they see there. */
  async function visibleProjects(ctx: HandlerContext): Promise<{ workspace: bigint; q: Knex.QueryBuilder }[]> {
    const out = [];
    for (const scope of await trackingUserScope(ctx).workspaces()) {
      out.push({ workspace: scope.workspaceId, q: visibleTo(db, projects.query(db, scope.workspaceId), scope.viewer) });
    }
    return out;
  }

  return (router: ConnectRouter) =>
    router.service(TrackingMeService, {
      async listMyProjects(req, ctx) {
        const archived = flag(req.includeArchived, "include_archived");
        const since = sinceDate(req.since);
        const rows = [];
        for (const { q } of await visibleProjects(ctx)) {
          if (since) q.where("at", ">=", since);
          else q.whereNull("server_deleted_at");
          if (!archived) q.where("active", true);
          rows.push(...(await q.orderBy("sort_name").orderBy("id")).map((raw: Record<string, unknown>) => projects.read(raw)));
        }
        return { projects: await projectMessages(db, rows, clock.now()) };
      },

      async listMyTasks(req, ctx) {
        const all = flag(req.includeNotActive, "include_not_active");
        const since = sinceDate(req.since);
        const rows = [];
        for (const { workspace, q: visible } of await visibleProjects(ctx)) {
          const q = tasks.query(db, workspace).whereIn("project_id", visible.whereNull("server_deleted_at").select("id"));
          if (since) q.where("at", ">=", since);
          else q.whereNull("server_deleted_at");
          if (!all) q.where("active", true);
          rows.push(...(await q.orderBy("id")).map((raw: Record<string, unknown>) => tasks.read(raw)));
        }
        const offset = Number(req.offset ?? 0n);
        const page = req.perPage === undefined || req.perPage === 0n ? rows.slice(offset) : rows.slice(offset, offset + Number(req.perPage));
        return { tasks: await taskMessages(db, page) };
      },

      async getWebTimer(_req, ctx) {
        const user = trackingUserScope(ctx);
        const now = clock.now();
        const since = new Date(now.getTime() - RECENT_DAYS * 86_400_000);
        const entryRows = (await userEntries(db, user.userId).whereNull("server_deleted_at").where("start", ">=", since))
          .map((raw: Record<string, unknown>) => timeEntries.read(raw))
          .sort(newestFirst);
        const projectRows = [];
        const visible = await visibleProjects(ctx);
        for (const { q } of visible) {
          projectRows.push(...(await q.whereNull("server_deleted_at").where("active", true).orderBy("sort_name").orderBy("id")).map((raw: Record<string, unknown>) => projects.read(raw)));
        }
        const workspaces = visible.map((v) => v.workspace);
        const clientRows = workspaces.length ? await db(clients.table).whereIn("workspace_id", workspaces.map(idBinding)).orderByRaw("LOWER(name)").orderBy("id") : [];
        const tagRows = workspaces.length ? await db(tags.table).whereIn("workspace_id", workspaces.map(idBinding)).whereNull("deleted_at").orderByRaw("LOWER(name)").orderBy("id") : [];
        return {
          clients: clientRows.map((raw: Record<string, unknown>) => clientMessage(clients.read(raw))),
          projects: await projectMessages(db, projectRows, now),
          tags: tagRows.map((raw: Record<string, unknown>) => tagMessage(tags.read(raw))),
          timeEntries: (await entryMessages(db, entryRows)).map((entry) => webTimerEntry(entry, now)),
        };
      },

      async listMyClients(req, ctx) {
        const workspaces = await trackingUserScope(ctx).memberships();
        if (workspaces.length === 0) return { clients: [] };
        const q = db(clients.table).whereIn("workspace_id", workspaces.map(idBinding));
        const since = sinceDate(req.since);
        if (since) q.where("at", ">=", since);
        const rows = (await q.orderByRaw("LOWER(name)").orderBy("id")).map((raw: Record<string, unknown>) => clients.read(raw));
        return { clients: rows.map(clientMessage) };
      },
    });
}
