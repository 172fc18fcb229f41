import { fromBinary } from "@bufbuild/protobuf";
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import { EventSchema, type Event } from "../../../gen/events/v1/event_pb.js";
import { WorkspaceUserSchema, type WorkspaceUser } from "../../../gen/accounts/v1/organizations_pb.js";
import { connectDatabase, type Knex } from "../../../lib/db.js";
import type { TestContext, TestSystem, TrackUser } from "../../../test/support/harness.js";

/**
 * What the organization tests share. Invitations do not exist yet, so a second user joins an
 * organization here by rows written into the accounts schema, as accepting an invitation will.
 */

/** The accounts schema of the test system (closed at teardown). */
export async function accountsDb(t: TestContext, sys: TestSystem): Promise<Knex> {
  const db = await connectDatabase(sys.config, "accounts");
  t.teardown(() => db.destroy());
  return db;
}

/** The id of the organization the user owns from sign-up. */
export async function ownOrganization(sys: TestSystem, user: TrackUser): Promise<number> {
  const res = await sys.api("GET", "/api/v9/me/organizations", { auth: user.auth });
  if (res.status !== 200) throw new Error(`me/organizations: ${res.status} ${res.text}`);
  const owned = res.body.filter((o: { owner: boolean }) => o.owner);
  if (owned.length !== 1) throw new Error(`expected one owned organization, got ${res.text}`);
  return owned[0].id;
}

/** The ids of the organization's workspaces. */
export async function workspacesOf(db: Knex, organizationId: number): Promise<number[]> {
  return (await db("workspaces").where({ organization_id: organizationId }).orderBy("id").pluck("id")).map(Number);
}

export interface Membership {
  admin?: boolean;
  inactive?: boolean;
  /** False: invited, not joined yet. */
  joined?: boolean;
  /** Workspaces of the organization the user is a member of (all of them unless given). */
  workspaces?: readonly number[];
}

/** Makes the user a member of the organization (and of its workspaces); answers the organization user id. */
export async function addMember(db: Knex, organizationId: number, user: TrackUser, m: Membership = {}): Promise<number> {
  const joined = m.joined ?? true;
  const inactive = m.inactive ?? false;
  const [id] = await db("organization_users").insert({
    organization_id: organizationId,
    user_id: user.id,
    admin: m.admin ?? false,
    owner: false,
    inactive,
    joined,
    role: m.admin ? "admin" : "user",
  });
  for (const workspaceId of m.workspaces ?? (await workspacesOf(db, organizationId))) {
    await db("workspace_users").insert({ workspace_id: workspaceId, user_id: user.id, admin: false, role: "user", active: joined && !inactive });
  }
  return Number(id);
}

/** The organization user id of the user in the organization. */
export async function organizationUserId(db: Knex, organizationId: number, userId: number): Promise<number> {
  const row = await db("organization_users").where({ organization_id: organizationId, user_id: userId }).first("id");
  return Number(row.id);
}

/** The accounts service's events so far (its outbox, published or not), oldest first. */
export async function accountEvents(db: Knex): Promise<Event[]> {
  const rows: { data: Buffer }[] = await db("outbox").orderBy("seq").select("data");
  return rows.map((r) => fromBinary(EventSchema, new Uint8Array(r.data)));
}

/** The workspace user an event carries. */
export function workspaceUserOf(event: Event): WorkspaceUser {
  return anyUnpack(event.object!, WorkspaceUserSchema)!;
}
