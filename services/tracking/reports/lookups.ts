import { chunks } from "../../../lib/chunks.js";
import type { Knex } from "../../../lib/db.js";
import { compareIds, idBinding } from "../../../lib/ids.js";
import type { ScopedTable } from "../../../lib/scoped-table.js";
import { clients, type ClientRow } from "../clients/store.js";
import { projects, type ProjectRow } from "../projects/store.js";
import { tags, type TagRow } from "../tags/store.js";
import { tasks, type TaskRow } from "../tasks/store.js";

/**
 * What a report's rows refer to, read once per report by id: projects (with their clients), tasks
 * and live tags of the workspace. Reports sort and name by them; the rows themselves carry ids.
 */
export interface Lookups {
  projects: Map<bigint, ProjectRow>;
  clients: Map<bigint, ClientRow>;
  tasks: Map<bigint, TaskRow>;
  /** Live tags only: a deleted tag drops out of every entry, as in the time entry answers. */
  tags: Map<bigint, TagRow>;
}

/** The ids a report's rows name. */
export interface Wanted {
  projects?: Iterable<bigint | null>;
  clients?: Iterable<bigint | null>;
  tasks?: Iterable<bigint | null>;
  tags?: Iterable<bigint | null>;
}

const present = (ids: Iterable<bigint | null> | undefined) => [...new Set([...(ids ?? [])].filter((id): id is bigint => id !== null))];

async function byId<Row extends { id: bigint }>(table: ScopedTable<Row>, db: Knex, workspace: bigint, ids: bigint[], q?: (q: Knex.QueryBuilder) => void): Promise<Map<bigint, Row>> {
  const out = new Map<bigint, Row>();
  for (const part of chunks(ids)) {
    const query = table.query(db, workspace).whereIn("id", part.map(idBinding));
    q?.(query);
    for (const raw of (await query) as Record<string, unknown>[]) {
      const row = table.read(raw);
      out.set(row.id, row);
    }
  }
  return out;
}

/** The rows the ids name; the clients of the projects found come along. */
export async function lookups(db: Knex, workspace: bigint, wanted: Wanted): Promise<Lookups> {
  const projectRows = await byId(projects, db, workspace, present(wanted.projects));
  const clientIds = [...present(wanted.clients), ...[...projectRows.values()].map((p) => p.client_id).filter((id): id is bigint => id !== null)];
  return {
    projects: projectRows,
    clients: await byId(clients, db, workspace, [...new Set(clientIds)]),
    tasks: await byId(tasks, db, workspace, present(wanted.tasks)),
    tags: await byId(tags, db, workspace, present(wanted.tags), (q) => q.whereNull("deleted_at")),
  };
}

/** Compares names ignoring case; the unnamed ("without project" ...) last, then by id. */
export function byName<T extends { id: bigint | null }>(nameOf: (item: T) => string | undefined): (a: T, b: T) => number {
  return (a, b) => {
    const [na, nb] = [nameOf(a), nameOf(b)];
    if (na === undefined || nb === undefined) return na === nb ? compareIds(a.id ?? 0n, b.id ?? 0n) : na === undefined ? 1 : -1;
    return na.toLowerCase().localeCompare(nb.toLowerCase()) || compareIds(a.id ?? 0n, b.id ?? 0n);
  };
}
