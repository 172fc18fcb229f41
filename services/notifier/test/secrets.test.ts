import t, { type Test } from "tap";
import { createHmac, randomBytes } from "node:crypto";
import { createClient, createRouterTransport, ConnectError, Code } from "@connectrpc/connect";
import { WebhookAdminService } from "../../../gen/notifier/v1/webhooks_pb.js";
import { TrackingWebhookService } from "../../../gen/notifier/v1/tracking_webhooks_pb.js";
import { systemClock } from "../../../lib/clock.js";
import { loadConfig } from "../../../lib/config.js";
import { openDatabase } from "../../../lib/db.js";
import { outboxMigration } from "../../../lib/events.js";
import { cleanUp, startReceiver, startTestSystem, testEnv, type Received, type TestContext, type TrackUser } from "../../../test/support/harness.js";
import type { Notifier } from "../index.js";
import { migrations } from "../migrations.js";
import { standardSignature } from "../delivery/signing.js";
import { eventually, publishEvent, startNotifier } from "./support.js";

/**
 * Secrets at rest: signing secrets are stored sealed and validation codes as hashes, in both
 * engines; what the API answers, what is signed and what validates stays as it was, also for
 * subscriptions stored in clear before.
 */

const sys = await startTestSystem(t);
const notifier = sys.services.get("notifier") as Notifier;
const admin = sys.directory.client("notifier", WebhookAdminService);
const API = "/webhooks/api/v1";
const filters = [{ entity: "client", action: "*" }];

/** The subscription's row as stored, every column. */
async function storedRow(id: number | string): Promise<Record<string, unknown>> {
  return notifier.stores.subscriptions.db("subscriptions").where({ id: Number(id) }).first();
}

/** Asserts that none of the row's columns holds any of the texts. */
function assertNowhereIn(t: Test, row: Record<string, unknown>, texts: Record<string, string>) {
  for (const [what, text] of Object.entries(texts)) {
    const columns = Object.entries(row).filter(([, value]) => String(value ?? "").includes(text));
    t.same(columns.map(([column]) => column), [], `the ${what} is in no column`);
  }
}

/** A receiver that echoes the validation code of the pings `echo` picks, and answers 200 to all. */
async function receiver(t: TestContext, echo: (req: Received) => boolean) {
  return startReceiver(t, (req) => (req.json?.payload === "ping" && req.json.validation_code && echo(req) ? { status: 200, body: JSON.stringify({ validation_code: req.json.validation_code }) } : 200));
}

async function subscribe(user: TrackUser, body: Record<string, unknown>) {
  const res = await sys.api("POST", `${API}/subscriptions/${user.workspaceId}`, { auth: user.auth, body: { event_filters: filters, ...body } });
  if (res.status !== 200) throw new Error(res.text);
  return res.body;
}

const validate = (user: TrackUser, subscriptionId: number, code: string) => sys.api("GET", `${API}/validate/${user.workspaceId}/${subscriptionId}/${code}`);

async function validatedAt(user: TrackUser): Promise<unknown> {
  const res = await sys.api("GET", `${API}/subscriptions/${user.workspaceId}`, { auth: user.auth });
  return res.body[0].validated_at;
}

t.test("a subscription's secret and validation code are in none of its columns, and the answers still show the secret", async (t) => {
  const user = await sys.signup("at-rest");
  const r = await receiver(t, () => false);
  const secret = "a secret of my own choosing";
  const sub = await subscribe(user, { url_callback: r.url(), description: "at rest", secret });
  t.equal(sub.secret, secret, "POST answers the secret");
  await r.until(() => r.received.length === 1);
  const code: string = r.received[0].json.validation_code;
  t.match(code, /^[A-Za-z0-9_-]{32}$/);
  assertNowhereIn(t, await storedRow(sub.subscription_id), { secret, code });
  const listed = await sys.api("GET", `${API}/subscriptions/${user.workspaceId}`, { auth: user.auth });
  t.equal(listed.body[0].secret, secret, "GET answers the secret");

  const created = await admin.createSubscription({ service: "hiring", workspaceId: "ws_at_rest", url: r.url("hiring") });
  t.match(created.secret, /^whsec_/, "CreateSubscription answers the generated secret");
  assertNowhereIn(t, await storedRow(created.subscription!.subscriptionId), { secret: created.secret });
});

t.test("a secret changed by PUT is stored sealed too, and what is sent is signed with it", async (t) => {
  const user = await sys.signup("put-secret");
  const r = await receiver(t, () => false);
  const sub = await subscribe(user, { url_callback: r.url(), description: "before" });
  await r.until(() => r.received.length === 1);
  const secret = "the replacing secret";
  const res = await sys.api("PUT", `${API}/subscriptions/${user.workspaceId}/${sub.subscription_id}`, {
    auth: user.auth,
    body: { url_callback: r.url("moved"), event_filters: filters, description: "after", secret },
  });
  t.equal(res.body.secret, secret, "PUT answers the secret");
  await r.until(() => r.received.length === 2);
  const ping = r.received[1];
  t.equal(ping.headers["x-webhook-signature-256"], "sha256=" + createHmac("sha256", secret).update(ping.body).digest("hex"));
  assertNowhereIn(t, await storedRow(sub.subscription_id), { "new secret": secret, "old secret": sub.secret, "new code": ping.json.validation_code });
});

t.test("notifications and pings are signed with the subscription's secret, read back from its sealed form", async (t) => {
  const user = await sys.signup("signed");
  const r = await receiver(t, (req) => req.path === "/tracking");
  const secret = "signing secret of the user";
  const sub = await subscribe(user, { url_callback: r.url("tracking"), description: "signed", secret });
  await eventually(async () => (await validatedAt(user)) !== null, 10_000, "validation");
  const internal = await admin.createSubscription({ service: "tracking", workspaceId: String(user.workspaceId), url: r.url("internal") });
  const client = await sys.api("POST", `/api/v9/workspaces/${user.workspaceId}/clients`, { auth: user.auth, body: { name: "Sealed Ltd" } });
  t.equal(client.status, 200, client.text);
  await r.until(() => r.received.filter((x) => x.json?.payload?.name === "Sealed Ltd").length === 2);
  for (const [path, key] of [
    ["/tracking", secret],
    ["/internal", internal.secret],
  ]) {
    const delivery = r.received.find((x) => x.path === path && x.json?.payload?.name === "Sealed Ltd")!;
    const timestamp = Number(delivery.headers["webhook-timestamp"]);
    t.equal(delivery.headers["x-webhook-signature-256"], "sha256=" + createHmac("sha256", key).update(delivery.body).digest("hex"), `${path}: X-Webhook-Signature-256`);
    t.equal(delivery.headers["webhook-signature"], standardSignature(key, String(delivery.headers["webhook-id"]), timestamp, delivery.body), `${path}: webhook-signature`);
  }
  const pinged = await sys.api("POST", `${API}/ping/${user.workspaceId}/${sub.subscription_id}`, { auth: user.auth });
  t.same(pinged.body, { status: "OK" });
  const ping = r.received[r.received.length - 1];
  t.equal(ping.json.payload, "ping");
  t.equal(ping.headers["x-webhook-signature-256"], "sha256=" + createHmac("sha256", secret).update(ping.body).digest("hex"), "the ping too");
});

t.test("the validation link validates with the right code, and a wrong one validates nothing", async (t) => {
  const user = await sys.signup("link");
  const r = await receiver(t, () => false);
  const sub = await subscribe(user, { url_callback: r.url(), description: "link" });
  await r.until(() => r.received.length === 1);
  const code: string = r.received[0].json.validation_code;
  for (const wrong of [`${code.slice(0, -1)}${code.endsWith("A") ? "B" : "A"}`, code.toUpperCase() === code ? "x" : code.toUpperCase(), "x"]) {
    const res = await validate(user, sub.subscription_id, wrong);
    t.equal(res.status, 404, wrong);
  }
  t.equal(await validatedAt(user), null);
  const ok = await validate(user, sub.subscription_id, code);
  t.equal(ok.status, 200, ok.text);
  t.not(await validatedAt(user), null);
  t.equal((await validate(user, sub.subscription_id, code)).status, 200, "the link opened again still answers OK");
});

t.test("an explicit ping of an unvalidated subscription carries a fresh code: the old link validates nothing, the new one does", async (t) => {
  const user = await sys.signup("fresh-code");
  const r = await receiver(t, () => false);
  const sub = await subscribe(user, { url_callback: r.url(), description: "fresh" });
  await r.until(() => r.received.length === 1);
  const first: string = r.received[0].json.validation_code;
  const pinged = await sys.api("POST", `${API}/ping/${user.workspaceId}/${sub.subscription_id}`, { auth: user.auth });
  t.same(pinged.body, { status: "OK" });
  const second: string = r.received[1].json.validation_code;
  t.match(second, /^[A-Za-z0-9_-]{32}$/);
  t.not(second, first, "a new code");
  t.equal(r.received[1].json.validation_code_url, `${sys.url}${API}/validate/${user.workspaceId}/${sub.subscription_id}/${second}`);
  assertNowhereIn(t, await storedRow(sub.subscription_id), { "new code": second });
  t.equal((await validate(user, sub.subscription_id, first)).status, 404, "the replaced code");
  t.equal(await validatedAt(user), null);
  t.equal((await validate(user, sub.subscription_id, second)).status, 200, "the fresh code");
  t.not(await validatedAt(user), null);
});

t.test("a receiver that echoes the fresh code of an explicit ping validates the subscription", async (t) => {
  const user = await sys.signup("echo-fresh");
  let echo = false;
  const r = await receiver(t, () => echo);
  const sub = await subscribe(user, { url_callback: r.url(), description: "echo" });
  await r.until(() => r.received.length === 1);
  echo = true;
  await sys.api("POST", `${API}/ping/${user.workspaceId}/${sub.subscription_id}`, { auth: user.auth });
  t.not(await validatedAt(user), null);
  const validatedPing = await sys.api("POST", `${API}/ping/${user.workspaceId}/${sub.subscription_id}`, { auth: user.auth });
  t.same(validatedPing.body, { status: "OK" });
  t.notOk("validation_code" in r.received[2].json, "a validated subscription's ping carries no code");
});

t.test("subscriptions stored in clear before the upgrade are sealed when the notifier opens, and keep their secret and code", async (t) => {
  const env = testEnv();
  const config = loadConfig(env);
  // Teardowns run last-registered first: the schema goes after the notifier stopped.
  t.teardown(() => cleanUp(config));
  const r = await startReceiver(t);
  // The schema as it was before secrets were sealed, with rows as that version wrote them.
  const before = await openDatabase(config, "notifier", [outboxMigration, ...migrations.filter((m) => m.name < "0005")]);
  const now = new Date();
  const trackingSecret = "legacy chosen secret";
  const hiringSecret = `whsec_${randomBytes(24).toString("base64")}`;
  const code = "legacy-validation-code-0123456789";
  const common = { user_id: 1, event_filters: JSON.stringify([{ entity: "*", action: "*" }]), enabled: true, created_at: now, updated_at: now };
  const [trackingId] = await before("subscriptions").insert({ ...common, family: "tracking", workspace_id: "7", description: "legacy", unique_description: "legacy", url: r.url("tracking"), secret: trackingSecret, validation_code: code, validated_at: null });
  const [hiringId] = await before("subscriptions").insert({ ...common, family: "hiring", workspace_id: "ws_legacy", description: "", unique_description: null, url: r.url("hiring"), secret: hiringSecret, validation_code: null, validated_at: now });
  await before.destroy();

  const n = await startNotifier(t, { clock: systemClock, env });
  for (const [id, texts] of [
    [trackingId, { secret: trackingSecret, code }],
    [hiringId, { secret: hiringSecret }],
  ] as const) {
    const row: Record<string, unknown> = await n.notifier.stores.subscriptions.db("subscriptions").where({ id }).first();
    assertNowhereIn(t, row, texts);
    t.match(row, { secret: null, validation_code: null, secret_sealed: /^v1\./ }, "the plain columns are emptied");
  }
  t.equal(await n.notifier.stores.subscriptions.sealPlain(), 0, "nothing is left to seal");

  // The validation link's RPC, which needs no credentials, with the code stored before.
  const api = createClient(TrackingWebhookService, createRouterTransport(n.notifier.routes));
  const link = (validationCode: string) => api.validateWorkspaceSubscription({ workspaceId: 7n, subscriptionId: BigInt(trackingId), validationCode }).catch((e) => ConnectError.from(e));
  t.match(await link("legacy-validation-code-012345678x"), { code: Code.NotFound });
  t.equal((await n.notifier.stores.subscriptions.get(BigInt(trackingId)))?.validated_at, null, "a wrong code validates nothing");
  t.match(await link(code), { status: "OK" });

  await publishEvent(n.bus, { service: "hiring", workspaceId: "ws_legacy", entity: "candidate", action: "updated" });
  await publishEvent(n.bus, { service: "tracking", workspaceId: "7", entity: "client", action: "created" });
  await r.until(() => r.received.length === 2);
  const hiring = r.received.find((x) => x.path === "/hiring")!;
  t.equal(hiring.headers["webhook-signature"], standardSignature(hiringSecret, String(hiring.headers["webhook-id"]), Number(hiring.headers["webhook-timestamp"]), hiring.body), "signed with the secret stored before");
  const tracking = r.received.find((x) => x.path === "/tracking")!;
  t.equal(tracking.headers["x-webhook-signature-256"], "sha256=" + createHmac("sha256", trackingSecret).update(tracking.body).digest("hex"), "signed with the secret stored before");
});
