import t from "tap";
import os from "node:os";
import { syncBuiltinESMExports } from "node:module";
import { isIP } from "node:net";
import type { LookupAddress } from "node:dns";
import { ConnectError, Code } from "@connectrpc/connect";
import { WebhookAdminService } from "../../../gen/notifier/v1/webhooks_pb.js";
import { startTestSystem, startReceiver, type TestContext } from "../../../test/support/harness.js";
import { checkTargetUrl, guardedLookup, isRefusedAddress, type Resolver, type TargetRules } from "../delivery/target.js";
import { createDeliverer } from "../delivery/deliver.js";

const defaults = { allowInternal: false };
const relaxed = { allowInternal: true };
const REFUSED = "URL must not point to an internal address";

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

/** This host's addresses, as its interfaces have them now. */
const hostAddresses = () =>
  Object.values(os.networkInterfaces())
    .flat()
    .flatMap((i) => (i ? [i.address] : []));

/** Pretends, for the rest of the test, that an interface with `address` came up. */
function addInterface(t: TestContext, address: string) {
  const real = os.networkInterfaces;
  const family = isIP(address) === 6 ? "IPv6" : "IPv4";
  os.networkInterfaces = () => ({ ...real(), test0: [{ address, family, netmask: family === "IPv4" ? "255.255.255.255" : "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", mac: "02:00:00:00:00:01", internal: false, cidr: null } as os.NetworkInterfaceInfo] });
  // The rules import networkInterfaces from node:os: this makes them see the replacement.
  syncBuiltinESMExports();
  t.teardown(() => {
    os.networkInterfaces = real;
    syncBuiltinESMExports();
  });
}

/** One address of each special-purpose range (IANA IPv4 and IPv6 registries, multicast), with its edges. */
const SPECIAL_ADDRESSES = [
  "0.0.0.0",
  "0.255.255.255",
  "10.1.2.3",
  "100.64.0.1",
  "100.127.255.254",
  "127.0.0.1",
  "127.1.2.3",
  "169.254.169.254",
  "172.16.0.1",
  "172.31.255.255",
  "192.0.0.8",
  "192.0.0.170",
  "192.0.2.2",
  "192.31.196.1",
  "192.52.193.1",
  "192.88.99.1",
  "192.168.1.1",
  "192.175.48.1",
  "198.18.0.1",
  "198.19.255.255",
  "198.51.100.7",
  "203.0.113.9",
  "224.0.0.1",
  "239.255.255.250",
  "240.0.0.1",
  "255.255.255.255",
  "::",
  "::1",
  "::ffff:7f00:1",
  "::ffff:808:808",
  "::7f00:1",
  "64:ff9b::7f00:1",
  "64:ff9b:1::a00:1",
  "100::1",
  "2001::1",
  "2001:0:4136:e378:8000:63bf:80ff:fffe",
  "2001:2::1",
  "2001:db8::1",
  "2002:7f00:1::1",
  "2002:808:808::1",
  "2620:4f:8000::1",
  "3fff::1",
  "5f00::1",
  "fc00::1",
  "fd00:ec2::254",
  "fe80::1",
  "fec0::1",
  "ff02::1",
  "4000::1",
];

/** Every way a URL can write an internal address or name. */
const INTERNAL_URLS = [
  "http://127.0.0.1/hook",
  "http://127.1.2.3/hook",
  "http://10.1.2.3/hook",
  "http://172.16.0.1/hook",
  "http://192.168.1.1/hook",
  "http://169.254.169.254/latest/meta-data/",
  "http://100.64.0.1/hook",
  "http://0.0.0.0/hook",
  "http://2130706433/hook",
  "http://0x7f.1/hook",
  "http://192.0.2.2/hook",
  "http://198.18.0.1/hook",
  "http://198.51.100.1/hook",
  "http://203.0.113.1/hook",
  "http://192.88.99.1/hook",
  "http://224.0.0.1/hook",
  "http://255.255.255.255/hook",
  "http://[::1]/hook",
  "http://[::]/hook",
  "http://[fd00:ec2::254]/hook",
  "http://[fe80::1]/hook",
  "http://[ff02::1]/hook",
  "http://[::127.0.0.1]/hook",
  "http://[::ffff:127.0.0.1]/hook",
  "http://[::ffff:7f00:1]/hook",
  "http://[64:ff9b::7f00:1]/hook",
  "http://[64:ff9b::127.0.0.1]/hook",
  "http://[64:ff9b:1::a9fe:a9fe]/hook",
  "http://[2002:7f00:1::]/hook",
  "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hook",
  "http://[2001:db8::1]/hook",
  "http://[3fff::1]/hook",
  "http://[100::1]/hook",
  "http://localhost/hook",
  "http://api.localhost/hook",
  "http://metadata.google.internal/computeMetadata/v1/",
  "http://printer.local/hook",
  "http://router.home.arpa/hook",
];

/** The same hosts in their fully qualified form, with the trailing dot. */
const TRAILING_DOT_URLS = ["http://localhost./hook", "http://LOCALHOST./hook", "http://localhost../hook", "http://api.localhost./hook", "http://metadata.google.internal./", "http://printer.local./hook", "http://127.0.0.1./hook"];

const PUBLIC_ADDRESSES = ["93.184.215.14", "8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "2a00:1450:4001:80b::200e"];

t.test("every special-purpose address of the IANA registries is refused, in every IPv6 form that carries IPv4", async (t) => {
  for (const address of SPECIAL_ADDRESSES) t.equal(isRefusedAddress(address), true, address);
});

t.test("public addresses are accepted by the rules, as addresses and in URLs", async (t) => {
  for (const address of PUBLIC_ADDRESSES) {
    t.equal(isRefusedAddress(address), false, address);
    const url = `https://${isIP(address) === 6 ? `[${address}]` : address}/hook`;
    t.equal(await checkTargetUrl(url, defaults), undefined, url);
  }
});

t.test("what is no address is refused as an address", async (t) => {
  for (const text of ["", "localhost", "127.0.0.1.", "example.com"]) t.equal(isRefusedAddress(text), true, JSON.stringify(text));
});

t.test("this host's own addresses are refused, whatever range they are in", async (t) => {
  const own = hostAddresses();
  t.ok(own.length > 0, `the host has addresses: ${own.join(", ")}`);
  for (const address of own) {
    t.equal(isRefusedAddress(address), true, address);
    const url = `http://${isIP(address) === 6 ? `[${address}]` : address}/hook`;
    t.equal(await checkTargetUrl(url, defaults), REFUSED, url);
  }
});

t.test("an interface that comes up later counts from then on: its public address is refused", async (t) => {
  t.equal(isRefusedAddress("93.184.215.14"), false, "public before");
  addInterface(t, "93.184.215.14");
  t.equal(isRefusedAddress("93.184.215.14"), true, "the host's own once its interface has it");
  t.equal(await checkTargetUrl("http://93.184.215.14/hook", defaults), REFUSED);
  addInterface(t, "2606:4700:4700::1111");
  t.equal(isRefusedAddress("2606:4700:4700::1111"), true);
});

t.test("default rules: only ports 80 and 443", async (t) => {
  for (const url of ["https://hooks.example.com/x", "http://hooks.example.com/x", "http://hooks.example.com:80/x", "https://hooks.example.com:443/x"]) {
    t.equal(await checkTargetUrl(url, { ...defaults, resolve: fakeDns({}) }), undefined, url);
  }
  for (const url of ["http://hooks.example.com:8080/x", "https://hooks.example.com:8443/x", "http://hooks.example.com:22/x"]) {
    t.equal(await checkTargetUrl(url, defaults), "URL port must be 80 or 443", url);
  }
});

t.test("default rules: no URL that writes an internal address or name, in any form", async (t) => {
  for (const url of INTERNAL_URLS) t.equal(await checkTargetUrl(url, defaults), REFUSED, url);
});

t.test("default rules: a trailing dot does not hide localhost and the other internal names", async (t) => {
  for (const url of TRAILING_DOT_URLS) t.equal(await checkTargetUrl(url, defaults), REFUSED, url);
});

t.test("default rules: a name that resolves to a refused address is refused when a subscription is made", async (t) => {
  const own = hostAddresses().find((a) => isIP(a) === 4 && a !== "127.0.0.1") ?? "127.0.0.1";
  const rules: TargetRules = {
    ...defaults,
    resolve: fakeDns({
      "inside.example": ["10.0.0.1"],
      "nat64.example": ["64:ff9b::a9fe:a9fe"],
      "self.example": [own],
      "mixed.example": ["93.184.215.14", "127.0.0.1"],
      "public.example": ["93.184.215.14", "2606:4700:4700::1111"],
    }),
  };
  for (const host of ["inside.example", "nat64.example", "self.example", "mixed.example"]) t.equal(await checkTargetUrl(`https://${host}/hook`, rules), REFUSED, host);
  t.equal(await checkTargetUrl("https://public.example/hook", rules), undefined);
  t.equal(await checkTargetUrl("https://unknown.example/hook", rules), undefined, "a name that does not resolve now is checked when connecting");
});

t.test("URLs that are no http(s) URLs are refused under any rules", async (t) => {
  for (const rules of [defaults, relaxed]) {
    t.equal(await checkTargetUrl("ftp://hooks.example.com/x", rules), "URL must use http or https");
    t.equal(await checkTargetUrl("not a url", rules), "URL is not valid");
    t.equal(await checkTargetUrl("http://user:pw@hooks.example.com/x", rules), "URL must not contain credentials");
  }
});

t.test("WEBHOOK_ALLOW_INTERNAL relaxes the rules", async (t) => {
  const rules = { ...relaxed, resolve: fakeDns({ "inside.example": ["10.0.0.1"] }) };
  for (const url of [...INTERNAL_URLS, ...TRAILING_DOT_URLS, "http://hooks.example.com:8080/x", "http://inside.example/x"]) t.equal(await checkTargetUrl(url, rules), undefined, url);
});

t.test("the connect-time lookup drops refused addresses, and refuses a name that has only those", async (t) => {
  const own = hostAddresses().find((a) => isIP(a) === 4 && a !== "127.0.0.1") ?? "127.0.0.1";
  const dns = fakeDns({
    "rebind.example": ["127.0.0.1"],
    "mapped.example": ["::ffff:7f00:1", "::7f00:1", "64:ff9b::7f00:1", "2002:7f00:1::1"],
    "self.example": [own],
    "mixed.example": ["10.0.0.1", "192.0.2.1", "93.184.216.34"],
  });
  const lookup = (rules: TargetRules, host: string) =>
    new Promise<{ err: NodeJS.ErrnoException | null; addresses: unknown }>((resolve) => guardedLookup({ ...rules, resolve: dns })(host, { all: true }, (err, addresses) => resolve({ err, addresses })));
  for (const host of ["rebind.example", "mapped.example", "self.example"]) t.equal((await lookup(defaults, host)).err?.code, "EINTERNALADDRESS", host);
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
  for (const url of ["http://127.0.0.1/hook", "http://169.254.169.254/latest/meta-data/", "http://[::1]/hook", "http://localhost/hook", "http://localhost./hook"]) {
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
  const own = hostAddresses().find((a) => isIP(a) === 4 && a !== "127.0.0.1") ?? "127.0.0.1";
  for (const [url, message] of [
    ["http://127.0.0.1:8080/hook", "URL port must be 80 or 443"],
    ["http://hooks.example.com:8080/hook", "URL port must be 80 or 443"],
    ["http://127.0.0.1/hook", REFUSED],
    ["http://10.0.0.5/hook", REFUSED],
    ["http://169.254.169.254/hook", REFUSED],
    ["http://localhost/hook", REFUSED],
    ["http://localhost./hook", REFUSED],
    ["http://[::ffff:127.0.0.1]/hook", REFUSED],
    ["http://[64:ff9b::7f00:1]/hook", REFUSED],
    [`http://${own}/hook`, REFUSED],
  ]) {
    const res = await sys.api("POST", base, { auth: user.auth, body: body(url) });
    t.equal(res.status, 400, url);
    t.equal(res.body, message, url);
  }
  const admin = sys.directory.client("notifier", WebhookAdminService);
  for (const url of ["http://192.168.0.10/hook", "http://localhost./hook", `http://${own}/hook`]) {
    const refused = await admin.createSubscription({ service: "hiring", workspaceId: "ws_1", url }).catch((e) => ConnectError.from(e));
    t.match(refused, { code: Code.InvalidArgument, rawMessage: REFUSED }, url);
  }
  const listed = await sys.api("GET", base, { auth: user.auth });
  t.same(listed.body, [], "nothing was made");
});

t.test("with the default rules, a PUT to an internal address is refused and changes nothing", async (t) => {
  const sys = await startTestSystem(t, { env: { WEBHOOK_ALLOW_INTERNAL: "0" } });
  const user = await sys.signup("put-rules");
  const base = `/webhooks/api/v1/subscriptions/${user.workspaceId}`;
  // .invalid never resolves (RFC 6761): accepted when made, and no ping leaves the host.
  const made = await sys.api("POST", base, { auth: user.auth, body: { url_callback: "https://hooks.example.invalid/hook", description: "outside", event_filters: [{ entity: "client", action: "*" }] } });
  t.equal(made.status, 200, made.text);
  const own = hostAddresses().find((a) => isIP(a) === 4 && a !== "127.0.0.1") ?? "127.0.0.1";
  for (const url of ["http://localhost./hook", "http://[::127.0.0.1]/hook", `http://${own}/hook`, "http://192.0.2.2/hook"]) {
    const res = await sys.api("PUT", `${base}/${made.body.subscription_id}`, { auth: user.auth, body: { url_callback: url, description: "inside", event_filters: [{ entity: "client", action: "*" }] } });
    t.equal(res.status, 400, url);
    t.equal(res.body, REFUSED, url);
  }
  const listed = await sys.api("GET", base, { auth: user.auth });
  t.match(listed.body, [{ url_callback: "https://hooks.example.invalid/hook", description: "outside" }]);
});
