import t from "tap";
import { ManualClock } from "../../../lib/clock.js";
import { OrganizationAdminService } from "../../../gen/accounts/v1/organizations_pb.js";
import { startTestSystem, type TestSystem } from "../../../test/support/harness.js";
import { flagKeyTooLong, flagsInvalid, flagValueTooLong, invalidJson, preferencesClientUnknown, preferencesMissing, tooManyFlags, tooManyFlagsInRequest } from "../errors.js";
import { WORKSPACE_FEATURES } from "../caller/rules.js";
import { accountsDb, addMember, ownOrganization } from "./organization-support.js";

/** What the caller's clients ask about the caller: features, flags, location, and preferences by client. */

const clock = new ManualClock(new Date("2026-03-01T12:00:00Z"));
const sys: TestSystem = await startTestSystem(t, { clock, services: ["accounts"] });
const db = await accountsDb(t, sys);
const plan = sys.directory.client("accounts", OrganizationAdminService);

t.test("GET /me/features answers each of the caller's workspaces with its features, by plan", async (t) => {
  const owner = await sys.signup("featured");
  const paid = await sys.signup("paidowner");
  const paidOrganization = await ownOrganization(sys, paid);
  await plan.setOrganizationPlan({ organizationId: BigInt(paidOrganization), paid: true });
  await addMember(db, paidOrganization, owner);

  const res = await sys.api("GET", "/api/v9/me/features", { auth: owner.auth });
  t.equal(res.status, 200, res.text);
  t.same(res.body.map((w: { workspace_id: number }) => w.workspace_id).sort(), [owner.workspaceId, paid.workspaceId].sort());
  const free = res.body.find((w: { workspace_id: number }) => w.workspace_id === owner.workspaceId);
  const premium = res.body.find((w: { workspace_id: number }) => w.workspace_id === paid.workspaceId);
  t.equal(free.features.length, WORKSPACE_FEATURES.length);
  t.same(free.features.find((f: { name: string }) => f.name === "time_tracking"), { enabled: true, feature_id: 1, name: "time_tracking" });
  t.same(free.features.find((f: { name: string }) => f.name === "billable_rates"), { enabled: false, feature_id: 10, name: "billable_rates" });
  t.ok(premium.features.every((f: { enabled: boolean }) => f.enabled), "a paid organization's workspace has every feature");

  const stranger = await sys.signup("featureless");
  const theirs = await sys.api("GET", "/api/v9/me/features", { auth: stranger.auth });
  t.same(theirs.body.map((w: { workspace_id: number }) => w.workspace_id), [stranger.workspaceId], "only the caller's own workspaces");
  t.equal((await sys.api("GET", "/api/v9/me/features")).status, 403, "credentials needed");
});

t.test("flags: none at first, set by POST (answering all of them), kept per user", async (t) => {
  const user = await sys.signup("flagger");
  const other = await sys.signup("otherflagger");
  t.same((await sys.api("GET", "/api/v9/me/flags", { auth: user.auth })).body, {});

  const set = await sys.api("POST", "/api/v9/me/flags", { auth: user.auth, body: { seen_tour: true, theme: "dark" } });
  t.equal(set.status, 200, set.text);
  t.same(set.body, { seen_tour: true, theme: "dark" });
  const more = await sys.api("POST", "/api/v9/me/flags", { auth: user.auth, body: { theme: "light", visits: 3, layout: { compact: true } } });
  t.same(more.body, { layout: { compact: true }, seen_tour: true, theme: "light", visits: 3 }, "merged, a key set again replaced");
  t.same((await sys.api("GET", "/api/v9/me/flags", { auth: user.auth })).body, more.body);

  const removed = await sys.api("POST", "/api/v9/me/flags", { auth: user.auth, body: { visits: null } });
  t.same(removed.body, { layout: { compact: true }, seen_tour: true, theme: "light" }, "null removes a flag");
  t.same((await sys.api("GET", "/api/v9/me/flags", { auth: other.auth })).body, {}, "another user's flags are their own");
  t.equal((await sys.api("GET", "/api/v9/me/flags")).status, 403);
});

t.test("flags are refused beyond the specification's limits, changing nothing", async (t) => {
  const user = await sys.signup("limits");
  const cases: [unknown, string][] = [
    [{}, flagsInvalid().rawMessage],
    [[1, 2], flagsInvalid().rawMessage],
    ["text", flagsInvalid().rawMessage],
    [{ "": 1 }, flagsInvalid().rawMessage],
    [{ a: 1, b: 2, c: 3, d: 4, e: 5 }, tooManyFlagsInRequest(4).rawMessage],
    [{ ["k".repeat(33)]: 1 }, flagKeyTooLong(32).rawMessage],
    [{ k: "v".repeat(65) }, flagValueTooLong(64).rawMessage],
    [{ k: ["x".repeat(30), "y".repeat(30)] }, flagValueTooLong(64).rawMessage],
  ];
  for (const [body, message] of cases) {
    const res = await sys.api("POST", "/api/v9/me/flags", { auth: user.auth, body });
    t.equal(res.status, 400, JSON.stringify(body).slice(0, 40));
    t.equal(res.body, message);
  }
  t.equal((await sys.api("POST", "/api/v9/me/flags", { auth: user.auth, body: { ["k".repeat(32)]: "v".repeat(64) } })).status, 200, "the limits themselves are allowed");
  const malformed = await sys.api("POST", "/api/v9/me/flags", { auth: user.auth, rawBody: "{not json", headers: { "content-type": "application/json" } });
  t.equal(malformed.status, 400);
  t.same((await sys.api("GET", "/api/v9/me/flags", { auth: user.auth })).body, { ["k".repeat(32)]: "v".repeat(64) });
});

t.test("a user holds at most 128 flags", async (t) => {
  const user = await sys.signup("hoarder");
  await db("user_flags").insert(Array.from({ length: 127 }, (_, i) => ({ user_id: user.id, flag: `f${String(i).padStart(3, "0")}`, value: "true", updated_at: new Date() })));
  t.equal((await sys.api("POST", "/api/v9/me/flags", { auth: user.auth, body: { last: 1 } })).status, 200, "the 128th");
  const res = await sys.api("POST", "/api/v9/me/flags", { auth: user.auth, body: { more: 1 } });
  t.equal(res.status, 400);
  t.equal(res.body, tooManyFlags(128).rawMessage);
  t.equal((await sys.api("POST", "/api/v9/me/flags", { auth: user.auth, body: { f000: false, more: null } })).status, 200, "changing one held is fine");
  t.equal(Object.keys((await sys.api("GET", "/api/v9/me/flags", { auth: user.auth })).body).length, 128);
});

t.test("GET /me/location answers an empty object: a self-hosted installation knows no location", async (t) => {
  const res = await sys.api("GET", "/api/v9/me/location");
  t.equal(res.status, 200);
  t.same(res.body, {});
  const user = await sys.signup("located");
  t.same((await sys.api("GET", "/api/v9/me/location", { auth: user.auth })).body, {});
});

t.test("POST /me/preferences/{client} changes the preferences every client reads", async (t) => {
  const user = await sys.signup("clientprefs");
  const res = await sys.api("POST", "/api/v9/me/preferences/desktop", { auth: user.auth, body: { date_format: "YYYY-MM-DD", timeofday_format: "H:mm" } });
  t.equal(res.status, 200, res.text);
  t.equal(res.text, "", "no body");
  for (const client of ["web", "desktop"]) {
    const read = await sys.api("GET", `/api/v9/me/preferences/${client}`, { auth: user.auth });
    t.equal(read.body.date_format, "YYYY-MM-DD", client);
    t.equal(read.body.timeofday_format, "H:mm", client);
  }
  t.equal((await sys.api("GET", "/api/v9/me/preferences", { auth: user.auth })).body.date_format, "YYYY-MM-DD");
});

t.test("POST /me/preferences/{client} refuses an unknown client and what POST /me/preferences refuses", async (t) => {
  const user = await sys.signup("badclient");
  const cases: [string, unknown, string][] = [
    ["toaster", { date_format: "YYYY-MM-DD" }, preferencesClientUnknown().rawMessage],
    ["web", { nothing: 1 }, preferencesMissing().rawMessage],
    ["web", { date_format: "someday" }, "Value in date_format is invalid"],
    ["web", [1], invalidJson().rawMessage],
  ];
  for (const [client, body, message] of cases) {
    const res = await sys.api("POST", `/api/v9/me/preferences/${client}`, { auth: user.auth, body });
    t.equal(res.status, 400, `${client} ${JSON.stringify(body)}`);
    t.equal(res.body, message);
  }
  t.equal((await sys.api("GET", "/api/v9/me/preferences", { auth: user.auth })).body.date_format, "MM/DD/YYYY", "nothing changed");
  t.equal((await sys.api("POST", "/api/v9/me/preferences/web", { body: { date_format: "YYYY-MM-DD" } })).status, 403, "credentials needed");
});
