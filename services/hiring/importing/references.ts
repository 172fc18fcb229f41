import type { Knex } from "../../../lib/db.js";
import { badRequest } from "../../../lib/errors.js";
import { existingIds } from "./store.js";

/** A reference from one record to another, with the position to blame when it leads nowhere. */
export interface Reference {
  kind: "opening" | "category" | "tag";
  id: string;
  at: string;
}

const TABLE_OF_KIND = { opening: "openings", category: "categories", tag: "tags" } as const;

/** Every reference must lead to a record of the file (`defined`) or of the workspace. */
export async function checkReferences(db: Knex, workspaceId: string, references: Reference[], defined: Record<Reference["kind"], Set<string>>): Promise<void> {
  const found = { opening: new Set<string>(), category: new Set<string>(), tag: new Set<string>() };
  for (const kind of ["opening", "category", "tag"] as const) {
    const wanted = references.filter((r) => r.kind === kind && !defined[kind].has(r.id)).map((r) => r.id);
    if (wanted.length) found[kind] = await existingIds(db, TABLE_OF_KIND[kind], workspaceId, wanted);
  }
  const bad = references.find((r) => !defined[r.kind].has(r.id) && !found[r.kind].has(r.id));
  if (bad) throw badRequest(`${bad.at}: no ${bad.kind} ${bad.id} in this workspace`);
}
