import t from "tap";
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import { cpSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, relative } from "node:path";
import { loadConfig, SERVICE_NAMES } from "../../lib/config.js";
import { cleanUp, freePort, STACK_MODE } from "../../test/support/harness.js";

/**
 * The image, built as `docker build -f deploy/Dockerfile .` builds it, without a Docker engine: the
 * Dockerfile's own instructions are replayed in scratch folders (one per stage), the build context
 * filtered by `.dockerignore` with Docker's matching rules. Instructions that change the machine rather
 * than the stage's folder (apt-get, folders at the root of the image's file system) are left out: this
 * machine has the build tools, and the data folder is a scratch one here. Then every process the
 * manifests run (the migrations of the init containers, each service and the gateway) starts from the
 * runtime stage's tree, as the image's entrypoint starts it, and must become ready: a package needed at
 * run time but declared as a dev dependency fails here, not in a cluster.
 */

// A CommonJS module whose types declare an ES default export.
const dockerignore = createRequire(import.meta.url)("@balena/dockerignore") as typeof import("@balena/dockerignore").default;
const ROOT = join(import.meta.dirname, "..", "..");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Stage {
  name: string;
  dir: string;
  env: Record<string, string>;
  entrypoint: string[];
  cmd: string[];
}

/** The instructions of a Dockerfile, continuation lines joined, comments dropped. */
function instructions(text: string): { op: string; args: string }[] {
  return text
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"))
    .map((l) => {
      const [op, ...rest] = l.split(/\s+/);
      return { op: op.toUpperCase(), args: rest.join(" ") };
    });
}

const MACHINE_STEP = /^(apt-get |mkdir -p \/|chown )/;
// A clean install, tsc and every process: a few minutes here, over ten while another suite loads the two cores (633 s once).
if (STACK_MODE) t.setTimeout(900_000);

t.test("the Dockerfile's build steps pass and the pruned tree runs every process", {
  skip: STACK_MODE ? false : "slow (a clean install); runs in the stack mode of .ci/run",
  timeout: 900_000,
}, async (t) => {
  const scratch = mkdtempSync(join(tmpdir(), "workhub-image-"));
  t.teardown(() => rmSync(scratch, { recursive: true, force: true }));
  const ignore = dockerignore().add(readFileSync(join(ROOT, ".dockerignore"), "utf8"));
  const inContext = (path: string) => {
    const rel = relative(ROOT, path);
    return rel === "" || !ignore.ignores(rel);
  };

  const stages = new Map<string, Stage>();
  let stage: Stage | undefined;
  const into = (dest: string) => join(stage!.dir, dest.startsWith("/") ? relative("/app", dest) : dest);
  for (const { op, args } of instructions(readFileSync(join(ROOT, "deploy/Dockerfile"), "utf8"))) {
    if (op === "FROM") {
      const name = args.split(/\s+AS\s+/i)[1] ?? String(stages.size);
      stage = { name, dir: join(scratch, name), env: {}, entrypoint: [], cmd: [] };
      mkdirSync(stage.dir);
      stages.set(name, stage);
    } else if (op === "WORKDIR") {
      t.equal(args, "/app", "every stage works in /app (the scratch folder stands for it)");
    } else if (op === "ENV") {
      for (const pair of args.split(/\s+/)) {
        const [key, value] = pair.split("=");
        stage!.env[key] = value;
      }
    } else if (op === "COPY") {
      const words = args.split(/\s+/);
      const from = words[0].startsWith("--from=") ? stages.get(words.shift()!.slice("--from=".length))! : undefined;
      const dest = words.pop()!;
      // Docker's rules: a folder's contents go into the destination; a file goes into a destination
      // that ends with "/" under its own name, else to the destination itself.
      for (const src of words) {
        const source = from ? join(from.dir, relative("/app", src)) : join(ROOT, src);
        const target = into(dest);
        if (statSync(source).isDirectory()) cpSync(source, target, { recursive: true, filter: from ? undefined : inContext });
        else cpSync(source, dest.endsWith("/") ? join(target, basename(src)) : target);
      }
    } else if (op === "RUN") {
      if (MACHINE_STEP.test(args)) continue;
      for (const step of args.split("&&").map((s) => s.trim())) {
        try {
          execFileSync("sh", ["-c", step], { cwd: stage!.dir, stdio: "pipe", env: { ...process.env, ...stage!.env } });
          t.pass(`${stage!.name}: ${step}`);
        } catch (err) {
          const { stdout, stderr } = err as { stdout: Buffer; stderr: Buffer };
          t.fail(`${stage!.name}: ${step}`, { output: `${stdout}${stderr}`.slice(-3000) });
        }
      }
    } else if (op === "ENTRYPOINT" || op === "CMD") {
      const list = JSON.parse(args) as string[];
      if (op === "ENTRYPOINT") stage!.entrypoint = list;
      else stage!.cmd = list;
    }
  }
  const runtime = stage!;
  t.ok(runtime.entrypoint.length > 0, "the image has an entrypoint");
  // The processes of the production overlay, each from the runtime tree with the image's environment.
  const id = `t${randomBytes(4).toString("hex")}_`;
  const ports = Object.fromEntries(await Promise.all([...SERVICE_NAMES, "gateway"].map(async (n) => [n, await freePort()])));
  const env = {
    PATH: process.env.PATH!,
    HOME: process.env.HOME ?? "/tmp",
    ...runtime.env,
    DATA_DIR: join(scratch, "data"),
    MYSQL_URL: process.env.MYSQL_URL!,
    NATS_URL: process.env.NATS_URL!,
    DATABASE_PREFIX: id,
    NATS_PREFIX: id,
    HOST: "127.0.0.1",
    LOG_LEVEL: "warn",
    INTERNAL_TOKEN: randomBytes(32).toString("base64url"),
    ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    PORT: String(ports.gateway),
    ...Object.fromEntries(SERVICE_NAMES.flatMap((n) => [
      [`${n.toUpperCase()}_PORT`, String(ports[n])],
      [`${n.toUpperCase()}_URL`, `http://127.0.0.1:${ports[n]}`],
    ])),
  };
  mkdirSync(env.DATA_DIR);
  t.teardown(() => cleanUp(loadConfig(env)));

  execFileSync("npm", ["run", "-s", "migrate"], { cwd: runtime.dir, env, stdio: "pipe" });
  t.pass("the init containers' migrations ran from the runtime tree");

  const [command, ...entryArgs] = runtime.entrypoint;
  const processes = [...SERVICE_NAMES, "gateway"].map((name) => {
    const log = join(scratch, `${name}.log`);
    const child = spawn(command, [...entryArgs, name], { cwd: runtime.dir, env, stdio: ["ignore", openSync(log, "a"), openSync(log, "a")] });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    return { name, log, child, exited };
  });
  t.teardown(async () => {
    for (const p of processes) if (p.child.exitCode === null) p.child.kill("SIGKILL");
    await Promise.all(processes.map((p) => p.exited));
  });
  for (const p of processes) {
    const end = Date.now() + 90_000;
    for (;;) {
      if (p.child.exitCode !== null) throw new Error(`${p.name} exited: ${readFileSync(p.log, "utf8").slice(-2000)}`);
      const ok = await fetch(`http://127.0.0.1:${ports[p.name]}/readyz`, { signal: AbortSignal.timeout(2_000) }).then((r) => r.ok, () => false);
      if (ok) break;
      if (Date.now() > end) throw new Error(`${p.name} not ready: ${readFileSync(p.log, "utf8").slice(-2000)}`);
      await sleep(250);
    }
    t.pass(`${p.name} is ready, started as the image starts it`);
  }
  const signup = await fetch(`http://127.0.0.1:${ports.gateway}/api/signup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: "image@example.com", password: "correct horse battery", timezone: "UTC" }),
  });
  t.equal(signup.status, 200, "a sign-up through the gateway reaches the accounts service");

  for (const p of processes) p.child.kill("SIGTERM");
  t.strictSame(await Promise.all(processes.map((p) => p.exited)), processes.map(() => 0), "every process stops cleanly on SIGTERM");
});
