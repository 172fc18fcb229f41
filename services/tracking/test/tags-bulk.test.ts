import t from "tap";
import { startTestSystem, type TestSystem, type TrackUser } from "../../../test/support/harness.js";
import { ManualClock } from "../../../lib/clock.js";
import { TagSchema } from "../../../gen/tracking/v1/tags_pb.js";
import { eventObject, trackingWorld } from "./tracking-support.js";
import { tagIdsInvalid, tagIdsNotInWorkspace, tagManagementAdminsOnly } from "../errors.js";

/** The tags' bulk delete (`PATCH .../tags` with a JSON array of tag ids): all of them or none. */

const clock = new ManualClock(new Date("2026-03-15T12:00:00Z"));
const sys: TestSystem = await startTestSystem(t, { clock });
const w = await trackingWorld(t, sys, clock);
const owner = w.owner;
const member = await w.join("member");
const stranger: TrackUser = await sys.signup("stranger");
const base = `/api/v9/workspaces/${owner.workspaceId}/tags`;

async function tag(name: string, user: TrackUser = owner, path = base) {
  const res = await sys.api("POST", path, { auth: user.auth, body: { name } });
  if (res.status !== 200) throw new Error(res.text);
  return res.body as { id: number; name: string };
}
const bulk = (body: unknown, user: TrackUser = owner) => sys.api("PATCH", base, { auth: user.auth, body });
const names = async () => (await sys.api("GET", base, { auth: owner.auth })).body.map((x: { name: string }) => x.name);

t.test("deletes every tag named, with its event, and answers 200 with no body", async (t) => {
  const [a, b] = [await tag("one"), await tag("two")];
  await tag("three");
  const res = await bulk([a.id, b.id, a.id], member);
  t.equal(res.status, 200, res.text);
  t.equal(res.text, "");
  t.same(await names(), ["three"]);
  const deleted = (await w.events("tag")).filter((e) => e.action === "deleted").map((e) => Number(eventObject(e, TagSchema).id));
  t.same(deleted, [a.id, b.id]);
  t.equal((await tag("one")).name, "one", "the names are free again");
  t.equal((await bulk([])).status, 200, "an empty list deletes nothing");
});

t.test("one id that is not a live tag of the workspace refuses the whole request", async (t) => {
  const keep = await tag("keep");
  const dead = await tag("dead");
  t.equal((await sys.api("DELETE", `${base}/${dead.id}`, { auth: owner.auth })).status, 200);
  const foreign = await tag("foreign", stranger, `/api/v9/workspaces/${stranger.workspaceId}/tags`);
  for (const id of [dead.id, foreign.id, 999999]) {
    const res = await bulk([keep.id, id]);
    t.equal(res.status, 400);
    t.equal(res.body, tagIdsNotInWorkspace().rawMessage);
  }
  t.ok((await names()).includes("keep"), "nothing was deleted");
});

t.test("a body that is no array of ids is refused", async (t) => {
  for (const body of [{ ids: [1] }, ["1"], [0], [1.5], "x"]) {
    const res = await bulk(body);
    t.equal(res.status, 400, JSON.stringify(body));
    t.equal(res.body, tagIdsInvalid().rawMessage);
  }
  const tooMany = await bulk(Array.from({ length: 1001 }, (_, i) => i + 1));
  t.equal(tooMany.status, 400);
  t.equal(tooMany.body, "tag_ids cannot exceed 1000 elements");
});

t.test("only admins when the workspace says so; never strangers", async (t) => {
  const x = await tag("guarded");
  await w.setWorkspace({ only_admins_may_create_tags: true });
  t.teardown(() => w.setWorkspace({ only_admins_may_create_tags: false }));
  const refused = await bulk([x.id], member);
  t.equal(refused.status, 403);
  t.equal(refused.body, tagManagementAdminsOnly().rawMessage);
  t.equal((await bulk([x.id], stranger)).status, 403);
  t.equal((await bulk([x.id])).status, 200);
});
