import t from "tap";
import type { LookupAddress } from "node:dns";
import { ConnectError, Code } from "@connectrpc/connect";
import { WebhookAdminService } from "../../../gen/notifier/v1/webhooks_pb.js";
import { startTestSystem, startReceiver } from "../../../test/support/harness.js";
import { checkTargetUrl, guardedLookup, type Resolver } from "../target.js";
import { createDeliverer } from "../deliver.js";

const defaults = { allowInternal: false };
const relaxed = { allowInternal: true };

/** A resolver with fixed answers, standing in for DNS (a rebinding name, a name with mixed answers). */
const fakeDns =
  (answers: Record<string, string[]>): Resolver =>
  (hostname, callback) => {
    const list = answers[hostname];
    if (!list) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" }), []);
    callback(
      null,
      list.map((address): LookupAddress => ({ address, family: address.includes(":") ? 6 : 4 })),
    );
  };

const INTERNAL = [
  "http://127.0.0.1/hook",
  "http://127.1.2.3/hook",
  "http://10.1.2.3/hook",
  "http://172.16.0.1/hook",
  "http://192.168.1.1/hook",
  "http://169.254.169.254/latest/meta-data/",
  "http://100.64.0.1/hook",
  "http://0.0.0.0/hook",
  "http://2130706433/hook",
  "http://[::1]/hook",
  "http://[fd00:ec2::254]/hook",
  "http://[fe80::1]/hook",
  "http://[::ffff:127.0.0.1]/hook",
  "http://localhost/hook",
  "http://api.localhost/hook",
  "http://metadata.google.internal/computeMetadata/v1/",
];

t.test("default rules: only ports 80 and 443", async (t) => {
  for (const url of ["https://hooks.example.com/x", "http://hooks.example.com/x", "http://hooks.example.com:80/x", "https://hooks.example.com:443/x"]) {
    t.equal(checkTargetUrl(url, defaults), undefined, url);
  }
  for (const url of ["http://hooks.example.com:8080/x", "https://hooks.example.com:8443/x", "http://hooks.example.com:22/x"]) {
    t.equal(checkTargetUrl(url, defaults), "URL port must be 80 or 443", url);
  }
});

t.test("default rules: no loopback, private, link-local or metadata address", async (t) => {
  for (const url of INTERNAL) t.equal(checkTargetUrl(url, defaults), "URL must not point to an internal address", url);
});

t.test("URLs that are no http(s) URLs are refused under any rules", async (t) => {
  for (const rules of [defaults, relaxed]) {
    t.equal(checkTargetUrl("ftp://hooks.example.com/x", rules), "URL must use http or https");
    t.equal(checkTargetUrl("not a url", rules), "URL is not valid");
    t.equal(checkTargetUrl("http://user:pw@hooks.example.com/x", rules), "URL must not contain credentials");
  }
});

t.test("WEBHOOK_ALLOW_INTERNAL relaxes both rules", async (t) => {
  for (const url of [...INTERNAL, "http://hooks.example.com:8080/x"]) t.equal(checkTargetUrl(url, relaxed), undefined, url);
});

t.test("the connect-time lookup drops internal addresses, and refuses a name that has only those", async (t) => {
  const dns = fakeDns({ "rebind.example": ["127.0.0.1"], "mixed.example": ["10.0.0.1", "93.184.216.34"] });
  const lookup = (rules: { allowInternal: boolean }, host: string) =>
    new Promise<{ err: NodeJS.ErrnoException | null; addresses: unknown }>((resolve) => guardedLookup(rules, dns)(host, { all: true }, (err, addresses) => resolve({ err, addresses })));
  const rebind = await lookup(defaults, "rebind.example");
  t.equal(rebind.err?.code, "EINTERNALADDRESS");
  t.same((await lookup(defaults, "mixed.example")).addresses, [{ address: "93.184.216.34", family: 4 }]);
  t.same((await lookup(relaxed, "rebind.example")).addresses, [{ address: "127.0.0.1", family: 4 }]);
});

t.test("a delivery never connects to an internal address, however the name resolves", async (t) => {
  const receiver = await startReceiver(t);
  const dns = fakeDns({ "receiver.example": ["127.0.0.1"] });
  const guarded = createDeliverer({ ...defaults, resolve: dns });
  t.teardown(() => guarded.close());
  const viaName = await guarded("http://receiver.example/hook", "{}", {});
  t.match(viaName, { ok: false, error: /refusing to connect to internal address of receiver\.example/ });
  const viaLocalhost = await createDeliverer(defaults)("http://localhost/hook", "{}", {});
  t.match(viaLocalhost, { ok: false, error: /refusing to connect to internal address of localhost/ }, "localhost resolves to loopback through the system resolver");
  for (const url of ["http://127.0.0.1/hook", "http://169.254.169.254/latest/meta-data/", "http://[::1]/hook"]) {
    t.match(await guarded(url, "{}", {}), { ok: false, error: "refusing to connect to an internal address" }, url);
  }
  t.match(await guarded("http://93.184.216.34:8080/hook", "{}", {}), { ok: false, error: "refusing to connect to a port other than 80 or 443" });
  t.equal(receiver.received.length, 0, "nothing reached the receiver");

  // The same name under relaxed rules reaches the receiver: the lookup is the one connected with.
  const relaxedDeliver = createDeliverer({ ...relaxed, resolve: dns });
  t.teardown(() => relaxedDeliver.close());
  t.match(await relaxedDeliver(`http://receiver.example:${receiver.port}/hook`, "{}", {}), { ok: true, status: 200 });
  t.equal(receiver.received.length, 1);
});

t.test("with the default rules, subscriptions to other ports or internal addresses are refused when made", async (t) => {
  const sys = await startTestSystem(t, { env: { WEBHOOK_ALLOW_INTERNAL: "0" } });
  const user = await sys.signup("rules");
  const base = `/webhooks/api/v1/subscriptions/${user.workspaceId}`;
  const body = (url_callback: string) => ({ url_callback, description: `hook ${url_callback}`, event_filters: [{ entity: "client", action: "*" }] });
  for (const [url, message] of [
    ["http://127.0.0.1:8080/hook", "URL port must be 80 or 443"],
    ["http://hooks.example.com:8080/hook", "URL port must be 80 or 443"],
    ["http://127.0.0.1/hook", "URL must not point to an internal address"],
    ["http://10.0.0.5/hook", "URL must not point to an internal address"],
    ["http://169.254.169.254/hook", "URL must not point to an internal address"],
    ["http://localhost/hook", "URL must not point to an internal address"],
  ]) {
    const res = await sys.api("POST", base, { auth: user.auth, body: body(url) });
    t.equal(res.status, 400, url);
    t.equal(res.body, message, url);
  }
  const admin = sys.directory.client("notifier", WebhookAdminService);
  const refused = await admin.createSubscription({ service: "hiring", workspaceId: "ws_1", url: "http://192.168.0.10/hook" }).catch((e) => ConnectError.from(e));
  t.match(refused, { code: Code.InvalidArgument, rawMessage: "URL must not point to an internal address" });
  const listed = await sys.api("GET", base, { auth: user.auth });
  t.same(listed.body, [], "nothing was made");
});
