import t from "tap";
import { startTestSystem, type TestSystem, type TrackUser } from "../../../test/support/harness.js";
import { ManualClock } from "../../../lib/clock.js";
import { idBinding, jsonIds } from "../../../lib/ids.js";
import { projectUsers } from "../project-users/store.js";
import { eventObject, trackingWorld } from "./tracking-support.js";
import type { TrackingService } from "../index.js";
import { ProjectSchema } from "../../../gen/tracking/v1/projects_pb.js";
import {
  rateAccessDenied, rateAmountInvalid, rateEntityInvalid, rateLevelInvalid, rateModeInvalid, rateModeOrStartMissing,
  ratePayloadMissing, rateStartInvalid, rateTaskMissing, rateTypeInvalid,
} from "../errors.js";

/** Rates of projects, project users and tasks: their history, and the entity's current rate (workspace levels: rates-levels.test.ts). */

const clock = new ManualClock(new Date("2026-03-15T12:00:00Z"));
const sys: TestSystem = await startTestSystem(t, { clock });
const w = await trackingWorld(t, sys, clock);
const owner = w.owner;
const member = await w.join("member");
const stranger: TrackUser = await sys.signup("stranger");
const ws = `/api/v9/workspaces/${owner.workspaceId}`;

await w.setPlan(true);

const p = await w.project("Priced", { is_private: false });
const secret = await w.project("Hidden", { is_private: true });
const pu = await w.tracking.transaction((trx) =>
  projectUsers.insert(trx, { workspace_id: BigInt(owner.workspaceId), project_id: p.id, user_id: BigInt(member.id), manager: false, rate: null, labour_cost: null, rate_last_updated: null, labour_cost_last_updated: null, at: clock.now() }),
);
const taskRes = await sys.api("POST", `${ws}/projects/${p.id}/tasks`, { auth: owner.auth, body: { name: "Priced task" } });
const task = taskRes.body as { id: number };

const post = (body: unknown, user: TrackUser = owner) => sys.api("POST", `${ws}/rates`, { auth: user.auth, body });
const history = (level: string, id: bigint, query = "", user: TrackUser = owner) => sys.api("GET", `${ws}/rates/${level}/${id}${query}`, { auth: user.auth });

t.test("a rate from today becomes the project's rate; the history lists it", async (t) => {
  const res = await post({ level: "project", level_id: p.id, amount: 50, mode: "start-today", type: "billable_rates" });
  t.equal(res.status, 201, res.text);
  t.equal(res.text, "");
  const got = await sys.api("GET", `${ws}/projects/${p.id}`, { auth: owner.auth });
  t.equal(got.body.rate, 50);
  const list = await history("project", p.id);
  t.equal(list.status, 200);
  t.same(list.body, [{
    id: list.body[0].id, workspace_id: owner.workspaceId, workspace_user_id: null, project_id: p.id, project_user_id: null, planned_task_id: null,
    type: "billable_rates", amount: 50, start: "2026-03-15T00:00:00Z", end: null, rate_change_mode: "start-today", creator_id: owner.id,
    created_at: list.body[0].created_at, updated_at: list.body[0].updated_at, deleted_at: null,
  }]);
});

t.test("a later start ends the current rate there; override-current replaces the one that holds now", async (t) => {
  t.equal((await post({ level: "project", level_id: p.id, amount: 70, start: "2026-04-01T00:00:00Z" })).status, 201);
  let list = (await history("project", p.id)).body;
  t.same(list.map((r: { amount: number; end: string | null }) => [r.amount, r.end]), [[50, "2026-04-01T00:00:00Z"], [70, null]]);
  t.equal((await sys.api("GET", `${ws}/projects/${p.id}`, { auth: owner.auth })).body.rate, 50, "a future rate does not hold yet");

  t.equal((await post({ level: "project", level_id: p.id, amount: 55, mode: "override-current" })).status, 201);
  list = (await history("project", p.id)).body;
  t.same(list.map((r: { amount: number; deleted_at: string | null }) => [r.amount, r.deleted_at !== null]), [[50, true], [55, false], [70, false]]);
  t.equal((await sys.api("GET", `${ws}/projects/${p.id}`, { auth: owner.auth })).body.rate, 55);

  t.equal((await post({ level: "project", level_id: p.id, amount: 60, mode: "override-all" })).status, 201);
  list = (await history("project", p.id)).body;
  t.same(list.filter((r: { deleted_at: string | null }) => r.deleted_at === null).map((r: { amount: number }) => r.amount), [60]);
  t.equal((await sys.api("GET", `${ws}/projects/${p.id}`, { auth: owner.auth })).body.rate, 60);
});

t.test("project users take billable rates and labor costs; tasks take billable rates", async (t) => {
  t.equal((await post({ level: "project_user", level_id: pu.id, amount: 30, mode: "start-today" })).status, 201);
  t.equal((await post({ level: "project_user", level_id: pu.id, amount: 20, mode: "start-today", type: "labor_rates" })).status, 201);
  const row = await projectUsers.get(w.tracking, BigInt(owner.workspaceId), pu.id);
  t.match(row, { rate: 30, labour_cost: 20 });
  const labor = await history("project_user", pu.id, "?type=labor_costs");
  t.same(labor.body.map((r: { type: string; amount: number; project_user_id: number }) => [r.type, r.amount, r.project_user_id]), [["labor_costs", 20, pu.id]]);
  t.equal((await post({ level: "task", level_id: task.id, amount: 80, mode: "start-today" })).status, 201);
  const got = await sys.api("GET", `${ws}/projects/${p.id}/tasks/${task.id}`, { auth: owner.auth });
  t.equal(got.body.rate, 80);
  t.same((await history("task", BigInt(task.id))).body.map((r: { planned_task_id: number; project_id: number }) => [r.planned_task_id, r.project_id]), [[task.id, p.id]]);
});

t.test("bad bodies are refused with the rule's message", async (t) => {
  const ok = { level: "project", level_id: p.id, amount: 10, mode: "start-today" };
  const cases: [unknown, string][] = [
    [{}, ratePayloadMissing().rawMessage],
    [{ ...ok, level: "team" }, rateLevelInvalid().rawMessage],
    [{ ...ok, type: "costs" }, rateTypeInvalid().rawMessage],
    [{ ...ok, amount: 0 }, rateAmountInvalid().rawMessage],
    [{ ...ok, amount: undefined }, rateAmountInvalid().rawMessage],
    [{ ...ok, mode: undefined }, rateModeOrStartMissing().rawMessage],
    [{ ...ok, mode: "someday" }, rateModeInvalid().rawMessage],
    [{ ...ok, mode: undefined, start: "tomorrow" }, rateStartInvalid().rawMessage],
    [{ ...ok, level_id: 999999 }, rateEntityInvalid().rawMessage],
    [{ ...ok, level: "task", level_id: 999999 }, rateTaskMissing().rawMessage],
  ];
  for (const [body, message] of cases) {
    const res = await post(body);
    t.equal(res.status, 400, JSON.stringify(body, jsonIds));
    t.equal(res.body, message);
  }
  const list = await history("projects", p.id);
  t.equal(list.status, 400);
  t.equal(list.body, rateLevelInvalid().rawMessage);
});

t.test("who may: admins; managers change billable rates; members read them unless the workspace keeps them to admins", async (t) => {
  const body = { level: "project", level_id: p.id, amount: 10, mode: "start-today" };
  const refused = await post(body, member);
  t.equal(refused.status, 403);
  t.equal(refused.body, rateAccessDenied().rawMessage);
  t.equal((await history("project", p.id, "", member)).status, 200);
  t.equal((await history("project_user", pu.id, "?type=labor_costs", member)).status, 403, "labor costs are for admins");
  await projectUsers.query(w.tracking, BigInt(owner.workspaceId)).where("id", idBinding(pu.id)).update({ manager: true });
  t.equal((await post(body, member)).status, 201, "a manager of the project may");
  await w.setWorkspace({ only_admins_see_billable_rates: true });
  t.teardown(() => w.setWorkspace({ only_admins_see_billable_rates: false }));
  t.equal((await history("project", p.id, "", member)).status, 403);
  const hidden = await history("project", secret.id, "", member);
  t.equal(hidden.status, 400, "a private project the member is not in is not there");
  t.equal(hidden.body, rateEntityInvalid().rawMessage);
  t.equal((await post(body, stranger)).status, 403);
});

t.test("a rate that begins later becomes the entity's rate when it begins, once, with the entity's event", async (t) => {
  const scheduler = (sys.services.get("tracking") as TrackingService).rates;
  const later = await w.project("Later", { is_private: false });
  t.equal((await post({ level: "project", level_id: later.id, amount: 40, mode: "start-today" })).status, 201);
  const begins = new Date(clock.now().getTime() + 3 * 3_600_000);
  t.equal((await post({ level: "project", level_id: later.id, amount: 90, start: begins.toISOString() })).status, 201);
  const rateOf = async () => (await sys.api("GET", `${ws}/projects/${later.id}`, { auth: owner.auth })).body.rate;
  const updates = async () => (await w.events("project")).filter((e) => e.action === "updated" && e.object && String(eventObject(e, ProjectSchema).id) === String(later.id)).length;
  await scheduler.tick();
  t.equal(await rateOf(), 40, "not before it begins");
  const before = await updates();
  clock.advance(3 * 3_600_000);
  await scheduler.tick();
  t.equal(await rateOf(), 90, "from its start on");
  t.equal(await updates(), before + 1, "with the project's event");
  await scheduler.tick();
  t.equal(await updates(), before + 1, "applied once");
});
