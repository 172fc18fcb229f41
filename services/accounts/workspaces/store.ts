import { idBinding, readId } from "../../../lib/ids.js";
import { ScopedTable } from "../../../lib/scoped-table.js";
import type { Knex } from "../../../lib/db.js";
import { isPaid } from "../organizations/plan.js";

/**
 * A workspace's row. Whether it is premium is its organization's plan (organizations/plan.ts), not
 * a column: the table's `premium` and `business_ws` are read no more (migration
 * 0060_organization_plans moved the premium workspaces' plan to their organizations).
 */
export interface WorkspaceRow {
  id: bigint;
  organization_id: bigint;
  name: string;
  default_hourly_rate: number;
  default_currency: string;
  only_admins_may_create_projects: boolean;
  only_admins_may_create_tags: boolean;
  only_admins_see_billable_rates: boolean;
  only_admins_see_team_dashboard: boolean;
  projects_billable_by_default: boolean;
  projects_private_by_default: boolean;
  projects_enforce_billable: boolean;
  limit_public_project_data: boolean;
  reports_collapse: boolean;
  rounding: number;
  rounding_minutes: number;
  rate_last_updated: Date | null;
  logo_url: string;
  hide_start_end_times: boolean;
  working_hours_in_minutes: number | null;
  suspended_at: Date | null;
  te_description_present: boolean;
  te_project_present: boolean;
  te_tag_present: boolean;
  te_task_present: boolean;
  te_constraints_enabled: boolean;
  created_at: Date;
  updated_at: Date;
}

/** An organization's workspaces. */
export const workspaces = new ScopedTable<WorkspaceRow>({
  table: "workspaces",
  scope: "organization_id",
  columns: {
    id: "id",
    organization_id: "id",
    name: "string",
    default_hourly_rate: "number",
    default_currency: "string",
    only_admins_may_create_projects: "boolean",
    only_admins_may_create_tags: "boolean",
    only_admins_see_billable_rates: "boolean",
    only_admins_see_team_dashboard: "boolean",
    projects_billable_by_default: "boolean",
    projects_private_by_default: "boolean",
    projects_enforce_billable: "boolean",
    limit_public_project_data: "boolean",
    reports_collapse: "boolean",
    rounding: "integer",
    rounding_minutes: "integer",
    rate_last_updated: "date?",
    logo_url: "string",
    hide_start_end_times: "boolean",
    working_hours_in_minutes: "integer?",
    suspended_at: "date?",
    te_description_present: "boolean",
    te_project_present: "boolean",
    te_tag_present: "boolean",
    te_task_present: "boolean",
    te_constraints_enabled: "boolean",
    created_at: "date",
    updated_at: "date",
  },
  order: ["lower(name)", "id"],
});

/** A workspace with the member's place in it, and whether it is premium (its organization is paid). */
export interface MemberWorkspace {
  workspace: WorkspaceRow;
  admin: boolean;
  role: string;
  premium: boolean;
}

/** The workspaces a user is an active member of, by name. */
export async function memberWorkspaces(db: Knex, userId: bigint): Promise<MemberWorkspace[]> {
  const rows: Record<string, unknown>[] = await memberships(db)
    .where({ "wu.user_id": userId, "wu.active": true })
    .orderByRaw("LOWER(w.name)")
    .orderBy("w.id")
    .select("w.*", db.raw(`${EFFECTIVE_ADMIN} as member_admin`), "wu.role as member_role", "o.pricing_plan_id as organization_plan");
  return rows.map(memberWorkspaceOf);
}

/** The workspace with the user's place in it, when the user is an active member of it. */
export async function memberWorkspace(db: Knex, userId: bigint, workspaceId: bigint): Promise<MemberWorkspace | undefined> {
  const raw: Record<string, unknown> | undefined = await memberships(db)
    .where({ "wu.user_id": userId, "wu.active": true, "w.id": workspaceId })
    .first("w.*", db.raw(`${EFFECTIVE_ADMIN} as member_admin`), "wu.role as member_role", "o.pricing_plan_id as organization_plan");
  return raw ? memberWorkspaceOf(raw) : undefined;
}

/**
 * Workspaces with their organization (`o`, whose plan is theirs), their memberships (`wu`) and each
 * member's row of the workspace's organization (`ou`, absent for none): what decides a member's
 * place in a workspace.
 */
export function memberships(db: Knex): Knex.QueryBuilder {
  return db("workspaces as w")
    .join("organizations as o", "o.id", "w.organization_id")
    .join("workspace_users as wu", "wu.workspace_id", "w.id")
    .leftJoin("organization_users as ou", function () {
      this.on("ou.user_id", "wu.user_id").andOn("ou.organization_id", "w.organization_id");
    });
}

/**
 * Whether a member administers the workspace (over `memberships`): its own admin flag, or being
 * the owner or an admin of the workspace's organization, who administer all its workspaces.
 */
export const EFFECTIVE_ADMIN = "(CASE WHEN wu.admin = 1 OR ou.owner = 1 OR ou.admin = 1 THEN 1 ELSE 0 END)";

function memberWorkspaceOf(raw: Record<string, unknown>): MemberWorkspace {
  const admin = Boolean(Number(raw.member_admin));
  return { workspace: workspaces.read(raw), admin, role: admin ? "admin" : String(raw.member_role), premium: isPaid({ pricing_plan_id: Number(raw.organization_plan) }) };
}

/** Whether another workspace of the organization has this name (letter case aside). */
export async function nameTaken(db: Knex, organization: bigint, name: string, except?: bigint): Promise<boolean> {
  const q = workspaces.query(db, organization).andWhereRaw("LOWER(name) = ?", [name.toLowerCase()]);
  if (except !== undefined) q.andWhereNot("id", idBinding(except));
  return (await q.first("id")) !== undefined;
}

/** How many workspaces the organization has, its row locked against a concurrent creation. */
export async function workspaceCountOfOrganization(trx: Knex.Transaction, organization: bigint): Promise<number> {
  await trx("organizations").where({ id: organization }).forUpdate().first("id");
  const [{ n }] = await workspaces.query(trx, organization).count({ n: "*" });
  return Number(n);
}

export interface WorkspaceStatisticsRow {
  admins: { name: string; user_id: bigint }[];
  members: number;
  groups: number;
}

/** Admins (by name) and member count of each workspace (active memberships only), and the groups assigned to it. */
export async function statisticsOf(db: Knex, workspaceIds: bigint[]): Promise<Map<bigint, WorkspaceStatisticsRow>> {
  const out = new Map<bigint, WorkspaceStatisticsRow>(workspaceIds.map((id) => [id, { admins: [], members: 0, groups: 0 }]));
  if (workspaceIds.length === 0) return out;
  const rows: Record<string, unknown>[] = await db("workspace_users as wu")
    .join("users as u", "u.id", "wu.user_id")
    .whereIn("wu.workspace_id", workspaceIds.map(idBinding))
    .andWhere("wu.active", true)
    .orderByRaw("LOWER(u.fullname)")
    .orderBy("u.id")
    .select("wu.workspace_id", "wu.admin", "wu.user_id", "u.fullname");
  for (const r of rows) {
    const s = out.get(readId(r.workspace_id))!;
    s.members++;
    if (r.admin) s.admins.push({ name: String(r.fullname), user_id: readId(r.user_id) });
  }
  const groups: Record<string, unknown>[] = await db("group_workspaces").whereIn("workspace_id", workspaceIds.map(idBinding)).groupBy("workspace_id").select("workspace_id").count({ n: "*" });
  for (const g of groups) out.get(readId(g.workspace_id))!.groups = Number(g.n);
  return out;
}
