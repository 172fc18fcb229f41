import * as net from "node:net";
import { writeFileSync } from "node:fs";
import { ScalarType, type DescField } from "@bufbuild/protobuf";
import { Family } from "../gen/gateway/v1/annotations_pb.js";
import { PROTO_FILES } from "../lib/contracts.js";
import { collectRoutes, type RestRoute } from "../gateway/routes.js";
import { log, startProcess, stopProcess } from "./support.js";
import { cleanUp, freePort, testEnv } from "../test/support/harness.js";
import { loadConfig } from "../lib/config.js";
import { seededRandom } from "../lib/seeded-random.js";

/**
 * `npm run -s fuzz`: malformed requests against the gateway, counting answers of 5xx, hangs and
 * answers outside the API family's error format. Every route of the route table gets odd path
 * ids, query values, bodies (wrong types, long strings, huge numbers, deep nesting, bad JSON),
 * credentials (none, wrong, malformed cookies) and headers; some requests are malformed HTTP
 * sent on a raw socket. Seeded, so a run can be repeated.
 *
 * Environment: FUZZ_REQUESTS (20000), FUZZ_SEED (1), FUZZ_CONCURRENCY (8), FUZZ_TIMEOUT_MS (a
 * request unanswered this long is a hang; 10000). FUZZ_URL: fuzz a running system there (its
 * gateway must trust X-Forwarded-For from this machine, TRUST_PROXY=loopback, or the failed-
 * authentication throttle answers most requests); otherwise the system is started here on a
 * fresh data directory (or MYSQL_URL/NATS_URL).
 */

const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 20_000);
const CONCURRENCY = Number(process.env.FUZZ_CONCURRENCY ?? 8);
const TIMEOUT_MS = Number(process.env.FUZZ_TIMEOUT_MS ?? 10_000);
/** FUZZ_ANSWERS=<file>: every request and its whole answer, one per line (with FUZZ_CONCURRENCY=1, the same for the same seed and code). */
const answers: string[] | undefined = process.env.FUZZ_ANSWERS ? [] : undefined;

const random = seededRandom(Number(process.env.FUZZ_SEED ?? 1));
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
const chance = (p: number) => random() < p;

const ODD_IDS = ["0", "-1", "abc", "1.5", "1e3", "9007199254740993", "18446744073709551616", "9".repeat(30), "%E0%A4%A", "%00", "%20", "a".repeat(99), "[]", "null"];
const ODD_STRINGS = ["", " ", "\u0000", "\ud800", "%", "<script>", "a".repeat(101), "a".repeat(256), "a".repeat(2049), "é".repeat(20_000), "a".repeat(70_000), "💥".repeat(5000), "../../etc/passwd", "http://127.0.0.1:1/", "http://localhost./", "http://[::ffff:127.0.0.1]/"];
const ODD_NUMBERS = [0, -1, 1.5, 2147483648, 4294967296, 9007199254740993, 1e30, -1e30, 1e308];
const ODD_QUERY = ["", "-1", "0", "2147483648", "9223372036854775808", "NaN", "1e400", "true", "%E0%A4%A", "a".repeat(5000), ",,,", "[]"];

function oddValue(depth = 0): unknown {
  switch (Math.floor(random() * 8)) {
    case 0:
      return pick(ODD_STRINGS);
    case 1:
      return pick(ODD_NUMBERS);
    case 2:
      return null;
    case 3:
      return chance(0.5);
    case 4:
      return depth > 3 ? [] : Array.from({ length: Math.floor(random() * 4) }, () => oddValue(depth + 1));
    case 5:
      return depth > 3 ? {} : { a: oddValue(depth + 1), name: oddValue(depth + 1) };
    case 6:
      return String(Math.floor(random() * 1000));
    default:
      return "ok";
  }
}

/** A value of roughly the field's type, often at or past a limit. */
function fieldValue(field: DescField): unknown {
  if (chance(0.3)) return oddValue();
  if (field.fieldKind === "list") return Array.from({ length: Math.floor(random() * 3) }, () => (field.listKind === "scalar" && field.scalar === ScalarType.STRING ? pick(ODD_STRINGS) : pick(ODD_NUMBERS)));
  if (field.fieldKind === "scalar") {
    if (field.scalar === ScalarType.STRING) return pick(ODD_STRINGS);
    if (field.scalar === ScalarType.BOOL) return chance(0.5);
    return pick(ODD_NUMBERS);
  }
  return oddValue();
}

function body(route: RestRoute): string | undefined {
  // fetch sends no body with GET.
  if (route.httpMethod === "GET" || (!route.option.body && chance(0.8))) return undefined;
  switch (Math.floor(random() * 10)) {
    case 0:
      return "{";
    case 1:
      return `${"[".repeat(50_000)}${"]".repeat(50_000)}`;
    case 2:
      return JSON.stringify(oddValue());
    case 3:
      return '{"__proto__":{"polluted":1}}';
    default: {
      const fields = route.method.input.fields.filter((f) => !route.pathVariables.includes(f.name));
      return JSON.stringify(Object.fromEntries(fields.filter(() => chance(0.6)).map((f) => [f.name, fieldValue(f)])));
    }
  }
}

interface Target {
  base: string;
  port: number;
  token: string;
  workspaceId: number;
  clientId: number;
}

function request(route: RestRoute, target: Target): { path: string; init: RequestInit & { headers: Record<string, string> } } {
  const path = route.paths[0].replace(/:([a-z_]+)/g, (_m, name: string) =>
    chance(0.5) ? pick(ODD_IDS) : name === "workspace_id" ? String(target.workspaceId) : String(target.clientId),
  );
  const query = route.method.input.fields
    .filter((f) => !route.pathVariables.includes(f.name) && chance(0.3))
    .map((f) => `${encodeURIComponent(f.name)}=${encodeURIComponent(pick(ODD_QUERY))}`)
    .join("&");
  const headers: Record<string, string> = {};
  const auth = Math.floor(random() * 6);
  if (auth <= 2) headers.authorization = `Basic ${Buffer.from(`${target.token}:api_token`).toString("base64")}`;
  else if (auth === 3) headers.cookie = `__Secure-accounts-session=${pick(["%E0%A4%A", "%", "forged", "a".repeat(5000)])}`;
  else if (auth === 4) headers.authorization = pick(["Basic %%%", "Basic", `Basic ${Buffer.from("x@example.com:wrong").toString("base64")}`, "Bearer", "Bearer key_x.y"]);
  const text = body(route);
  if (text !== undefined || chance(0.3)) headers["content-type"] = pick(["application/json", "application/json", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]);
  // Each request as another client behind the trusted proxy: the per-address throttle stays out of the way.
  headers["x-forwarded-for"] = `10.${Math.floor(random() * 256)}.${Math.floor(random() * 256)}.${Math.floor(random() * 256)}`;
  return { path: `${path}${query ? `?${query}` : ""}`, init: { method: route.httpMethod, headers, body: text } };
}

/** Malformed HTTP on a raw socket: the answer's status, or 0 when the connection closed without one. */
function rawMalformed(port: number): Promise<number> {
  const samples = [
    "GET /api/v9/me HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n",
    `GET /api/v2/openings HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`,
    "BREW /api/v9/me HTTP/1.1\r\nHost: x\r\n\r\n",
    "GET /api/v9/me HTTP/9.9\r\nHost: x\r\n\r\n",
    "POST /api/v9/workspaces/1/clients HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
    "POST /api/v9/workspaces/1/clients HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    "\u0000\u0001\u0002garbage\r\n\r\n",
  ];
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.end(pick(samples)));
    let raw = "";
    const timer = setTimeout(() => (socket.destroy(), resolve(-1)), TIMEOUT_MS);
    socket.on("data", (d) => (raw += d.toString("latin1")));
    socket.on("close", () => (clearTimeout(timer), resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1] ?? 0))));
    socket.on("error", () => undefined);
  });
}

function inFamilyFormat(family: Family, status: number, text: string): boolean {
  if (status < 400) return true;
  try {
    const parsed = JSON.parse(text);
    return family === Family.HIRING ? typeof parsed?.error?.type === "string" : typeof parsed === "string";
  } catch {
    return false;
  }
}

async function setUp(base: string): Promise<Target> {
  const email = `fuzz.${Date.now()}@example.com`;
  const signup = await fetch(`${base}/api/signup`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email, password: "fuzzing password", timezone: "UTC" }) });
  if (!signup.ok) throw new Error(`sign-up failed: ${signup.status} ${await signup.text()}`);
  const user = await signup.json();
  // Older systems showed the token only here; it is the same field either way.
  const token = user.api_token as string;
  const auth = `Basic ${Buffer.from(`${token}:api_token`).toString("base64")}`;
  const client = await fetch(`${base}/api/v9/workspaces/${user.default_workspace_id}/clients`, { method: "POST", headers: { authorization: auth, "content-type": "application/json" }, body: JSON.stringify({ name: "Fuzz" }) });
  return { base, port: Number(new URL(base).port), token, workspaceId: user.default_workspace_id, clientId: (await client.json()).id };
}

async function main(): Promise<void> {
  let base = process.env.FUZZ_URL;
  let stop = async () => undefined as void;
  if (!base) {
    const env = testEnv({ PORT: String(await freePort()), HIRING_PORT: String(await freePort()), ACCOUNTS_PORT: String(await freePort()), TRACKING_PORT: String(await freePort()), NOTIFIER_PORT: String(await freePort()), TRUST_PROXY: "loopback", WEBHOOK_ALLOW_INTERNAL: "" });
    base = `http://127.0.0.1:${env.PORT}`;
    const child = await startProcess("cmd/start.ts", env, `${base}/readyz`);
    stop = async () => {
      await stopProcess(child);
      await cleanUp(loadConfig(env));
    };
  }
  const target = await setUp(base);
  // Closing the fuzzing user's own account would end the run's credentials: every other route is fuzzed.
  const routes = collectRoutes(PROTO_FILES.flatMap((f) => f.services)).filter((r) => r.method.name !== "CloseAccount");
  const statuses = new Map<number, number>();
  const fiveHundreds: string[] = [];
  const foreign: string[] = [];
  let hangs = 0;
  let sent = 0;
  const started = Date.now();
  const worker = async () => {
    while (sent < REQUESTS) {
      const n = ++sent;
      if (n % 50 === 0) {
        const status = await rawMalformed(target.port);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        if (status === -1) hangs++;
        if (status >= 500) fiveHundreds.push(`raw malformed request: ${status}`);
        continue;
      }
      const route = pick(routes);
      const { path, init } = request(route, target);
      try {
        const res = await fetch(`${base}${path}`, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
        const text = await res.text();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        const what = `${init.method} ${path.slice(0, 100)} ${String(init.body ?? "").slice(0, 60)} -> ${res.status} ${text.slice(0, 80)}`;
        answers?.push(`${init.method} ${path.slice(0, 300)} ${String(init.body ?? "").slice(0, 300)} -> ${res.status} ${text}`);
        // A token reset with the valid token replaced it: go on with the new one.
        if (res.status === 200 && route.option.revokesCredentials && route.responseField?.name === "api_token") target.token = JSON.parse(text);
        if (res.status >= 500) fiveHundreds.push(what);
        else if (!inFamilyFormat(route.family, res.status, text)) foreign.push(what);
      } catch (err) {
        if ((err as Error).name === "TimeoutError") hangs++;
        else statuses.set(0, (statuses.get(0) ?? 0) + 1);
      }
      if (n % 2000 === 0) log(`${n} requests`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = (Date.now() - started) / 1000;
  const alive = await fetch(`${base}/api/v9/me`, { headers: { authorization: `Basic ${Buffer.from(`${target.token}:api_token`).toString("base64")}` } }).then(
    async (r) => `${r.status} ${await r.text()}`.slice(0, 120),
    () => "no answer",
  );
  await stop();
  const fives = [...statuses].filter(([s]) => s >= 500).reduce((n, [, c]) => n + c, 0);
  if (answers) writeFileSync(process.env.FUZZ_ANSWERS!, `${answers.join("\n")}\n`);
  console.log(`requests            ${REQUESTS} in ${seconds.toFixed(1)} s (${(REQUESTS / seconds).toFixed(0)}/s, concurrency ${CONCURRENCY}, seed ${process.env.FUZZ_SEED ?? 1})`);
  console.log(`statuses            ${[...statuses].sort((a, b) => a[0] - b[0]).map(([s, c]) => `${s === 0 ? "closed" : s === -1 ? "hang" : s}: ${c}`).join(", ")}`);
  console.log(`5xx                 ${fives}`);
  console.log(`hangs (> ${TIMEOUT_MS} ms)   ${hangs}`);
  console.log(`not in the family's error format  ${foreign.length}`);
  console.log(`still serving       ${alive.startsWith("200") ? "yes" : `no (${alive})`}`);
  for (const line of [...new Set(fiveHundreds)].slice(0, 15)) console.log(`  5xx: ${line}`);
  for (const line of [...new Set(foreign)].slice(0, 10)) console.log(`  format: ${line}`);
}

await main();
process.exit(0);
