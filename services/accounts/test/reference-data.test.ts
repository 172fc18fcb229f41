import t from "tap";
import { ManualClock } from "../../../lib/clock.js";
import { startTestSystem, type TestSystem } from "../../../test/support/harness.js";
import { countryNotFound } from "../errors.js";
import { COUNTRIES } from "../reference-data/countries.js";
import { currencyId } from "../reference-data/rules.js";

/** Countries, subdivisions, currencies, time zones (public) and a workspace's currencies (its members). */

const clock = new ManualClock(new Date("2026-07-01T12:00:00Z"));
const sys: TestSystem = await startTestSystem(t, { clock, services: ["accounts"] });

t.test("GET /countries answers every ISO 3166-1 country by name, its id the ISO numeric code, without credentials", async (t) => {
  const res = await sys.api("GET", "/api/v9/countries");
  t.equal(res.status, 200, res.text);
  t.equal(res.body.length, COUNTRIES.length);
  const names = res.body.map((c: { name: string }) => c.name);
  t.same(names, [...names].sort((a: string, b: string) => a.localeCompare(b, "en")), "sorted by name");
  const estonia = res.body.find((c: { country_code: string }) => c.country_code === "EE");
  t.same(estonia, {
    country_code: "EE",
    default_currency_id: currencyId("EUR"),
    id: 233,
    name: "Estonia",
    requires_postal_code: false,
    vat_applicable: false,
    vat_percentage: 0,
    vat_regex: "",
  });
  t.equal(res.body.find((c: { country_code: string }) => c.country_code === "AQ").default_currency_id, null, "Antarctica has no currency");
});

t.test("a country id from the list is a country_id PUT /me accepts", async (t) => {
  const user = await sys.signup("countryfan");
  const res = await sys.api("PUT", "/api/v9/me", { auth: user.auth, body: { country_id: 840 } });
  t.equal(res.status, 200, res.text);
  t.equal(res.body.country_id, 840);
});

t.test("GET /countries/{id}/subdivisions answers the country's ISO 3166-2 subdivisions by name", async (t) => {
  const res = await sys.api("GET", "/api/v9/countries/840/subdivisions");
  t.equal(res.status, 200, res.text);
  t.equal(res.body.length, 51, "50 states and DC");
  t.same(res.body.find((s: { iso_code: string }) => s.iso_code === "US-CA"), { company_id: null, country_id: 840, country_subdivision_id: 840005, iso_code: "US-CA", name: "California" });
  t.equal(res.body[0].name, "Alabama");
  const canada = await sys.api("GET", "/api/v9/countries/124/subdivisions");
  t.equal(canada.body.length, 13);
});

t.test("a country without subdivisions here answers an empty list", async (t) => {
  const res = await sys.api("GET", "/api/v9/countries/233/subdivisions");
  t.equal(res.status, 200);
  t.same(res.body, []);
});

t.test("an unknown country id is 404, one that is no number 400", async (t) => {
  for (const id of ["999", "0", "100000", "9007199254740993"]) {
    const res = await sys.api("GET", `/api/v9/countries/${id}/subdivisions`);
    t.equal(res.status, 404, id);
    t.equal(res.body, countryNotFound().rawMessage);
  }
  const res = await sys.api("GET", "/api/v9/countries/us/subdivisions");
  t.equal(res.status, 400);
});

t.test("GET /currencies answers every currency with a stable id and its symbol", async (t) => {
  const res = await sys.api("GET", "/api/v9/currencies");
  t.equal(res.status, 200);
  t.same(res.body.find((c: { iso_code: string }) => c.iso_code === "EUR"), { currency_id: currencyId("EUR"), iso_code: "EUR", symbol: "€" });
  t.same(res.body.find((c: { iso_code: string }) => c.iso_code === "USD"), { currency_id: currencyId("USD"), iso_code: "USD", symbol: "$" });
  t.equal(new Set(res.body.map((c: { currency_id: number }) => c.currency_id)).size, res.body.length, "ids are unique");
  t.equal(currencyId("AAA"), 1);
  t.equal(currencyId("ZZZ"), 26 ** 3);
});

t.test("GET /timezones answers the IANA names with UTC, sorted", async (t) => {
  const res = await sys.api("GET", "/api/v9/timezones");
  t.equal(res.status, 200);
  t.ok(res.body.includes("UTC"));
  t.ok(res.body.includes("Europe/Tallinn"));
  t.same(res.body, [...res.body].sort());
});

t.test("GET /timezones/offsets answers each zone's offset at the service's current time", async (t) => {
  const res = await sys.api("GET", "/api/v9/timezones/offsets");
  t.equal(res.status, 200);
  const of = (name: string) => res.body.find((z: { name: string }) => z.name === name).utc;
  t.equal(of("UTC"), "+00:00");
  t.equal(of("Asia/Tokyo"), "+09:00");
  t.equal(of("Australia/Adelaide"), "+09:30", "half hours");
  t.equal(of("Europe/Tallinn"), "+03:00", "summer time on 1 July");
  clock.set(new Date("2026-01-15T12:00:00Z"));
  const winter = await sys.api("GET", "/api/v9/timezones/offsets");
  t.equal(winter.body.find((z: { name: string }) => z.name === "Europe/Tallinn").utc, "+02:00");
  t.equal(winter.body.find((z: { name: string }) => z.name === "America/New_York").utc, "-05:00");
});

t.test("GET /workspaces/{id}/currencies answers the workspace's currency to its members only", async (t) => {
  const owner = await sys.signup("currencyowner");
  const res = await sys.api("GET", `/api/v9/workspaces/${owner.workspaceId}/currencies`, { auth: owner.auth });
  t.equal(res.status, 200, res.text);
  t.same(res.body, ["USD"]);
  const stranger = await sys.signup("currencystranger");
  const refused = await sys.api("GET", `/api/v9/workspaces/${owner.workspaceId}/currencies`, { auth: stranger.auth });
  t.equal(refused.status, 403);
  t.equal(refused.body, "User does not have access to this resource.");
  const anonymous = await sys.api("GET", `/api/v9/workspaces/${owner.workspaceId}/currencies`);
  t.equal(anonymous.status, 403);
});
