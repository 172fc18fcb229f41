import type { ListProjectsRequest } from "../../../gen/tracking/v1/projects_pb.js";
import type { Knex } from "../../../lib/db.js";
import { likePattern } from "../../../lib/scoped-table.js";
import { idBinding, readId, rowId } from "../../../lib/ids.js";
import { projectsOfGroups, projectsOfUsers, type Viewer } from "./access.js";
import { projectPins } from "./pins.js";
import { projects, type ProjectRow } from "./store.js";
import { activeFilter, pageOf, sortOf, statusesOf, type ProjectStatus } from "./rules.js";

const ids = (values: bigint[]) => values.map(rowId).filter((id): id is bigint => id !== undefined);

/** The SQL condition of one derived status (see projectStatus). */
function whereStatus(w: Knex.QueryBuilder, status: ProjectStatus, today: string): void {
  if (status === "deleted") {
    w.whereNotNull("server_deleted_at");
    return;
  }
  w.whereNull("server_deleted_at");
  if (status === "archived") {
    w.where("active", false);
    return;
  }
  w.where("active", true);
  if (status === "upcoming") w.where("start_date", ">", today);
  else if (status === "ended") w.whereNotNull("end_date").where("end_date", "<", today);
  else w.where("start_date", "<=", today).andWhere((e) => e.whereNull("end_date").orWhere("end_date", ">=", today));
}

/**
 * Narrows a query of the viewer's projects by the list's parameters, sorts and pages it.
 * Deleted projects are listed only with `since` (what changed since then) or the `deleted` status.
 * `active` (true by default) applies when no `statuses` are given; a 0 in `client_ids` means no client.
 */
export function filterProjects(db: Knex, q: Knex.QueryBuilder, req: ListProjectsRequest, viewer: Viewer, today: string): Knex.QueryBuilder {
  const statuses = statusesOf(req.statuses);
  const sort = sortOf(req.sortField, req.sortOrder);
  const page = pageOf(req.page, req.perPage);
  const active = statuses.length === 0 ? activeFilter(req.active) : req.active.trim() ? activeFilter(req.active) : undefined;
  if (req.since !== undefined) q.where("at", ">=", new Date(Number(req.since) * 1000));
  else if (!statuses.includes("deleted")) q.whereNull("server_deleted_at");
  if (active !== undefined) q.where("active", active);
  if (statuses.length > 0) q.andWhere((w) => statuses.forEach((s) => w.orWhere((one) => whereStatus(one, s, today))));
  if (req.billable !== undefined) q.andWhere((w) => (req.billable ? w.where("billable", true) : w.where("billable", false).orWhereNull("billable")));
  if (req.clientIds.length > 0) {
    const clientIds = ids(req.clientIds);
    const none = req.clientIds.includes(0n);
    q.andWhere((w) => {
      w.whereIn("client_id", clientIds.map(idBinding));
      if (none) w.orWhereNull("client_id");
    });
  }
  if (req.userIds.length > 0) q.whereIn("id", projectsOfUsers(db, viewer.workspace, ids(req.userIds)));
  if (req.groupIds.length > 0) q.whereIn("id", projectsOfGroups(db, viewer.workspace, ids(req.groupIds)));
  if (req.onlyMe) q.whereIn("id", projectsOfUsers(db, viewer.workspace, [viewer.userId]));
  if (req.onlyTemplates) q.where("template", true);
  const name = req.name.trim();
  if (name) q.andWhereRaw(`sort_name LIKE ? ESCAPE '!'`, [likePattern(name)]);
  // `sort_pinned`: the viewer's pinned projects first, each part in the list's order.
  if (req.sortPinned) q.orderByRaw("CASE WHEN id IN ? THEN 0 ELSE 1 END", [projectPins.query(db, viewer.workspace).where("user_id", idBinding(viewer.userId)).select("project_id")]);
  q.orderBy(sort.column, sort.desc ? "desc" : "asc").orderBy("id", sort.desc ? "desc" : "asc");
  return q.offset(page.offset).limit(page.limit);
}

/**
 * The rows of a filtered page, in its order: first the page's ids (from an index alone when it
 * holds the filters, so a deep page skips index entries, not rows), then those rows.
 */
export async function listRows(db: Knex, page: Knex.QueryBuilder, workspace: bigint): Promise<ProjectRow[]> {
  const ids: bigint[] = (await page.clearSelect().select("id")).map((r: { id: unknown }) => readId(r.id));
  if (ids.length === 0) return [];
  const byId = new Map<bigint, ProjectRow>();
  for (const raw of await projects.query(db, workspace).whereIn("id", ids.map(idBinding))) {
    const row = projects.read(raw);
    byId.set(row.id, row);
  }
  return ids.map((id) => byId.get(id)!);
}
