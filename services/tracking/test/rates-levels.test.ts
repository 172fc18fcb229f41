import t from "tap";
import { fromBinary } from "@bufbuild/protobuf";
import { WorkspaceSchema } from "../../../gen/accounts/v1/workspaces_pb.js";
import { WorkspaceUserSchema } from "../../../gen/accounts/v1/organizations_pb.js";
import { EventSchema } from "../../../gen/events/v1/event_pb.js";
import { startTestSystem, type TestSystem, type TrackUser } from "../../../test/support/harness.js";
import { ManualClock } from "../../../lib/clock.js";
import { eventObject, trackingWorld } from "./tracking-support.js";
import type { AccountsService } from "../../accounts/index.js";
import { rateWorkspaceInvalid, rateWorkspaceUserMissing } from "../../accounts/errors.js";
import { rateAccessDenied, rateAmountInvalid, rateModeInvalid, rateModeOrStartMissing, rateStartInvalid, rateTypeInvalid } from "../errors.js";

/**
 * Rates of workspaces and workspace users: served by the tracking service's RateService, kept by
 * the accounts service, whose workspace and workspace user answers follow the current rate.
 */

const clock = new ManualClock(new Date("2026-03-15T12:00:00Z"));
const sys: TestSystem = await startTestSystem(t, { clock });
const w = await trackingWorld(t, sys, clock);
const owner = w.owner;
const member = await w.join("member");
const worker = await w.join("worker");
const stranger: TrackUser = await sys.signup("stranger");
const ws = `/api/v9/workspaces/${owner.workspaceId}`;

await w.setPlan(true);

type Listed = { id: number; user_id: number; rate: number | null; labour_cost: number | null; rate_last_updated: string | null };
const workspaceUsers = async (): Promise<Listed[]> => (await sys.api("GET", `${ws}/workspace_users`, { auth: owner.auth })).body;
const membershipOf = async (user: TrackUser) => (await workspaceUsers()).find((u) => u.user_id === user.id)!;
const workerWu = (await membershipOf(worker)).id;
const memberWu = (await membershipOf(member)).id;
const strangerWu = (await sys.api("GET", `/api/v9/workspaces/${stranger.workspaceId}/workspace_users`, { auth: stranger.auth })).body[0].id as number;

const post = (body: unknown, user: TrackUser = owner) => sys.api("POST", `${ws}/rates`, { auth: user.auth, body });
const history = (level: string, id: number, query = "", user: TrackUser = owner) => sys.api("GET", `${ws}/rates/${level}/${id}${query}`, { auth: user.auth });
const workspace = async () => (await sys.api("GET", ws, { auth: owner.auth })).body as { default_hourly_rate: number; rate_last_updated: string | null };
const accountsEvents = async (entity: string) => {
  const rows: { data: Buffer }[] = await w.accounts("outbox").orderBy("seq").select("data");
  return rows.map((r) => fromBinary(EventSchema, new Uint8Array(r.data))).filter((e) => e.entity === entity && e.action === "updated");
};
type Span = { amount: number; start: string; end: string | null; deleted_at: string | null };
const spans = (list: Span[]) => list.map((r) => [r.amount, r.start, r.end, r.deleted_at !== null]);

t.test("a workspace rate from today becomes its default hourly rate, with the workspace's event; the history lists it", async (t) => {
  const before = (await accountsEvents("workspace")).length;
  const res = await post({ level: "workspace", level_id: owner.workspaceId, amount: 45, mode: "start-today", type: "billable_rates" });
  t.equal(res.status, 201, res.text);
  t.equal(res.text, "");
  const got = await workspace();
  t.equal(got.default_hourly_rate, 45);
  t.equal(new Date(got.rate_last_updated!).getTime(), Math.floor(clock.now().getTime() / 1000) * 1000, "rate_last_updated is now");
  const events = await accountsEvents("workspace");
  t.equal(events.length, before + 1, "one workspace updated event");
  t.equal(eventObject(events.at(-1)!, WorkspaceSchema).defaultHourlyRate, 45);
  const list = await history("workspace", owner.workspaceId);
  t.equal(list.status, 200);
  t.same(list.body, [{
    id: list.body[0].id, workspace_id: owner.workspaceId, workspace_user_id: null, project_id: null, project_user_id: null, planned_task_id: null,
    type: "billable_rates", amount: 45, start: "2026-03-15T00:00:00Z", end: null, rate_change_mode: "start-today", creator_id: owner.id,
    created_at: list.body[0].created_at, updated_at: list.body[0].updated_at, deleted_at: null,
  }]);
});

t.test("workspace rates: a later start ends the current one there; override-current replaces the one that holds now; override-all every one", async (t) => {
  t.equal((await post({ level: "workspace", level_id: owner.workspaceId, amount: 70, start: "2026-04-01T00:00:00Z" })).status, 201);
  let list = (await history("workspace", owner.workspaceId)).body;
  t.same(spans(list), [[45, "2026-03-15T00:00:00Z", "2026-04-01T00:00:00Z", false], [70, "2026-04-01T00:00:00Z", null, false]]);
  t.equal((await workspace()).default_hourly_rate, 45, "a future rate does not hold yet");

  t.equal((await post({ level: "workspace", level_id: owner.workspaceId, amount: 55, mode: "override-current" })).status, 201);
  list = (await history("workspace", owner.workspaceId)).body;
  t.same(spans(list), [[45, "2026-03-15T00:00:00Z", "2026-04-01T00:00:00Z", true], [55, "2026-03-15T00:00:00Z", "2026-04-01T00:00:00Z", false], [70, "2026-04-01T00:00:00Z", null, false]]);
  t.equal((await workspace()).default_hourly_rate, 55);

  t.equal((await post({ level: "workspace", level_id: owner.workspaceId, amount: 60, mode: "override-all" })).status, 201);
  list = (await history("workspace", owner.workspaceId)).body;
  t.same(list.filter((r: Span) => r.deleted_at === null).map((r: Span) => [r.amount, r.start, r.end]), [[60, "2026-03-15T00:00:00Z", null]]);
  t.equal((await workspace()).default_hourly_rate, 60);
});

t.test("a workspace's labor costs are history only: its default hourly rate stays", async (t) => {
  t.equal((await post({ level: "workspace", level_id: owner.workspaceId, amount: 30, mode: "start-today", type: "labor_rates" })).status, 201);
  t.equal((await workspace()).default_hourly_rate, 60);
  const labor = (await history("workspace", owner.workspaceId, "?type=labor_costs")).body;
  t.same(labor.map((r: { type: string; amount: number }) => [r.type, r.amount]), [["labor_costs", 30]]);
  t.equal((await history("workspace", owner.workspaceId)).body.filter((r: Span) => r.deleted_at === null).length, 1, "billable rates apart");
});

t.test("a workspace user's billable rate and labor cost become its rate and labour cost, with workspace_user events", async (t) => {
  const before = (await accountsEvents("workspace_user")).length;
  t.equal((await post({ level: "workspace_user", level_id: workerWu, amount: 35.5, mode: "start-today" })).status, 201);
  t.equal((await post({ level: "workspace_user", level_id: workerWu, amount: 20, mode: "override-current", type: "labor_rates" })).status, 201);
  const listed = await membershipOf(worker);
  t.match(listed, { rate: 35.5, labour_cost: 20 });
  t.ok(listed.rate_last_updated, "rate_last_updated is set");
  const events = (await accountsEvents("workspace_user")).slice(before);
  t.same(events.map((e) => { const m = eventObject(e, WorkspaceUserSchema); return [Number(m.id), m.rate, Number(m.labourCost ?? -1)]; }), [[workerWu, 35.5, -1], [workerWu, 35.5, 20]]);
  const billable = (await history("workspace_user", workerWu)).body;
  t.same(billable.map((r: { workspace_user_id: number; project_id: number | null; amount: number; type: string }) => [r.workspace_user_id, r.project_id, r.amount, r.type]), [[workerWu, null, 35.5, "billable_rates"]]);
  const labor = (await history("workspace_user", workerWu, "?type=labor_costs")).body;
  t.same(labor.map((r: { workspace_user_id: number; amount: number; type: string; start: string; rate_change_mode: string }) => [r.workspace_user_id, r.amount, r.type, r.rate_change_mode]), [[workerWu, 20, "labor_costs", "override-current"]]);
  t.equal((await membershipOf(member)).rate, null, "another member keeps its rate");

  t.equal((await post({ level: "workspace_user", level_id: workerWu, amount: 40, mode: "override-all" })).status, 201);
  t.equal((await membershipOf(worker)).rate, 40);
  t.same((await history("workspace_user", workerWu)).body.map((r: Span) => [r.amount, r.deleted_at !== null]), [[35.5, true], [40, false]]);
});

t.test("a workspace or workspace user rate that begins later becomes the value when it begins, once, with the event", async (t) => {
  const scheduler = (sys.services.get("accounts") as AccountsService).rates;
  const begins = new Date(clock.now().getTime() + 3 * 3_600_000).toISOString();
  t.equal((await post({ level: "workspace", level_id: owner.workspaceId, amount: 95, start: begins })).status, 201);
  t.equal((await post({ level: "workspace_user", level_id: workerWu, amount: 25, start: begins, type: "labor_rates" })).status, 201);
  await scheduler.tick();
  t.equal((await workspace()).default_hourly_rate, 60, "not before it begins");
  t.equal((await membershipOf(worker)).labour_cost, 20);
  const workspaceUpdates = (await accountsEvents("workspace")).length;
  const userUpdates = (await accountsEvents("workspace_user")).length;
  clock.advance(3 * 3_600_000);
  await scheduler.tick();
  t.equal((await workspace()).default_hourly_rate, 95, "from its start on");
  t.equal((await membershipOf(worker)).labour_cost, 25);
  t.equal((await accountsEvents("workspace")).length, workspaceUpdates + 1, "with the workspace's event");
  t.equal((await accountsEvents("workspace_user")).length, userUpdates + 1, "with the workspace user's event");
  await scheduler.tick();
  t.equal((await accountsEvents("workspace")).length, workspaceUpdates + 1, "applied once");
  t.equal((await accountsEvents("workspace_user")).length, userUpdates + 1, "applied once");
});

t.test("only workspace admins change or read workspace and workspace user rates", async (t) => {
  const cases: [TrackUser, () => Promise<{ status: number; body: unknown }>][] = [
    [member, () => post({ level: "workspace", level_id: owner.workspaceId, amount: 10, mode: "start-today" }, member)],
    [member, () => post({ level: "workspace_user", level_id: memberWu, amount: 10, mode: "start-today" }, member)],
    [member, () => history("workspace", owner.workspaceId, "", member)],
    [member, () => history("workspace_user", memberWu, "?type=labor_costs", member)],
  ];
  for (const [, call] of cases) {
    const res = await call();
    t.equal(res.status, 403);
    t.equal(res.body, rateAccessDenied().rawMessage);
  }
  t.equal((await post({ level: "workspace", level_id: owner.workspaceId, amount: 10, mode: "start-today" }, stranger)).status, 403, "not a member");
  t.equal((await workspace()).default_hourly_rate, 95, "nothing changed");
  const admin = await w.join("boss", { admin: true });
  t.equal((await history("workspace", owner.workspaceId, "", admin)).status, 200, "another admin may");
});

t.test("another workspace's user or workspace is not found", async (t) => {
  const cases: [unknown, string][] = [
    [{ level: "workspace_user", level_id: strangerWu, amount: 10, mode: "start-today" }, rateWorkspaceUserMissing().rawMessage],
    [{ level: "workspace_user", level_id: 999999, amount: 10, mode: "start-today" }, rateWorkspaceUserMissing().rawMessage],
    [{ level: "workspace", level_id: stranger.workspaceId, amount: 10, mode: "start-today" }, rateWorkspaceInvalid().rawMessage],
  ];
  for (const [body, message] of cases) {
    const res = await post(body);
    t.equal(res.status, 400, JSON.stringify(body));
    t.equal(res.body, message);
  }
  const listed = await history("workspace_user", strangerWu);
  t.equal(listed.status, 400);
  t.equal(listed.body, rateWorkspaceUserMissing().rawMessage);
  const other = await history("workspace", stranger.workspaceId);
  t.equal(other.status, 400);
  t.equal(other.body, rateWorkspaceInvalid().rawMessage);
  t.equal((await sys.api("GET", `/api/v9/workspaces/${stranger.workspaceId}/rates/workspace/${stranger.workspaceId}`, { auth: owner.auth })).status, 403, "the path's workspace is the caller's");
});

t.test("bad bodies are refused with the rule's message and change nothing", async (t) => {
  const before = (await history("workspace_user", workerWu)).body;
  const ok = { level: "workspace_user", level_id: workerWu, amount: 10, mode: "start-today" };
  const cases: [unknown, string][] = [
    [{ ...ok, amount: 0 }, rateAmountInvalid().rawMessage],
    [{ ...ok, amount: -5 }, rateAmountInvalid().rawMessage],
    [{ ...ok, amount: undefined }, rateAmountInvalid().rawMessage],
    [{ ...ok, type: "labor_costs_please" }, rateTypeInvalid().rawMessage],
    [{ ...ok, mode: "someday" }, rateModeInvalid().rawMessage],
    [{ ...ok, mode: undefined }, rateModeOrStartMissing().rawMessage],
    [{ ...ok, mode: undefined, start: "2026-13-40" }, rateStartInvalid().rawMessage],
  ];
  for (const [body, message] of cases) {
    const res = await post(body);
    t.equal(res.status, 400, JSON.stringify(body));
    t.equal(res.body, message);
  }
  t.equal((await post({ ...ok, amount: "lots" })).status, 400, "an amount that is no number");
  t.same((await history("workspace_user", workerWu)).body, before, "the history is as it was");
  t.equal((await membershipOf(worker)).rate, 40);
  const badType = await history("workspace", owner.workspaceId, "?type=costs");
  t.equal(badType.status, 400);
  t.equal(badType.body, rateTypeInvalid().rawMessage);
});
