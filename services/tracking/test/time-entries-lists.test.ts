import t from "tap";
import { startTestSystem, type TestSystem, type TrackUser } from "../../../test/support/harness.js";
import { ManualClock } from "../../../lib/clock.js";
import { listDatesReversed, listDatesUnpaired } from "../errors.js";

// GET /me/time_entries: the recent window, since, before, start_date/end_date in the user's zone.
const clock = new ManualClock(new Date("2025-03-20T12:00:00Z"));
const sys: TestSystem = await startTestSystem(t, { clock });
const user: TrackUser = await sys.signup("lister");
const other: TrackUser = await sys.signup("other");
const base = `/api/v9/workspaces/${user.workspaceId}/time_entries`;

async function entry(start: string, description: string, who: TrackUser = user) {
  const res = await sys.api("POST", `/api/v9/workspaces/${who.workspaceId}/time_entries`, { auth: who.auth, body: { created_with: "tests", start, duration: 60, description } });
  if (res.status !== 200) throw new Error(res.text);
  return res.body;
}

async function list(query: string, who: TrackUser = user): Promise<string[]> {
  const res = await sys.api("GET", `/api/v9/me/time_entries${query}`, { auth: who.auth });
  t.equal(res.status, 200, `${query}: ${res.text}`);
  return res.body.map((e: { description: string }) => e.description);
}

async function setZone(timezone: string) {
  const res = await sys.api("PUT", "/api/v9/me", { auth: user.auth, body: { timezone } });
  if (res.status !== 200) throw new Error(`timezone: ${res.status} ${res.text}`);
}

// Around the day boundaries of 2025-03-15 in Tokyo (UTC+9) and Los Angeles (UTC-7 in March, DST).
await entry("2025-03-14T14:30:00Z", "tokyo-before"); // 23:30 on the 14th in Tokyo
await entry("2025-03-14T15:30:00Z", "tokyo-first"); // 00:30 on the 15th in Tokyo
await entry("2025-03-15T06:30:00Z", "la-before"); // 23:30 on the 14th in Los Angeles
await entry("2025-03-15T07:30:00Z", "la-first"); // 00:30 on the 15th in Los Angeles
await entry("2025-03-16T06:30:00Z", "la-last"); // 23:30 on the 15th in Los Angeles
await entry("2025-03-16T07:30:00Z", "after"); // 00:30 on the 16th in Los Angeles
await entry("2025-03-01T08:00:00Z", "old");
await entry("2025-03-19T08:00:00Z", "recent", user);
await entry("2025-03-15T08:00:00Z", "someone else's", other);

t.test("without parameters: the last 9 days, newest first, deleted left out", async (t) => {
  t.same(await list(""), ["recent", "after", "la-last", "la-first", "la-before", "tokyo-first", "tokyo-before"]);
});

t.test("date-only ranges are days in the user's own zone: start inclusive, end exclusive", async (t) => {
  await setZone("UTC");
  t.same(await list("?start_date=2025-03-15&end_date=2025-03-16"), ["la-first", "la-before"]);
  await setZone("Asia/Tokyo");
  t.same(await list("?start_date=2025-03-15&end_date=2025-03-16"), ["la-first", "la-before", "tokyo-first"], "east of UTC");
  await setZone("America/Los_Angeles");
  t.same(await list("?start_date=2025-03-15&end_date=2025-03-16"), ["la-last", "la-first"], "west of UTC (in daylight saving time)");
  t.same(await list("?before=2025-03-15&start_date=2025-03-01&end_date=2025-03-31"), ["la-before", "tokyo-first", "tokyo-before", "old"], "before is a day in the zone too");
  await setZone("UTC");
});

t.test("RFC 3339 bounds are taken as given", async (t) => {
  t.same(await list("?start_date=2025-03-15T07:00:00%2B00:00&end_date=2025-03-15T09:00:00Z"), ["la-first"]);
  t.same(await list("?start_date=2025-03-15T16:00:00%2B09:00&end_date=2025-03-15T16:31:00%2B09:00"), ["la-first"]);
  t.same(await list("?before=2025-03-02T00:00:00Z"), ["old"]);
});

t.test("since lists what changed since then, deleted entries included", async (t) => {
  clock.set(new Date("2025-03-20T13:00:00Z"));
  const e = await entry("2025-03-10T08:00:00Z", "changed-later");
  const del = await sys.api("DELETE", `${base}/${e.id}`, { auth: user.auth });
  t.equal(del.status, 200);
  const res = await sys.api("GET", `/api/v9/me/time_entries?since=${Date.parse("2025-03-20T12:30:00Z") / 1000}`, { auth: user.auth });
  t.same(res.body.map((x: { description: string }) => x.description), ["changed-later"]);
  t.match(res.body[0].server_deleted_at, /^2025-03-20T13:00:00/);
});

t.test("meta=true adds the meta fields to listed entries", async (t) => {
  const p = await sys.api("POST", `/api/v9/workspaces/${user.workspaceId}/projects`, { auth: user.auth, body: { name: "Listed", color: "#c9806b" } });
  t.equal(p.status, 200, p.text);
  const c = await sys.api("POST", `/api/v9/workspaces/${user.workspaceId}/clients`, { auth: user.auth, body: { name: "Client A" } });
  await sys.api("PUT", `/api/v9/workspaces/${user.workspaceId}/projects/${p.body.id}`, { auth: user.auth, body: { client_id: c.body.id } });
  await sys.api("POST", base, { auth: user.auth, body: { created_with: "t", start: "2025-03-18T08:00:00Z", duration: 5, description: "with-project", project_id: p.body.id } });
  const res = await sys.api("GET", "/api/v9/me/time_entries?meta=true", { auth: user.auth });
  const e = res.body.find((x: { description: string }) => x.description === "with-project");
  t.match(e, { project_name: "Listed", project_color: "#c9806b", project_active: true, client_name: "Client A" });
  const plain = res.body.find((x: { description: string }) => x.description === "recent");
  t.notOk("project_name" in plain, "meta fields of entries without a project are left out");
});

t.test("bad parameters answer 400 and never 5xx", async (t) => {
  for (const [query, message] of [
    ["?start_date=2025-03-01", listDatesUnpaired().rawMessage],
    ["?end_date=2025-03-01", listDatesUnpaired().rawMessage],
    ["?start_date=2025-03-10&end_date=2025-03-10", listDatesReversed().rawMessage],
    ["?start_date=2025-03-10&end_date=2025-03-01", listDatesReversed().rawMessage],
    ["?start_date=2025-13-01&end_date=2025-14-01", /^Invalid start_date/],
    ["?start_date=2025-03-01&end_date=tomorrow", /^Invalid end_date/],
    ["?before=someday", /^Invalid before/],
    ["?since=abc", /since/],
    ["?since=-5", /since/],
    ["?meta=maybe", /meta/],
  ] as const) {
    const res = await sys.api("GET", `/api/v9/me/time_entries${query}`, { auth: user.auth });
    t.equal(res.status, 400, `${query}: ${res.text}`);
    if (typeof message === "string") t.equal(res.body, message);
    else t.match(res.body, message);
  }
  for (const id of ["abc", "0", "-1", "99999999999999999999"]) {
    const res = await sys.api("GET", `/api/v9/me/time_entries/${id}`, { auth: user.auth });
    t.ok(res.status === 400 || res.status === 404, `${id}: ${res.status}`);
  }
});

t.test("another user's entries are never listed", async (t) => {
  t.same(await list("?start_date=2025-03-01&end_date=2025-04-01", other), ["someone else's"]);
});
