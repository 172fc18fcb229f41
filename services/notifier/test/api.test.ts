import t from "tap";
import { createHmac } from "node:crypto";
import { IdentityService } from "../../../gen/accounts/v1/accounts_pb.js";
import { WebhookAdminService } from "../../../gen/notifier/v1/webhooks_pb.js";
import { startTestSystem, type TestContext, type TrackUser, startReceiver, type Received } from "../../../test/support/harness.js";
import { standardSignature } from "../delivery/signing.js";
import { eventually } from "./support.js";

/** The time-tracking webhooks API under /webhooks/api/v1, through the gateway. */

const sys = await startTestSystem(t);
const admin = sys.directory.client("notifier", WebhookAdminService);
const API = "/webhooks/api/v1";

/** A receiver that answers pings with the validation code when `echo` says so, and 200 to the rest. */
async function receiver(t: TestContext, echo: (req: Received) => boolean = () => true) {
  return startReceiver(t, (req) => (req.json?.payload === "ping" && req.json.validation_code && echo(req) ? { status: 200, body: JSON.stringify({ validation_code: req.json.validation_code }) } : 200));
}

const filters = [{ entity: "client", action: "*" }];

async function create(user: TrackUser, body: Record<string, unknown>) {
  return sys.api("POST", `${API}/subscriptions/${user.workspaceId}`, { auth: user.auth, body });
}

async function list(user: TrackUser) {
  const res = await sys.api("GET", `${API}/subscriptions/${user.workspaceId}`, { auth: user.auth });
  if (res.status !== 200) throw new Error(res.text);
  return res.body as Record<string, any>[];
}

async function createClient(user: TrackUser, name: string) {
  const res = await sys.api("POST", `/api/v9/workspaces/${user.workspaceId}/clients`, { auth: user.auth, body: { name } });
  if (res.status !== 200) throw new Error(res.text);
  return res.body;
}

/**
 * A validated internal subscription in the same workspace: once it has an event, that event's
 * ingest is over for every subscription of the workspace (same transaction), so what another
 * subscription did not queue by then it never will.
 */
async function witness(t: TestContext, user: TrackUser) {
  const r = await startReceiver(t);
  await admin.createSubscription({ service: "tracking", workspaceId: String(user.workspaceId), url: r.url("witness") });
  return r;
}

async function pending(subscriptionId: number) {
  return (await admin.listNotifications({ subscriptionId: String(subscriptionId) })).notifications;
}

t.test("a new subscription answers every field, with a generated secret, and gets a validation request", async (t) => {
  const user = await sys.signup("fields");
  const r = await receiver(t, () => false);
  const res = await create(user, { url_callback: r.url(), event_filters: filters, description: "My first Webhooks subscription" });
  t.equal(res.status, 200, res.text);
  const sub = res.body;
  t.same(Object.keys(sub), [
    "subscription_id",
    "workspace_id",
    "user_id",
    "enabled",
    "description",
    "event_filters",
    "url_callback",
    "secret",
    "validated_at",
    "has_pending_events",
    "created_at",
    "updated_at",
    "deleted_at",
  ]);
  t.match(sub, {
    subscription_id: Number,
    workspace_id: user.workspaceId,
    user_id: user.id,
    enabled: true,
    description: "My first Webhooks subscription",
    event_filters: filters,
    url_callback: r.url(),
    secret: /^whsec_/,
    validated_at: null,
    has_pending_events: false,
    created_at: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/,
    deleted_at: null,
  });
  await r.until(() => r.received.length === 1);
  const ping = r.received[0].json;
  t.match(ping, { payload: "ping", subscription_id: sub.subscription_id, url_callback: r.url(), validation_code: /^[A-Za-z0-9_-]{32}$/ });
  t.equal(ping.validation_code_url, `${sys.url}${API}/validate/${user.workspaceId}/${sub.subscription_id}/${ping.validation_code}`);
  t.same(await list(user), [sub]);
});

t.test("a receiver that echoes the validation code validates the subscription, then gets the events, signed", async (t) => {
  const user = await sys.signup("echo");
  const r = await receiver(t);
  const { body: sub } = await create(user, { url_callback: r.url(), event_filters: [{ entity: "client", action: "created" }], description: "echo" });
  await eventually(async () => (await list(user))[0].validated_at !== null, 10_000, "validation");
  t.match((await list(user))[0].validated_at, /\+00:00$/);
  const client = await createClient(user, "Signed Inc");
  await r.until(() => r.received.length === 2);
  const delivery = r.received[1];
  t.match(delivery.json, {
    metadata: { action: "created", model: "client", workspace_id: String(user.workspaceId), event_user_id: String(user.id) },
    payload: { id: client.id, name: "Signed Inc", wid: user.workspaceId },
    subscription_id: sub.subscription_id,
    creator_id: user.id,
    url_callback: r.url(),
  });
  const expected = "sha256=" + createHmac("sha256", sub.secret).update(delivery.body).digest("hex");
  t.equal(delivery.headers["x-webhook-signature-256"], expected, "X-Webhook-Signature-256 is the HMAC of the raw body");
  const timestamp = Number(delivery.headers["webhook-timestamp"]);
  t.equal(delivery.headers["webhook-signature"], standardSignature(sub.secret, String(delivery.headers["webhook-id"]), timestamp, delivery.body));
  t.match(delivery.headers["webhook-id"], /^ntf_/);
  t.equal(delivery.json.notification_id, delivery.headers["webhook-id"]);
});

t.test("an unvalidated subscription gets no events; the validation link validates it; a wrong code validates nothing", async (t) => {
  const user = await sys.signup("link");
  const r = await receiver(t, () => false);
  const { body: sub } = await create(user, { url_callback: r.url(), event_filters: filters, description: "link" });
  await r.until(() => r.received.length === 1);
  const code: string = r.received[0].json.validation_code;
  const w = await witness(t, user);
  await createClient(user, "Before validation");
  await w.until(() => w.received.length === 1);
  t.same(await pending(sub.subscription_id), [], "nothing was queued for the unvalidated subscription");

  const wrong = await sys.api("GET", `${API}/validate/${user.workspaceId}/${sub.subscription_id}/${code.slice(1)}x`);
  t.equal(wrong.status, 404);
  t.equal(wrong.body, `subscription ${sub.subscription_id} for workspace ${user.workspaceId} was not found`);
  const otherWorkspace = await sys.api("GET", `${API}/validate/${user.workspaceId + 1000}/${sub.subscription_id}/${code}`);
  t.equal(otherWorkspace.status, 404);
  t.equal((await list(user))[0].validated_at, null);

  const ok = await sys.api("GET", `${API}/validate/${user.workspaceId}/${sub.subscription_id}/${code}`);
  t.equal(ok.status, 200, "the link needs no credentials: the code is the proof");
  t.same(ok.body, { status: "OK" });
  t.not((await list(user))[0].validated_at, null);
  await createClient(user, "After validation");
  await r.until(() => r.received.length === 2);
  t.equal(r.received[1].json.payload.name, "After validation");
});

t.test("a disabled subscription gets no events; enabled again, it does", async (t) => {
  const user = await sys.signup("toggle");
  const r = await receiver(t);
  const { body: sub } = await create(user, { url_callback: r.url(), event_filters: filters, description: "toggle" });
  await eventually(async () => (await list(user))[0].validated_at !== null, 10_000, "validation");
  const path = `${API}/subscriptions/${user.workspaceId}/${sub.subscription_id}`;
  const off = await sys.api("PATCH", path, { auth: user.auth, body: { enabled: false } });
  t.equal(off.status, 200, off.text);
  t.match(off.body, { subscription_id: sub.subscription_id, enabled: false });
  t.ok(Date.parse(off.body.updated_at) >= Date.parse(sub.updated_at));
  const w = await witness(t, user);
  await createClient(user, "While disabled");
  await w.until(() => w.received.length === 1);
  t.same(await pending(sub.subscription_id), []);
  const missing = await sys.api("PATCH", path, { auth: user.auth, body: {} });
  t.equal(missing.status, 400);
  t.equal(missing.body, "Field 'enabled' is required");
  const on = await sys.api("PATCH", path, { auth: user.auth, body: { enabled: true } });
  t.match(on.body, { enabled: true });
  await createClient(user, "Enabled again");
  await r.until(() => r.received.length === 2);
  t.equal(r.received[1].json.payload.name, "Enabled again");
});

t.test("PUT replaces the subscription; a new URL is validated again", async (t) => {
  const user = await sys.signup("put");
  const first = await receiver(t);
  const { body: sub } = await create(user, { url_callback: first.url(), event_filters: filters, description: "before" });
  await eventually(async () => (await list(user))[0].validated_at !== null, 10_000, "validation");
  const second = await receiver(t, () => false);
  const res = await sys.api("PUT", `${API}/subscriptions/${user.workspaceId}/${sub.subscription_id}`, {
    auth: user.auth,
    body: { url_callback: second.url("new"), event_filters: [{ entity: "client", action: "deleted" }], description: "after", secret: "new secret string", enabled: true },
  });
  t.equal(res.status, 200, res.text);
  t.match(res.body, { subscription_id: sub.subscription_id, description: "after", url_callback: second.url("new"), secret: "new secret string", validated_at: null, event_filters: [{ entity: "client", action: "deleted" }] });
  await second.until(() => second.received.length === 1);
  t.match(second.received[0].json, { payload: "ping", validation_code: String });
  t.equal(
    second.received[0].headers["x-webhook-signature-256"],
    "sha256=" + createHmac("sha256", "new secret string").update(second.received[0].body).digest("hex"),
    "signed with the new secret",
  );
  const same = await sys.api("PUT", `${API}/subscriptions/${user.workspaceId}/${sub.subscription_id}`, {
    auth: user.auth,
    body: { url_callback: second.url("new"), event_filters: filters, description: "again" },
  });
  t.match(same.body, { description: "again", secret: "new secret string", enabled: true }, "secret and enabled stay when left out");
});

t.test("DELETE answers the subscription with deleted_at and removes it", async (t) => {
  const user = await sys.signup("delete");
  const r = await receiver(t);
  const { body: sub } = await create(user, { url_callback: r.url(), event_filters: filters, description: "gone" });
  const path = `${API}/subscriptions/${user.workspaceId}/${sub.subscription_id}`;
  const res = await sys.api("DELETE", path, { auth: user.auth });
  t.equal(res.status, 200, res.text);
  t.match(res.body, { subscription_id: sub.subscription_id, description: "gone", deleted_at: /\+00:00$/ });
  t.same(await list(user), []);
  const again = await sys.api("DELETE", path, { auth: user.auth });
  t.equal(again.status, 404);
  t.equal(again.body, `subscription ${sub.subscription_id} for workspace ${user.workspaceId} was not found`);
});

t.test("of changes at once, those that find the subscription deleted answer 404", async (t) => {
  const user = await sys.signup("delete-race");
  const r = await receiver(t);
  for (let round = 0; round < 3; round++) {
    const { body: sub } = await create(user, { url_callback: r.url(), event_filters: filters, description: `race ${round}` });
    const path = `${API}/subscriptions/${user.workspaceId}/${sub.subscription_id}`;
    const answers = await Promise.all([
      sys.api("DELETE", path, { auth: user.auth }),
      sys.api("DELETE", path, { auth: user.auth }),
      sys.api("DELETE", path, { auth: user.auth }),
      sys.api("PATCH", path, { auth: user.auth, body: { enabled: false } }),
    ]);
    t.same(answers.slice(0, 3).map((a) => a.status).sort(), [200, 404, 404], `round ${round}: one DELETE removes it`);
    const patch = answers[3];
    t.ok(patch.status === 404 || (patch.status === 200 && patch.body.enabled === false), `round ${round}: the PATCH came before (200) or after (404)`);
    t.same(await list(user), []);
  }
});

t.test("bad input gets the real service's messages and changes nothing", async (t) => {
  const user = await sys.signup("bad");
  await sys.directory.client("accounts", IdentityService).setWorkspacePlan({ workspaceId: BigInt(user.workspaceId), premium: true });
  const r = await receiver(t);
  const ok = await create(user, { url_callback: r.url(), event_filters: filters, description: "taken" });
  t.equal(ok.status, 200, ok.text);
  for (const [body, message] of [
    [{ url_callback: r.url(), event_filters: filters, description: "" }, "Subscription description must not be empty"],
    [{ url_callback: r.url(), event_filters: filters }, "Subscription description must not be empty"],
    [{ url_callback: r.url(), event_filters: filters, description: "x".repeat(201) }, "Subscription description must not be longer than 200 characters"],
    [{ url_callback: r.url(), event_filters: [], description: "d" }, "The list of event filters must not be empty"],
    [{ url_callback: r.url(), description: "d" }, "The list of event filters must not be empty"],
    [{ url_callback: r.url(), event_filters: [...filters, ...filters], description: "d" }, "The list of event filters must not contain duplicates"],
    [{ url_callback: r.url(), event_filters: [{ entity: "spaceship", action: "*" }], description: "d" }, "Event filter entity 'spaceship' is not supported"],
    [{ url_callback: r.url(), event_filters: [{ entity: "client", action: "launched" }], description: "d" }, "Event filter action 'launched' is not supported for entity 'client'"],
    [{ event_filters: filters, description: "d" }, "URL callback must not be empty"],
    [{ url_callback: "not a url", event_filters: filters, description: "d" }, "URL is not valid"],
    [{ url_callback: r.url(), event_filters: filters, description: "taken" }, "Subscription description must be unique in the workspace"],
    [{ url_callback: r.url(), event_filters: "client", description: "d" }, "Invalid value for event_filters: expected array, got string"],
  ] as const) {
    const res = await create(user, body);
    t.equal(res.status, 400, JSON.stringify(body));
    t.equal(res.body, message);
  }
  const malformed = await sys.api("POST", `${API}/subscriptions/${user.workspaceId}`, { auth: user.auth, rawBody: "{nope", headers: { "content-type": "application/json" } });
  t.equal(malformed.status, 400);
  t.equal(malformed.body, "Invalid JSON input");
  const badId = await sys.api("GET", `${API}/subscriptions/abc`, { auth: user.auth });
  t.equal(badId.status, 400);
  t.same(
    (await list(user)).map((s) => s.description),
    ["taken"],
  );
});

t.test("limits: a free workspace has 1 webhook with up to 3 filters, a premium one 3 with up to 12", async (t) => {
  const user = await sys.signup("limits");
  const r = await receiver(t);
  const limits = await sys.api("GET", `${API}/limits/${user.workspaceId}`, { auth: user.auth });
  t.same(limits.body, { max_webhooks: 1, max_events_per_webhook: 3 });
  const four = ["created", "updated", "deleted", "*"].map((action) => ({ entity: "client", action }));
  const tooMany = await create(user, { url_callback: r.url(), event_filters: four, description: "four" });
  t.equal(tooMany.status, 402);
  t.equal(tooMany.body, "A webhook in this workspace may have at most 3 event filters");
  t.equal((await create(user, { url_callback: r.url(), event_filters: filters, description: "one" })).status, 200);
  const second = await create(user, { url_callback: r.url(), event_filters: filters, description: "two" });
  t.equal(second.status, 402);
  t.equal(second.body, "The workspace has reached its maximum of 1 webhooks");

  // A premium workspace (the plan set before its first call: access answers are cached for seconds).
  const premium = await sys.signup("premium");
  await sys.directory.client("accounts", IdentityService).setWorkspacePlan({ workspaceId: BigInt(premium.workspaceId), premium: true });
  t.same((await sys.api("GET", `${API}/limits/${premium.workspaceId}`, { auth: premium.auth })).body, { max_webhooks: 3, max_events_per_webhook: 12 });
  t.equal((await create(premium, { url_callback: r.url(), event_filters: four, description: "one" })).status, 200);
  t.equal((await create(premium, { url_callback: r.url(), event_filters: filters, description: "two" })).status, 200);
  t.equal((await create(premium, { url_callback: r.url(), event_filters: filters, description: "three" })).status, 200);
  const fourth = await create(premium, { url_callback: r.url(), event_filters: filters, description: "four" });
  t.equal(fourth.status, 402);
  t.equal(fourth.body, "The workspace has reached its maximum of 3 webhooks");
  t.equal((await list(premium)).length, 3);
  t.equal((await list(user)).length, 1);
});

t.test("the limit holds when many subscriptions are created at once", async (t) => {
  const r = await receiver(t);
  for (const [name, premium, max] of [["burst", false, 1], ["burst-premium", true, 3]] as const) {
    const user = await sys.signup(name);
    if (premium) await sys.directory.client("accounts", IdentityService).setWorkspacePlan({ workspaceId: BigInt(user.workspaceId), premium: true });
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => create(user, { url_callback: r.url(), event_filters: filters, description: `d${i}` })));
    t.equal(answers.filter((a) => a.status === 200).length, max, `${name}: ${max} made`);
    t.equal(answers.filter((a) => a.status === 402).length, 12 - max, `${name}: the others refused`);
    t.equal((await list(user)).length, max);
  }
});

t.test("another workspace's subscriptions can be neither seen nor changed", async (t) => {
  const owner = await sys.signup("owner");
  const other = await sys.signup("other");
  const r = await receiver(t, () => false);
  const { body: sub } = await create(owner, { url_callback: r.url(), event_filters: filters, description: "mine" });
  const before = await list(owner);

  for (const [method, path, body] of [
    ["GET", `${API}/subscriptions/${owner.workspaceId}`],
    ["POST", `${API}/subscriptions/${owner.workspaceId}`, { url_callback: r.url(), event_filters: filters, description: "theirs" }],
    ["PUT", `${API}/subscriptions/${owner.workspaceId}/${sub.subscription_id}`, { url_callback: r.url(), event_filters: filters, description: "x" }],
    ["PATCH", `${API}/subscriptions/${owner.workspaceId}/${sub.subscription_id}`, { enabled: false }],
    ["DELETE", `${API}/subscriptions/${owner.workspaceId}/${sub.subscription_id}`],
    ["POST", `${API}/ping/${owner.workspaceId}/${sub.subscription_id}`],
    ["GET", `${API}/limits/${owner.workspaceId}`],
  ] as const) {
    const res = await sys.api(method, path, { auth: other.auth, body });
    t.equal(res.status, 403, `${method} ${path}`);
    t.equal(res.body, "User not found/accessible for workspace");
  }
  // Through the caller's own workspace, the id names no subscription of it.
  const notFound = `subscription ${sub.subscription_id} for workspace ${other.workspaceId} was not found`;
  for (const [method, path, body] of [
    ["PUT", `${API}/subscriptions/${other.workspaceId}/${sub.subscription_id}`, { url_callback: r.url(), event_filters: filters, description: "x" }],
    ["PATCH", `${API}/subscriptions/${other.workspaceId}/${sub.subscription_id}`, { enabled: false }],
    ["DELETE", `${API}/subscriptions/${other.workspaceId}/${sub.subscription_id}`],
    ["POST", `${API}/ping/${other.workspaceId}/${sub.subscription_id}`],
  ] as const) {
    const res = await sys.api(method, path, { auth: other.auth, body });
    t.equal(res.status, 404, `${method} ${path}`);
    t.equal(res.body, notFound);
  }
  t.same(await list(owner), before, "nothing changed");
  const noAuth = await sys.api("GET", `${API}/subscriptions/${owner.workspaceId}`);
  t.equal(noAuth.status, 403);
});

t.test("ping sends a dummy payload now and answers how it went", async (t) => {
  const user = await sys.signup("ping");
  let status = 200;
  const r = await startReceiver(t, () => status);
  const { body: sub } = await create(user, { url_callback: r.url(), event_filters: filters, description: "ping" });
  await r.until(() => r.received.length === 1);
  const path = `${API}/ping/${user.workspaceId}/${sub.subscription_id}`;
  const ok = await sys.api("POST", path, { auth: user.auth });
  t.equal(ok.status, 200, ok.text);
  t.same(ok.body, { status: "OK" });
  t.equal(r.received.length, 2, "sent before the answer");
  t.match(r.received[1].json, { payload: "ping", subscription_id: sub.subscription_id, validation_code: String });
  status = 500;
  const failed = await sys.api("POST", path, { auth: user.auth });
  t.same(failed.body, { status: "Failed: status 500" });
  const { attempts } = await admin.listDeliveryAttempts({ subscriptionId: String(sub.subscription_id) });
  t.same(
    attempts.map((a) => [a.outcome, a.statusCode]),
    [
      ["ping_failed", 500],
      ["ping_ok", 200],
      ["ping_ok", 200],
    ],
  );
});

t.test("event_filters, status and the notifier's metrics", async (t) => {
  const user = await sys.signup("filters");
  const res = await sys.api("GET", `${API}/event_filters`, { auth: user.auth });
  t.equal(res.status, 200);
  const all = ["created", "updated", "deleted"];
  t.same(res.body, {
    workspace: all,
    workspace_user: all,
    client: all,
    project: all,
    task: all,
    tag: all,
    project_user: all,
    project_group: ["created", "deleted"],
    time_entry: all,
    // One event per finished import (services/tracking/imports/).
    import: ["finished"],
  });
  t.equal((await sys.api("GET", `${API}/event_filters`)).status, 403, "needs credentials");
  const status = await sys.api("GET", `${API}/status`);
  t.same([status.status, status.body], [200, { status: "OK" }]);
  const metrics = await fetch(`http://127.0.0.1:${sys.ports.notifier}/metrics`);
  t.equal(metrics.status, 200);
  const text = await metrics.text();
  for (const name of ["webhook_deliveries_total", "webhook_failures_total", "webhook_give_ups_total", "webhook_delivery_latency_seconds_count", "webhook_queue_depth"]) {
    t.match(text, new RegExp(`^# TYPE ${name.replace(/_count$/, "")} `, "m"), name);
  }
});
