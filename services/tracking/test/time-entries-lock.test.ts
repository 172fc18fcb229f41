import t, { type Test } from "tap";
import { startTestSystem } from "../../../test/support/harness.js";
import { ManualClock } from "../../../lib/clock.js";
import { trackingWorld } from "./tracking-support.js";
import { timeEntryLocked } from "../errors.js";

/**
 * "Lock Time Entries": once a workspace admin sets the preference report_locked_at, members cannot
 * create, change, stop or delete entries that start before it; admins still can; lifting it frees them.
 */

const clock = new ManualClock(new Date("2026-03-10T12:00:00Z"));
const sys = await startTestSystem(t, { clock });
const world = await trackingWorld(t, sys, clock);
const { owner } = world;
const member = await world.join("member");
const ws = owner.workspaceId;
await world.setPlan(true);
const entries = `/api/v9/workspaces/${ws}/time_entries`;
const LOCK = new Date("2026-03-01T00:00:00Z");
const locked = timeEntryLocked(LOCK).rawMessage;

const entry = (start: string, extra: Record<string, unknown> = {}) => ({ workspace_id: ws, start, duration: 600, created_with: "test", ...extra });
async function create(auth: typeof member.auth, start: string) {
  const res = await sys.api("POST", entries, { auth, body: entry(start) });
  // Set-up, not an assertion: a top-level assertion would let tap end the file before the subtests.
  if (res.status !== 200) throw new Error(`creating an entry: ${res.status} ${res.text}`);
  return res.body.id as number;
}
async function setLock(value: string | null) {
  const res = await sys.api("POST", `/api/v9/workspaces/${ws}/preferences`, { auth: owner.auth, body: { report_locked_at: value } });
  if (res.status !== 200) throw new Error(`setting the lock: ${res.status} ${res.text}`);
  // The tracking service remembers a workspace's rules for 5 s.
  clock.advance(5_001);
}

const before = await create(member.auth, "2026-02-20T09:00:00Z");
const running = (await sys.api("POST", entries, { auth: member.auth, body: entry("2026-02-28T23:00:00Z", { duration: -1 }) })).body.id as number;
const after = await create(member.auth, "2026-03-05T09:00:00Z");
await setLock("2026-03-01");

async function expectLocked(t: Test, res: { status: number; body: unknown }, what: string) {
  t.equal(res.status, 403, what);
  t.equal(res.body, locked, what);
}

t.test("a member cannot create, move into, change, stop or delete entries before the lock date", async (t) => {
  const count = async () => Number((await world.tracking("time_entries").where({ workspace_id: ws }).count({ n: "*" }))[0].n);
  const n = await count();
  await expectLocked(t, await sys.api("POST", entries, { auth: member.auth, body: entry("2026-02-27T09:00:00Z") }), "create before the lock");
  await expectLocked(t, await sys.api("PUT", `${entries}/${before}`, { auth: member.auth, body: { description: "changed" } }), "change a locked entry");
  await expectLocked(t, await sys.api("PUT", `${entries}/${after}`, { auth: member.auth, body: { start: "2026-02-25T09:00:00Z", duration: 600 } }), "move an entry into the locked days");
  await expectLocked(t, await sys.api("PATCH", `${entries}/${running}/stop`, { auth: member.auth }), "stop an entry begun before the lock");
  await expectLocked(t, await sys.api("DELETE", `${entries}/${before}`, { auth: member.auth }), "delete a locked entry");
  const patched = await sys.api("PATCH", `${entries}/${before},${after}`, { auth: member.auth, body: [{ op: "replace", path: "/description", value: "bulk" }] });
  t.equal(patched.status, 200, patched.text);
  t.same(patched.body.success, [after], "a bulk patch changes the open entry only");
  t.same(patched.body.failure, [{ id: before, message: locked }], "and names the locked one");
  t.equal(await count(), n, "nothing was created");
  const row = await world.tracking("time_entries").where({ id: before }).first();
  t.equal(row.description, null, "the locked entry is unchanged");
  t.equal(row.server_deleted_at, null, "and not deleted");
});

t.test("entries from the lock date on stay open to members", async (t) => {
  const res = await sys.api("PUT", `${entries}/${after}`, { auth: member.auth, body: { description: "open" } });
  t.equal(res.status, 200, res.text);
  t.equal((await sys.api("POST", entries, { auth: member.auth, body: entry("2026-03-01T00:00:00Z") })).status, 200, "an entry starting at the lock instant");
});

t.test("admins change locked entries", async (t) => {
  const res = await sys.api("PUT", `${entries}/${before}`, { auth: owner.auth, body: { description: "by the admin" } });
  t.equal(res.status, 200, res.text);
  t.equal((await sys.api("POST", entries, { auth: owner.auth, body: entry("2026-02-10T09:00:00Z") })).status, 200);
});

t.test("lifting the lock frees the entries", async (t) => {
  await setLock(null);
  t.equal((await sys.api("DELETE", `${entries}/${before}`, { auth: member.auth })).status, 200);
});
