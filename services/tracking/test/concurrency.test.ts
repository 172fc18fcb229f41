import t from "tap";
import { ManualClock } from "../../../lib/clock.js";
import { startTestSystem } from "../../../test/support/harness.js";
import { nameTaken } from "../errors.js";

/**
 * Changes of one client at the same moment. The clock stands still, so that a change can
 * find nothing left to change after waiting for another (the same name, the same `at`): its
 * answer must still be the client as it stands, not as it was when the change began.
 */

const sys = await startTestSystem(t, { clock: new ManualClock(new Date("2025-03-01T12:00:00Z")) });
const owner = await sys.signup("owner");
const base = `/api/v9/workspaces/${owner.workspaceId}/clients`;

t.test("concurrent identical renames each answer the new name", async (t) => {
  const created = await sys.api("POST", base, { auth: owner.auth, body: { name: "Hooli" } });
  for (let round = 0; round < 3; round++) {
    const name = `Hooli ${round}`;
    const answers = await Promise.all(Array.from({ length: 8 }, () => sys.api("PUT", `${base}/${created.body.id}`, { auth: owner.auth, body: { name } })));
    t.same(answers.map((a) => [a.status, a.body.name]), Array.from({ length: 8 }, () => [200, name]), `round ${round}`);
  }
});

t.test("concurrent archive and restore answer the client's state after them", async (t) => {
  const created = await sys.api("POST", base, { auth: owner.auth, body: { name: "Pied Piper" } });
  const answers = await Promise.all(Array.from({ length: 6 }, () => sys.api("POST", `${base}/${created.body.id}/restore`, { auth: owner.auth, body: {} })));
  t.same(answers.map((a) => [a.status, a.body.archived]), Array.from({ length: 6 }, () => [200, false]));
});

t.test("concurrent creates of one project name make one project; the others are told the name is taken", async (t) => {
  const projects = `/api/v9/workspaces/${owner.workspaceId}/projects`;
  for (let round = 0; round < 3; round++) {
    const name = `Launch ${round}`;
    const answers = await Promise.all(Array.from({ length: 6 }, () => sys.api("POST", projects, { auth: owner.auth, body: { name } })));
    t.same(answers.map((a) => a.status).sort(), [200, 400, 400, 400, 400, 400], `round ${round}: ${answers.map((a) => a.text).join(" | ").slice(0, 300)}`);
    t.ok(answers.filter((a) => a.status === 400).every((a) => a.body === nameTaken().rawMessage));
    const listed = await sys.api("GET", `${projects}?name=${encodeURIComponent(name)}`, { auth: owner.auth });
    t.equal(listed.body.filter((p: { name: string }) => p.name === name).length, 1, "one project of the name");
  }
});
