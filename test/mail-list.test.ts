import t from "tap";
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { ManualClock } from "../lib/clock.js";
import { InProcessBus } from "../lib/bus.js";
import { createLogger } from "../lib/logger.js";
import { ServiceStorage } from "../lib/storage.js";
import { migrations } from "../services/accounts/migrations.js";
import { readArguments } from "../cmd/admin.js";
import { startTestSystem } from "./support/harness.js";
import { runAdminCli } from "./support/admin-cli.js";

/**
 * `mail:list`: on the embedded default (no SMTP_URL) the accounts service writes its mails under
 * DATA_DIR/mail, and the admin command line, given the same environment, shows them.
 */

const sys = await startTestSystem(t, { services: ["accounts"] });
const mailDir = join(sys.config.dataDir, "mail");

/** The .eml files once there are `n` (the running accounts service looks for due mail every 5 s). */
async function mailFiles(n: number, timeoutMs = 15_000): Promise<string[]> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const names = (await readdir(mailDir).catch(() => [] as string[])).filter((f) => f.endsWith(".eml"));
    if (names.length >= n) return names;
    if (Date.now() > end) throw new Error(`${names.length} of ${n} mails under ${mailDir} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

t.test("mails the accounts service writes (0600, under DATA_DIR/mail) are listed newest first with date, recipient, subject and text", async (t) => {
  // Another accounts replica records the mails (no flow sends any yet); the running service sends them.
  const clock = new ManualClock(new Date("2025-05-01T09:00:00Z"));
  const replica = await ServiceStorage.open({ config: sys.config, clock, bus: new InProcessBus(), log: createLogger("silent") }, "accounts", migrations, { mail: true });
  try {
    for (const n of [1, 2, 3]) {
      await replica.change((_trx, _emit, mail) =>
        mail({ to: `user${n}@example.com`, subject: `Reset your password (${n})`, text: `Open http://localhost:8080/reset?code=code${n} to choose a new password.` }),
      );
      clock.advance(60_000);
    }
  } finally {
    await replica.close();
  }
  const files = await mailFiles(3);
  for (const file of files) t.equal((await stat(join(mailDir, file))).mode & 0o777, 0o600, `${file} is 0600`);

  const run = await runAdminCli(sys, "mail:list", "--limit", "2");
  t.equal(run.code, 0, run.stderr);
  t.same(run.json, {
    delivery: "files",
    directory: mailDir,
    mails: [3, 2].map((n) => ({
      date: `2025-05-01T09:0${n - 1}:00.000Z`,
      to: `user${n}@example.com`,
      subject: `Reset your password (${n})`,
      text: `Open http://localhost:8080/reset?code=code${n} to choose a new password.`,
      file: files.find((f) => f.startsWith(`20250501T090${n - 1}00000Z-`)),
    })),
  });
});

t.test("with SMTP_URL, mail:list says mail goes to the SMTP server and shows no credentials", async (t) => {
  const before = process.env.SMTP_URL;
  process.env.SMTP_URL = "smtp://mailer:s3cret@mail.example.com:587";
  try {
    const run = await runAdminCli(sys, "mail:list");
    t.equal(run.code, 0, run.stderr);
    t.same(run.json, { delivery: "smtp", server: "smtp://mail.example.com:587", note: "mail goes to the SMTP server (SMTP_URL); none is written under DATA_DIR/mail" });
    t.notMatch(run.stdout, "s3cret");
  } finally {
    if (before === undefined) delete process.env.SMTP_URL;
    else process.env.SMTP_URL = before;
  }
});

t.test("mail:list --limit is a whole number from 1 to 1000, 10 by default", async (t) => {
  t.same(readArguments("mail:list", []).options, { limit: "10" });
  t.same(readArguments("mail:list", ["--limit", "1000"]).options, { limit: "1000" });
  for (const bad of ["0", "1001", "ten"]) t.throws(() => readArguments("mail:list", ["--limit", bad]), /--limit must be a whole number from 1 to 1000/);
});
