import t from "tap";
import { startTestSystem, type TestSystem, type TrackUser } from "../../../test/support/harness.js";
import { accountsDb, addMember, ownOrganization, workspacesOf } from "./organization-support.js";
import { auditRangeInvalid, auditTimeInvalid } from "../errors.js";
import { create, toBinary } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { EventSchema } from "../../../gen/events/v1/event_pb.js";
import { InProcessBus } from "../../../lib/bus.js";
import { createLogger, type Logger } from "../../../lib/logger.js";
import { AuditRecorder } from "../audit-logs/recorder.js";

/** The audit log: tracking and accounts events of the stream, and the accounts' own changes, per organization. */

const sys: TestSystem = await startTestSystem(t);
const db = await accountsDb(t, sys);

const owner = await sys.signup("auditowner");
const organizationId = await ownOrganization(sys, owner);
const [workspace] = await workspacesOf(db, organizationId);
const member = await sys.signup("auditmember");
await addMember(db, organizationId, member);
const stranger = await sys.signup("auditstranger");
const strangerOrganization = await ownOrganization(sys, stranger);

const as = (user: TrackUser) => ({ auth: user.auth });
const from = "2000-01-01T00:00:00Z";
const to = "2100-01-01T00:00:00+00:00";
const logs = (query = "", user: TrackUser = owner, org = organizationId, range = `${from}/${to}`) => sys.api("GET", `/api/v9/audit_logs/${org}/${range}${query}`, as(user));

/** Waits until the organization's log holds `n` rows (the relay publishes after the commit). */
async function rows(n: number, org = organizationId): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const count = Number((await db("audit_logs").where({ organization_id: org }).count({ n: "*" }))[0].n);
    if (count >= n) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`the audit log did not reach ${n} rows`);
}

t.test("tracking and accounts changes are recorded with who, what and where; newest first", async (t) => {
  const client = await sys.api("POST", `/api/v9/workspaces/${workspace}/clients`, { ...as(owner), body: { name: "Audited client" } });
  t.equal(client.status, 200, client.text);
  const project = await sys.api("POST", `/api/v9/workspaces/${workspace}/projects`, { ...as(member), body: { name: "Audited project" } });
  t.equal(project.status, 200, project.text);
  const role = await sys.api("POST", `/api/v9/roles/1/${organizationId}`, { ...as(owner), body: { code: "audited", name: "Audited" } });
  t.equal(role.status, 201, role.text);
  await rows(4);

  const res = await logs();
  t.equal(res.status, 200, res.text);
  const byEntity = (type: string) => res.body.filter((r: { entity_type: string }) => r.entity_type === type);
  t.match(byEntity("client")[0], { source: "tracking", action: "created", user_id: owner.id, workspace_id: workspace, entity_id: client.body.id, organization_id: organizationId, details: { name: "Audited client" } });
  t.match(byEntity("project")[0], { source: "tracking", action: "created", user_id: member.id, entity_id: project.body.id });
  t.match(byEntity("role")[0], { source: "accounts", action: "created", user_id: owner.id, workspace_id: null, entity_id: role.body.role_id });
  t.same(Object.keys(res.body[0]).sort(), ["action", "created_at", "details", "entity_id", "entity_type", "id", "organization_id", "source", "user_id", "workspace_id"]);
  const times = res.body.map((r: { created_at: string }) => r.created_at);
  t.same(times, [...times].sort().reverse(), "newest first");

  const filtered = await logs(`?entity_type=client&user_id=${owner.id}&workspace_id=${workspace}&action=created`);
  t.same(filtered.body.map((r: { entity_id: number }) => r.entity_id), [client.body.id]);
  const byId = await logs(`?entity_type=project&entity_id=${project.body.id}`);
  t.equal(byId.body.length, 1);
  const page = await logs("?page_size=1&page_number=2");
  t.same(page.body, [res.body[1]], "paged");
  const beyond = await logs("?page_size=1&page_number=1000");
  t.same(beyond.body, []);
  const all = await logs("?export=true&page_size=1");
  t.equal(all.body.length, res.body.length, "export answers every row");
  const before = await logs("", owner, organizationId, `${from}/2001-01-01T00:00:00Z`);
  t.same(before.body, [], "outside the range");

  const theirs = await logs("", stranger, strangerOrganization);
  t.notOk(theirs.body.some((r: { entity_type: string }) => r.entity_type === "client"), "another organization's log holds none of it");
});

t.test("only the organization's admins read it; bad ranges are 400", async (t) => {
  const denied = await logs("", member);
  t.same([denied.status, denied.body], [403, "User does not have access to the audit logs"]);
  const foreign = await logs("", stranger);
  t.same([foreign.status, foreign.body], [403, "User does not have access to the audit logs"]);
  const bad = await logs("", owner, organizationId, `yesterday/${to}`);
  t.same([bad.status, bad.body], [400, auditTimeInvalid("from").rawMessage]);
  const badTo = await logs("", owner, organizationId, `${from}/2020-13-45`);
  t.same([badTo.status, badTo.body], [400, auditTimeInvalid("to").rawMessage]);
  const reversed = await logs("", owner, organizationId, `${to}/${from}`);
  t.same([reversed.status, reversed.body], [400, auditRangeInvalid().rawMessage]);
  const big = await logs("?page_size=5000");
  t.equal(big.status, 400);
});

t.test("the recorder: a redelivered event is one row; other services' events and unknown workspaces are skipped", async (t) => {
  const recorder = new AuditRecorder(db, new InProcessBus(), createLogger("silent"));
  const message = (id: string, service: string, workspaceId: string) => ({
    subject: "x",
    id,
    data: toBinary(EventSchema, create(EventSchema, { id, service, workspaceId, entity: "tag", action: "deleted", objectId: "77", userId: BigInt(owner.id), occurredAt: timestampFromDate(new Date()) })),
  });
  const count = async (eventId: string) => Number((await db("audit_logs").where({ event_id: eventId }).count({ n: "*" }))[0].n);
  await recorder.record([message("evt-redelivered", "tracking", String(workspace))]);
  await recorder.record([message("evt-redelivered", "tracking", String(workspace))]);
  t.equal(await count("evt-redelivered"), 1);
  await recorder.record([message("evt-hiring", "hiring", String(workspace))]);
  t.equal(await count("evt-hiring"), 0, "hiring events are no organization's");
  await recorder.record([message("evt-nowhere", "tracking", "99999999")]);
  t.equal(await count("evt-nowhere"), 0, "a workspace of no organization");
  await recorder.record([{ subject: "x", id: "junk", data: new Uint8Array([255, 255, 255]) }]);
  // A batch as the bus hands it: one row for each audited event in it, the rest skipped, a
  // redelivered one kept once.
  await recorder.record([
    message("evt-batch-1", "tracking", String(workspace)),
    { subject: "x", id: "junk-2", data: new Uint8Array([255, 255, 255]) },
    message("evt-batch-2", "hiring", String(workspace)),
    message("evt-batch-3", "accounts", String(workspace)),
    message("evt-redelivered", "tracking", String(workspace)),
  ]);
  t.same([await count("evt-batch-1"), await count("evt-batch-2"), await count("evt-batch-3"), await count("evt-redelivered")], [1, 0, 1, 1]);
  // Another service's subject is enough to pass a message over, unread.
  const logged: string[] = [];
  const watched = new AuditRecorder(db, new InProcessBus(), { error: (_: unknown, m: string) => logged.push(m) } as unknown as Logger);
  await watched.record([{ subject: `hiring.${workspace}.candidate.created`, id: "junk-3", data: new Uint8Array([255, 255, 255]) }]);
  t.same(logged, [], "not decoded");
  await watched.record([{ subject: `tracking.${workspace}.tag.deleted`, id: "junk-4", data: new Uint8Array([255, 255, 255]) }]);
  t.equal(logged.length, 1, "an audited service's message is read (and this one, no event, skipped)");
  const [row] = await db("audit_logs").where({ event_id: "evt-redelivered" });
  t.match(row, { organization_id: organizationId, entity_type: "tag", action: "deleted", entity_id: "77", source: "tracking" });
});
