import t from "tap";
import { ManualClock } from "../../../lib/clock.js";
import { OrganizationAdminService } from "../../../gen/accounts/v1/organizations_pb.js";
import { startTestSystem, type TestSystem, type TrackUser } from "../../../test/support/harness.js";
import { accountsDb, addMember, ownOrganization } from "./organization-support.js";
import {
  invalidJson, preferencesMissing, timeEntryLockNeedsPremium, workspacePreferenceInvalid, workspacePreferenceNotWritable,
} from "../errors.js";

/** A workspace's preferences: its members read them, its admins set duration-only mode and the lock date. */

const clock = new ManualClock(new Date("2026-03-01T12:00:00Z"));
const sys: TestSystem = await startTestSystem(t, { clock, services: ["accounts"] });
const db = await accountsDb(t, sys);
const plan = sys.directory.client("accounts", OrganizationAdminService);

/** Owner Olga (organization admin), workspace admin Wendy, member Max, organization admin Ada; a stranger of another organization. */
async function workspaceOf(prefix: string) {
  const olga = await sys.signup(`${prefix}olga`);
  const organizationId = await ownOrganization(sys, olga);
  const workspace = olga.workspaceId;
  const wendy = await sys.signup(`${prefix}wendy`);
  await addMember(db, organizationId, wendy);
  await db("workspace_users").where({ workspace_id: workspace, user_id: wendy.id }).update({ admin: true, role: "admin" });
  const max = await sys.signup(`${prefix}max`);
  await addMember(db, organizationId, max);
  const ada = await sys.signup(`${prefix}ada`);
  await addMember(db, organizationId, ada, { admin: true });
  const stranger = await sys.signup(`${prefix}stranger`);
  return { olga, organizationId, workspace, wendy, max, ada, stranger };
}

const w = await workspaceOf("g");

t.test("GET /workspaces/{id}/preferences answers the specification's fields and the logo to members", async (t) => {
  const res = await sys.api("GET", `/api/v9/workspaces/${w.workspace}/preferences`, { auth: w.max.auth });
  t.equal(res.status, 200, res.text);
  t.same(res.body, {
    "annual-master-campaign-2018": "",
    hide_start_end_times: false,
    inc_tos_accepted_at: null,
    inc_tos_accepted_by: null,
    initial_pricing_plan: 0,
    "january-2018-campaign": false,
    logo: "",
    master_signup: false,
    report_locked_at: null,
    single_sign_on: false,
    sso_requested_at: null,
  });
  const refused = await sys.api("GET", `/api/v9/workspaces/${w.workspace}/preferences`, { auth: w.stranger.auth });
  t.equal(refused.status, 403);
  t.equal(refused.body, "User does not have access to this resource.");
});

t.test("POST /workspaces/{id}/preferences: admins set duration-only mode and (premium) the lock date", async (t) => {
  const path = `/api/v9/workspaces/${w.workspace}/preferences`;
  const res = await sys.api("POST", path, { auth: w.wendy.auth, body: { hide_start_end_times: true } });
  t.equal(res.status, 200, res.text);
  t.equal(res.body.hide_start_end_times, true);
  const workspace = await sys.api("GET", `/api/v9/workspaces/${w.workspace}`, { auth: w.max.auth });
  t.equal(workspace.body.hide_start_end_times, true, "the workspace's own setting");

  const locked = await sys.api("POST", path, { auth: w.wendy.auth, body: { report_locked_at: "2026-02-01" } });
  t.equal(locked.status, 402);
  t.equal(locked.body, timeEntryLockNeedsPremium().rawMessage);
  await plan.setOrganizationPlan({ organizationId: BigInt(w.organizationId), paid: true });
  const premium = await sys.api("POST", path, { auth: w.wendy.auth, body: { report_locked_at: "2026-02-01" } });
  t.equal(premium.status, 200, premium.text);
  t.equal(premium.body.report_locked_at, "2026-02-01T00:00:00Z");
  t.equal(premium.body.initial_pricing_plan, 1);
  t.equal((await sys.api("GET", path, { auth: w.max.auth })).body.report_locked_at, "2026-02-01T00:00:00Z");
  await plan.setOrganizationPlan({ organizationId: BigInt(w.organizationId), paid: false });
  const unlocked = await sys.api("POST", path, { auth: w.wendy.auth, body: { report_locked_at: null } });
  t.equal(unlocked.status, 200, "unlocking needs no plan");
  t.equal(unlocked.body.report_locked_at, null);
});

t.test("POST /workspaces/{id}/preferences refuses read-only fields, bad values, members and strangers", async (t) => {
  const path = `/api/v9/workspaces/${w.workspace}/preferences`;
  const cases: [TrackUser, unknown, number, string][] = [
    [w.wendy, { single_sign_on: true }, 400, workspacePreferenceNotWritable().rawMessage],
    [w.wendy, { inc_tos_accepted_by: 1 }, 400, workspacePreferenceNotWritable().rawMessage],
    [w.wendy, { hide_start_end_times: "yes" }, 400, workspacePreferenceInvalid("hide_start_end_times").rawMessage],
    [w.wendy, { report_locked_at: "soon" }, 400, workspacePreferenceInvalid("report_locked_at").rawMessage],
    [w.wendy, { unknown: 1 }, 400, preferencesMissing().rawMessage],
    [w.wendy, [true], 400, invalidJson().rawMessage],
    [w.max, { hide_start_end_times: false }, 403, "Permission required to update time entries lock setting."],
    [w.stranger, { hide_start_end_times: false }, 403, "User does not have access to this resource."],
  ];
  for (const [who, body, status, message] of cases) {
    const res = await sys.api("POST", path, { auth: who.auth, body });
    t.equal(res.status, status, JSON.stringify(body));
    t.equal(res.body, message);
  }
  t.equal((await sys.api("GET", path, { auth: w.max.auth })).body.hide_start_end_times, true, "nothing changed");
});
