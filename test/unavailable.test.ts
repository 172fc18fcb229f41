import t from "tap";
import { startTestSystem } from "./support/harness.js";
import { UNAVAILABLE, unavailableMessage } from "../gateway/unavailable.js";

/**
 * The real API's operations a self-hosted installation does not offer (billing, single sign-on,
 * third-party integrations, the real service's app plumbing) answer 501 with a JSON string that
 * says so, with or without credentials, and /openapi.json lists them; none shadows a served route.
 */
const sys = await startTestSystem(t);

t.test("every operation of the four groups answers 501 with its group's message", async (t) => {
  t.equal(UNAVAILABLE.reduce((n, g) => n + g.operations.length, 0), 82, "the 82 operations of the reference's four tables");
  for (const group of UNAVAILABLE) {
    for (const [method, path] of group.operations) {
      const res = await sys.api(method, path.replace(/\{[a-z_]+\}/g, "1"), { body: method === "GET" || method === "DELETE" ? undefined : {} });
      t.same([res.status, res.body], [501, unavailableMessage(group)], `${method} ${path}`);
    }
  }
});

t.test("the OpenAPI document lists them with their 501, beside the served routes", async (t) => {
  const doc = (await sys.api("GET", "/openapi.json")).body;
  t.ok(doc.paths["/api/v9/organizations/{organization_id}/plans"].get.responses["501"], "a billing operation");
  t.ok(doc.paths["/api/v9/integrations/calendar"].get.responses["501"], "an integration");
  t.ok(doc.paths["/api/v9/me"].get, "served routes are still there");
});
