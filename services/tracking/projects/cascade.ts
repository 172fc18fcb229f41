import type { Knex } from "../../../lib/db.js";
import { idBinding } from "../../../lib/ids.js";
import type { Emit } from "../../../lib/storage.js";
import type { WorkspaceScope } from "../../../lib/workspace-scope.js";
import { projectNotOfClient } from "../errors.js";
import { projects, type ProjectRow } from "./store.js";
import { projectEvent } from "./view.js";

/**
 * Archives (active false) or restores (active true) projects of a client, in the client's change:
 * all of its live projects not already so, or the named ones, each of which must be a live project
 * of that client (400 otherwise). Answers the ids of the projects it changed, by id.
 */
export async function setClientProjectsActive(
  trx: Knex.Transaction,
  emit: Emit,
  scope: WorkspaceScope,
  clientId: bigint,
  active: boolean,
  which: "all" | bigint[],
  now: Date,
): Promise<bigint[]> {
  const q = projects.query(trx, scope.workspaceId).whereNull("server_deleted_at").orderBy("id").forUpdate();
  if (which === "all") q.andWhere({ client_id: clientId, active: !active });
  else if (which.length === 0) return [];
  else q.whereIn("id", which.map(idBinding));
  const rows: ProjectRow[] = (await q).map((raw: Record<string, unknown>) => projects.read(raw));
  if (which !== "all") {
    for (const id of which) {
      if (!rows.some((r) => r.id === id && r.client_id === clientId)) throw projectNotOfClient(id, clientId);
    }
  }
  const changed: bigint[] = [];
  for (const row of rows) {
    if (row.active === active) continue;
    const updated = await projects.update(trx, row, { active, at: now });
    await emit(await projectEvent(trx, "updated", updated, scope, now));
    changed.push(row.id);
  }
  return changed;
}

/** What deleting a client does to its projects: they stay, without client (each with its `project updated` event). */
export async function detachClientProjects(trx: Knex.Transaction, emit: Emit, scope: WorkspaceScope, clientId: bigint, now: Date): Promise<void> {
  const rows: ProjectRow[] = (await projects.query(trx, scope.workspaceId).where("client_id", idBinding(clientId)).orderBy("id").forUpdate()).map((raw: Record<string, unknown>) => projects.read(raw));
  for (const row of rows) {
    const updated = await projects.update(trx, row, { client_id: null, at: now });
    await emit(await projectEvent(trx, "updated", updated, scope, now));
  }
}
