import t from "tap";
import { ManualClock } from "../lib/clock.js";
import { COMMANDS, readArguments, runAdmin, usageOf } from "../cmd/admin.js";
import { startTestSystem, type TestSystem, type TrackUser } from "./support/harness.js";
import { runAdminCli } from "./support/admin-cli.js";

/**
 * The admin command line's arguments: each command declares its options, and node:util's
 * parseArgs reads them; a usage error is exit code 2 with the problem and the usage on stderr.
 */

// A clock the test moves: the tracking service remembers a workspace's plan for 5 s of it.
const clock = new ManualClock(new Date());
const sys: TestSystem = await startTestSystem(t, { clock });
const admin = (...args: string[]) => runAdminCli(sys, ...args);

let clients = 0;

/** What archiving one more client of the workspace answers now: 402 on the free plan, 200 on premium. */
async function archiveStatus(owner: TrackUser): Promise<number> {
  const base = `/api/v9/workspaces/${owner.workspaceId}/clients`;
  const created = await sys.api("POST", base, { auth: owner.auth, body: { name: `Client ${++clients}` } });
  if (created.status !== 200) throw new Error(`creating a client: ${created.status} ${created.text}`);
  return (await sys.api("POST", `${base}/${created.body.id}/archive`, { auth: owner.auth })).status;
}

t.test("track:workspace plan --premium true, run as a command, makes the workspace premium; --premium=false makes it free again", async (t) => {
  const owner = await sys.signup("plan");
  t.equal(await archiveStatus(owner), 402, "free before");

  const premium = await admin("track:workspace", "plan", "--workspace", String(owner.workspaceId), "--premium", "true");
  t.equal(premium.code, 0, premium.stderr);
  t.same(premium.json, { workspace_id: owner.workspaceId, premium: true });
  clock.advance(5_001);
  t.equal(await archiveStatus(owner), 200, "premium once the tracking service asks again");

  const free = await admin("track:workspace", "plan", "--workspace", String(owner.workspaceId), "--premium=false");
  t.equal(free.code, 0, free.stderr);
  t.same(free.json, { workspace_id: owner.workspaceId, premium: false });
  clock.advance(5_001);
  t.equal(await archiveStatus(owner), 402, "free again");
});

t.test("a usage error exits with 2, names the problem and the command's usage on stderr, and prints nothing", async (t) => {
  const [unknown, noValue, missing, none] = await Promise.all([
    admin("track:workspace", "plan", "--workspace", "1", "--premium", "true", "--plan", "gold"),
    admin("track:workspace", "plan", "--workspace", "1", "--premium"),
    admin("track:workspace", "plan", "--premium", "true"),
    admin(),
  ]);
  for (const [run, problem] of [
    [unknown, /Unknown option '--plan'/],
    [noValue, /Option '--premium <value>' argument missing/],
    [missing, /--workspace is required/],
  ] as const) {
    t.equal(run.code, 2, run.stderr);
    t.match(run.stderr, problem);
    t.match(run.stderr, "usage: npm run -s admin -- track:workspace plan --workspace <id> --premium <true|false>");
    t.equal(run.stdout, "");
  }
  t.equal(none.code, 2, "no command");
  for (const name of Object.keys(COMMANDS)) t.match(none.stderr, `\n  ${usageOf(name)}\n`, `${name} is listed`);
});

t.test("--premium takes true or false, after a space or an equals sign", async (t) => {
  const read = (...argv: string[]) => readArguments("track:workspace plan", ["--workspace", "7", ...argv]).options.premium;
  t.equal(read("--premium", "true"), "true");
  t.equal(read("--premium", "false"), "false");
  t.equal(read("--premium=true"), "true");
  t.equal(read("--premium=false"), "false");
  t.throws(() => read("--premium", "yes"), { name: "Error", message: '--premium must be true or false, got "yes"\nusage: npm run -s admin -- track:workspace plan --workspace <id> --premium <true|false>' });
  t.throws(() => read("--premium="), /--premium needs a value/);
  t.throws(() => read("--premium", "--workspace", "8"), /--premium' argument is ambiguous/, "an option is not taken for a value");
});

t.test("a command reads the options it declares, with their defaults; anything else is a usage error", async (t) => {
  t.same(readArguments("webhook:log", ["12"]), { options: { limit: "100", before: "0" }, positional: "12" });
  t.same(readArguments("webhook:log", ["12", "--limit", "5", "--before=40"]), { options: { limit: "5", before: "40" }, positional: "12" });
  t.same(readArguments("hire:candidate update", ["--workspace", "ws_1", "--candidate", "c1", "--tags", "none"]).options, { workspace: "ws_1", candidate: "c1", tags: "none" });
  t.throws(() => readArguments("webhook:log", []), /<subscription id> is required/);
  t.throws(() => readArguments("webhook:log", ["12", "13"]), /Unexpected argument '13'/);
  t.throws(() => readArguments("webhook:metrics", ["extra"]), /Unexpected argument 'extra'/);
  t.throws(() => readArguments("webhook:log", ["12", "--limit", "many"]), /--limit must be a whole number of at least 0, got "many"/);
  t.throws(() => readArguments("hire:generate", ["--workspace", "w", "--candidates", "1000001"]), /--candidates must be a whole number from 1 to 1000000/);
  t.throws(() => readArguments("hire:workspace create", ["--name"]), /Option '--name <value>' argument missing/);
  t.throws(() => readArguments("hire:workspace create", ["--name", "Acme", "-n", "x"]), /Unknown option '-n'/);
});

t.test("an unknown command lists every command's usage", async (t) => {
  await t.rejects(runAdmin(["hire:key", "destroy"], sys.directory), /^no such command: hire:key destroy\nusage: npm run -s admin -- <command>\n  hire:workspace create --name <name>\n/);
  await t.rejects(runAdmin(["constructor"], sys.directory), /no such command: constructor/, "not a property of every object");
});
