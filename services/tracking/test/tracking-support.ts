import type { Test } from "tap";
import { fromBinary } from "@bufbuild/protobuf";
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import type { DescMessage, MessageShape } from "@bufbuild/protobuf";
import { IdentityService } from "../../../gen/accounts/v1/accounts_pb.js";
import { EventSchema, type Event } from "../../../gen/events/v1/event_pb.js";
import { connectDatabase, type Knex } from "../../../lib/db.js";
import { jsonIds } from "../../../lib/ids.js";
import type { ManualClock } from "../../../lib/clock.js";
import { WORKSPACE_ACCESS_TTL_MS } from "../../../lib/workspace-scope.js";
import type { Credentials, TestContext, TestSystem, TrackUser } from "../../../test/support/harness.js";
import { accountsDb, addMember, ownOrganization } from "../../accounts/test/organization-support.js";
import { projects, type ProjectRow } from "../projects/store.js";

/**
 * What the tests of the tracking resources that involve several members share: a second user
 * joining a workspace, workspace settings and plans written as the accounts service keeps them,
 * requests that must succeed, and the tracking service's events.
 */
export interface TrackingWorld {
  sys: TestSystem;
  clock: ManualClock;
  accounts: Knex;
  tracking: Knex;
  owner: TrackUser;
  organizationId: number;
  /** Signs a user up and makes them a plain member (or admin) of the owner's workspace. */
  join(name: string, options?: { admin?: boolean }): Promise<TrackUser>;
  /** Changes columns of the owner's workspace row and lets the tracking service's remembered access lapse. */
  setWorkspace(columns: Record<string, unknown>): Promise<void>;
  /** The tracking service's events of `entity` so far, oldest first. */
  events(entity: string): Promise<Event[]>;
  /** A project of the owner's workspace (or another), written as the projects endpoints store it. */
  project(name: string, values?: Partial<ProjectRow>): Promise<ProjectRow>;
  /** A request as `user` (the owner unless given) that must be answered 200: its parsed body. */
  call(method: string, path: string, body?: unknown, user?: TrackUser): Promise<any>;
  /** Puts the owner's workspace on the paid plan (premium: true) or the free one, as the accounts service keeps it, and lets the tracking service's remembered access lapse. */
  setPlan(premium: boolean): Promise<void>;
}

export async function trackingWorld(t: TestContext, sys: TestSystem, clock: ManualClock): Promise<TrackingWorld> {
  const accounts = await accountsDb(t, sys);
  const tracking = await connectDatabase(sys.config, "tracking");
  t.teardown(() => tracking.destroy());
  const owner = await sys.signup("owner");
  const organizationId = await ownOrganization(sys, owner);
  return {
    sys,
    clock,
    accounts,
    tracking,
    owner,
    organizationId,
    async join(name, options = {}) {
      const user = await sys.signup(name);
      await addMember(accounts, organizationId, user, { workspaces: [owner.workspaceId] });
      if (options.admin) await accounts("workspace_users").where({ workspace_id: owner.workspaceId, user_id: user.id }).update({ admin: true, role: "admin" });
      clock.advance(5_001);
      return user;
    },
    async setWorkspace(columns) {
      await accounts("workspaces").where({ id: owner.workspaceId }).update(columns);
      clock.advance(WORKSPACE_ACCESS_TTL_MS + 1);
    },
    async project(name, values = {}) {
      const now = clock.now();
      return tracking.transaction((trx) =>
        projects.insert(trx, {
          workspace_id: BigInt(owner.workspaceId), client_id: null, name, sort_name: name.toLowerCase(), active: true, is_private: false, color: "#0b83d9",
          billable: null, template: false, template_id: null, auto_estimates: null, estimated_seconds: null, currency: null, fixed_fee: null,
          rate: null, rate_last_updated: null, recurring: false, recurring_parameters: null, start_date: "2025-01-01", end_date: null,
          creator_id: BigInt(owner.id), created_at: now, at: now, server_deleted_at: null, ...values,
        }),
      );
    },
    async call(method, path, body, user = owner) {
      const res = await sys.api(method, path, { auth: user.auth, body });
      if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
      return res.body;
    },
    async setPlan(premium) {
      await sys.directory.client("accounts", IdentityService).setWorkspacePlan({ workspaceId: BigInt(owner.workspaceId), premium });
      clock.advance(WORKSPACE_ACCESS_TTL_MS + 1);
    },
    async events(entity) {
      const rows: { data: Buffer }[] = await tracking("outbox").orderBy("seq").select("data");
      return rows.map((r) => fromBinary(EventSchema, new Uint8Array(r.data))).filter((e) => e.entity === entity);
    },
  };
}

/** The entity an event carries. */
export function eventObject<Desc extends DescMessage>(event: Event, schema: Desc): MessageShape<Desc> {
  return anyUnpack(event.object!, schema) as MessageShape<Desc>;
}

/** Each body is refused with `status` and its message; then a body that is no JSON with "Invalid JSON input". */
export async function expectRefusals(
  t: Test,
  sys: TestSystem,
  request: { method: string; path: string; auth: Credentials },
  cases: readonly (readonly [unknown, string])[],
  status = 400,
): Promise<void> {
  for (const [body, message] of cases) {
    const res = await sys.api(request.method, request.path, { auth: request.auth, body });
    t.equal(res.status, status, JSON.stringify(body, jsonIds));
    t.equal(res.body, message);
  }
  const malformed = await sys.api(request.method, request.path, { auth: request.auth, rawBody: "{nope", headers: { "content-type": "application/json" } });
  t.equal(malformed.status, 400, "malformed JSON");
  t.equal(malformed.body, "Invalid JSON input");
}
