import t from "tap";
import { startTestSystem, type TestSystem, type TrackUser } from "../../../test/support/harness.js";
import { ManualClock } from "../../../lib/clock.js";
import { clientIdsInvalid } from "../errors.js";

/** `POST .../clients/data`: the workspace's clients among a JSON array of ids. */

const clock = new ManualClock(new Date("2026-03-15T12:00:00Z"));
const sys: TestSystem = await startTestSystem(t, { clock, services: ["accounts", "tracking"] });
const owner: TrackUser = await sys.signup("owner");
const stranger: TrackUser = await sys.signup("stranger");
const base = `/api/v9/workspaces/${owner.workspaceId}/clients`;

async function client(name: string, user: TrackUser = owner) {
  const res = await sys.api("POST", `/api/v9/workspaces/${user.workspaceId}/clients`, { auth: user.auth, body: { name } });
  if (res.status !== 200) throw new Error(res.text);
  return res.body as { id: number; name: string };
}
const data = (body: unknown, user: TrackUser = owner) => sys.api("POST", `${base}/data`, { auth: user.auth, body });

const zed = await client("Zed");
const acme = await client("acme");
const old = await client("Old");
await sys.api("POST", `${base}/${old.id}/archive`, { auth: owner.auth });
const foreign = await client("Foreign", stranger);

t.test("answers the workspace's clients among the ids, by name, as the list answers them", async (t) => {
  const res = await data([zed.id, acme.id, foreign.id, 999999, zed.id]);
  t.equal(res.status, 200, res.text);
  t.same(res.body.map((c: { name: string }) => c.name), ["acme", "Zed"]);
  const listed = await sys.api("GET", base, { auth: owner.auth });
  t.same(res.body[1], listed.body.find((c: { id: number }) => c.id === zed.id));
  t.same((await data([])).body, []);
});

t.test("archived clients are answered too", async (t) => {
  const res = await data([old.id]);
  t.equal(res.status, 200);
  t.equal(res.body.length, 1);
  t.equal(res.body[0].name, "Old");
});

t.test("a body that is no array of ids is 400; strangers 403", async (t) => {
  for (const body of [{ client_ids: [zed.id] }, ["x"], [-1], [null], "1"]) {
    const res = await data(body);
    t.equal(res.status, 400, JSON.stringify(body));
    t.equal(res.body, clientIdsInvalid().rawMessage);
  }
  const tooMany = await data(Array.from({ length: 1001 }, (_, i) => i + 1));
  t.equal(tooMany.status, 400);
  t.equal(tooMany.body, "client_ids cannot exceed 1000 elements");
  t.equal((await data([zed.id], stranger)).status, 403);
});
