import t from "tap";
import { loadConfig } from "../../../lib/config.js";
import { openDatabase, type Knex } from "../../../lib/db.js";
import { outboxMigration } from "../../../lib/events.js";
import { cleanUp, testEnv, type TestContext } from "../../../test/support/harness.js";
import { migrations } from "../migrations.js";

/** Rows an earlier version wrote, read the way this one reads them once its migrations ran. */

/** The accounts schema as it was before the migration `name`, and a way to run the rest. */
async function schemaBefore(t: TestContext, name: string): Promise<{ before: Knex; upgrade: () => Promise<Knex> }> {
  const config = loadConfig(testEnv());
  // Teardowns run last-registered first: the schema goes after the connections closed.
  t.teardown(() => cleanUp(config));
  const all = [outboxMigration, ...migrations];
  const before = await openDatabase(config, "accounts", all.filter((m) => m.name < name));
  return {
    before,
    async upgrade() {
      await before.destroy();
      const after = await openDatabase(config, "accounts", all);
      t.teardown(() => after.destroy());
      return after;
    },
  };
}

const now = new Date("2025-03-10T12:00:00Z");
let ids = 0;
async function organizationWithWorkspaces(db: Knex, plan: number, premium: boolean[]): Promise<number> {
  const [organization] = await db("organizations").insert({ name: `o${++ids}`, owner_id: 1, pricing_plan_id: plan, created_at: now, updated_at: now });
  for (const p of premium) await db("workspaces").insert({ organization_id: organization, name: `w${++ids}`, premium: p, created_at: now, updated_at: now });
  return Number(organization);
}

t.test("0060_organization_plans: an organization with a premium workspace becomes paid; the others keep their plan", async (t) => {
  const { before, upgrade } = await schemaBefore(t, "0060");
  const mixed = await organizationWithWorkspaces(before, 0, [false, true]);
  const free = await organizationWithWorkspaces(before, 0, [false, false]);
  const paid = await organizationWithWorkspaces(before, 1, [false]);
  const empty = await organizationWithWorkspaces(before, 0, []);
  const after = await upgrade();
  const plans = Object.fromEntries((await after("organizations").select("id", "pricing_plan_id")).map((r: { id: number; pricing_plan_id: number }) => [Number(r.id), Number(r.pricing_plan_id)]));
  t.same([plans[mixed], plans[free], plans[paid], plans[empty]], [1, 0, 1, 0]);
});

t.test("0061_pending_invitees: a pending invitation of an address without an account becomes its pending organization user", async (t) => {
  const { before, upgrade } = await schemaBefore(t, "0061");
  const organization = await organizationWithWorkspaces(before, 0, [false]);
  const [member] = await before("users").insert({ email: "joined@example.com", password_hash: "x", api_token_hash: "h1", fullname: "Joined", timezone: "UTC", created_at: now, updated_at: now });
  await before("organization_users").insert({ organization_id: organization, user_id: member, admin: false, owner: false, inactive: false, joined: true, role: "user" });
  let code = 0;
  const invitation = (email: string, state: string, recipient: number | null, at: Date) =>
    before("invitations").insert({ organization_id: organization, code_hash: `hash${++code}`, code_sealed: "sealed", email, recipient_id: recipient, sender_id: 1, workspaces: "[]", state, created_at: at, updated_at: at });
  const later = new Date(now.getTime() + 60_000);
  await invitation("new@example.com", "pending", null, now);
  await invitation("new@example.com", "pending", null, later);
  await invitation("declined@example.com", "deleted", null, now);
  await invitation("joined@example.com", "pending", null, now);
  await invitation("joined@example.com", "joined", member, now);
  const after = await upgrade();
  const rows = await after("organization_users").where({ organization_id: organization }).orderBy("id").select("user_id", "email", "joined", "inactive", "role");
  t.same(
    rows.map((r: Record<string, unknown>) => [r.user_id === null ? null : Number(r.user_id), r.email, Boolean(r.joined), Boolean(r.inactive), r.role]),
    [
      [Number(member), null, true, false, "user"],
      [null, "new@example.com", false, false, "user"],
    ],
    "one row per address, none for an address that has its account's row or no pending invitation",
  );
  const inserted = await after("organization_users").insert({ organization_id: organization + 1, user_id: null, email: "new@example.com" });
  t.ok(inserted, "an address is unique per organization only");
  await t.rejects(after("organization_users").insert({ organization_id: organization, user_id: null, email: "new@example.com" }), "twice in one organization");
  await t.rejects(after("organization_users").insert({ organization_id: organization, user_id: member, email: null }), "an account stays once per organization");
});
