import t from "tap";
import { startTestSystem, type TrackUser } from "../../../test/support/harness.js";
import { ManualClock } from "../../../lib/clock.js";
import { trackingWorld } from "./tracking-support.js";
import { calendarNotFound, calendarPaidFeature } from "../errors.js";
import { calendar, foldLine, icalText } from "../ical/rules.js";

const clock = new ManualClock(new Date("2025-03-20T12:00:00Z"));
const sys = await startTestSystem(t, { clock });
const world = await trackingWorld(t, sys, clock);
const { owner } = world;
const member = await world.join("member");
const ws = owner.workspaceId;
await world.setPlan(true);

async function entry(user: TrackUser, start: string, body: Record<string, unknown> = {}) {
  const res = await sys.api("POST", `/api/v9/workspaces/${ws}/time_entries`, { auth: user.auth, body: { created_with: "tests", workspace_id: ws, start, duration: 1800, ...body } });
  if (res.status !== 200) throw new Error(`entry: ${res.status} ${res.text}`);
  return res.body;
}
const pathOf = (url: string) => new URL(url, "http://x").pathname;

t.test("reset answers a link whose calendar holds the member's entries of the last 14 days", async (t) => {
  const site = (await sys.api("POST", `/api/v9/workspaces/${ws}/projects`, { auth: owner.auth, body: { name: "Website", is_private: false } })).body;
  const recent = await entry(owner, "2025-03-19T08:00:00Z", { description: "Write; review, ship", project_id: site.id });
  await entry(owner, "2025-03-01T08:00:00Z", { description: "Too old" });
  await entry(member, "2025-03-19T09:00:00Z", { description: "Someone else's" });
  const reset = await sys.api("POST", `/api/v9/workspaces/${ws}/ical/reset`, { auth: owner.auth });
  t.equal(reset.status, 200, reset.text);
  t.match(reset.body, /\/api\/v9\/ical\/workspace_user\/[\w-]{43}$/);
  t.equal(reset.headers.get("cache-control"), "no-store");
  const res = await sys.api("GET", pathOf(reset.body));
  t.equal(res.status, 200, res.text);
  t.match(res.headers.get("content-type"), /^text\/calendar/);
  t.match(res.text, /^BEGIN:VCALENDAR\r\nVERSION:2.0\r\n/);
  t.match(res.text, new RegExp(`UID:time-entry-${recent.id}@`));
  t.match(res.text, /DTSTART:20250319T080000Z\r\nDTEND:20250319T083000Z\r\nSUMMARY:Write\\; review\\, ship\r\nDESCRIPTION:Website\r\n/);
  t.notMatch(res.text, /Too old|Someone else/);
  t.match(res.text, /END:VCALENDAR\r\n$/);
});

t.test("a reset link replaces the old one; toggle switches it off and on (with a new link)", async (t) => {
  const first = (await sys.api("POST", `/api/v9/workspaces/${ws}/ical/reset`, { auth: member.auth })).body;
  const second = (await sys.api("POST", `/api/v9/workspaces/${ws}/ical/reset`, { auth: member.auth })).body;
  t.not(first, second);
  const old = await sys.api("GET", pathOf(first));
  t.equal(old.status, 404);
  t.equal(old.body, calendarNotFound().rawMessage);
  t.equal((await sys.api("GET", pathOf(second))).status, 200);
  const off = await sys.api("POST", `/api/v9/workspaces/${ws}/ical/toggle`, { auth: member.auth });
  t.equal(off.status, 200);
  t.equal(off.body, "");
  t.equal((await sys.api("GET", pathOf(second))).status, 404);
  const on = await sys.api("POST", `/api/v9/workspaces/${ws}/ical/toggle`, { auth: member.auth });
  t.match(on.body, /\/api\/v9\/ical\/workspace_user\//);
  t.equal((await sys.api("GET", pathOf(on.body))).status, 200);
  t.equal((await sys.api("GET", "/api/v9/ical/workspace_user/nope")).status, 404);
});

t.test("a free workspace's calendar is a paid feature (403)", async (t) => {
  const link = (await sys.api("POST", `/api/v9/workspaces/${ws}/ical/reset`, { auth: owner.auth })).body;
  await world.setPlan(false);
  t.teardown(() => world.setPlan(true));
  const res = await sys.api("GET", pathOf(link));
  t.equal(res.status, 403);
  t.equal(res.body, calendarPaidFeature().rawMessage);
});

t.test("calendar text: escaping, folding at 75 octets, CRLF lines", async (t) => {
  t.equal(icalText("a\\b;c,d\ne"), "a\\\\b\\;c\\,d\\ne");
  const folded = foldLine(`SUMMARY:${"é".repeat(60)}`);
  for (const line of folded.split("\r\n")) t.ok(Buffer.byteLength(line) <= 75);
  t.equal(folded.split("\r\n").map((l, i) => (i === 0 ? l : l.slice(1))).join(""), `SUMMARY:${"é".repeat(60)}`);
  const text = calendar([], new Date("2025-01-01T00:00:00Z"), "h");
  t.notMatch(text.replace(/\r\n/g, ""), /\n/);
});
