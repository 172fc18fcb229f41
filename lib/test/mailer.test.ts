import t from "tap";
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { pino } from "pino";
import { simpleParser } from "mailparser";
import { loadConfig, type Config } from "../config.js";
import { ManualClock } from "../clock.js";
import { InProcessBus } from "../bus.js";
import { SecretBox } from "../secret-box.js";
import { ServiceStorage } from "../storage.js";
import { mailOutboxMigration, nextRetryDelay, readWrittenMails, type OutgoingMail } from "../mailer.js";
import { dbDate, type Migration } from "../db.js";
import { cleanUp, freePort, testEnv } from "../../test/support/harness.js";
import { startSmtp } from "../../test/support/smtp.js";

/**
 * Mail goes out once its change commits, never for a change that failed, survives an SMTP server
 * that is down, is sent by one replica at a time, and is kept sealed at rest. A real SMTP server
 * on loopback (smtp-server) receives it; time is a ManualClock the tests move.
 */

type Test = { teardown(fn: () => unknown): void };

const things: Migration = {
  name: "0001_things",
  up: (knex) => knex.schema.createTable("things", (t) => t.string("name").primary()),
  down: (knex) => knex.schema.dropTable("things"),
};

/** A logger whose entries the test reads. */
function capturingLog() {
  const entries: Record<string, unknown>[] = [];
  const log = pino({ level: "info" }, { write: (line: string) => void entries.push(JSON.parse(line)) });
  return { log, entries };
}

interface Opened {
  config: Config;
  clock: ManualClock;
  entries: Record<string, unknown>[];
  /** One storage (replica) per entry, all on the same schema. */
  replicas: ServiceStorage[];
}

/** `replicas` storages of one service schema that sends mail, with SMTP_URL from `env` (files without it). */
async function open(t: Test, env: Record<string, string> = {}, replicas = 1): Promise<Opened> {
  const config = loadConfig(testEnv(env));
  const clock = new ManualClock(new Date("2025-03-01T12:00:00Z"));
  const { log, entries } = capturingLog();
  const opened: ServiceStorage[] = [];
  for (let i = 0; i < replicas; i++) {
    opened.push(await ServiceStorage.open({ config, clock, bus: new InProcessBus(), log }, "accounts", [things, mailOutboxMigration], { mail: true }));
  }
  t.teardown(async () => {
    for (const storage of opened) await storage.close();
    await cleanUp(config);
  });
  return { config, clock, entries, replicas: opened };
}

const smtpUrl = (port: number) => ({ SMTP_URL: `smtp://127.0.0.1:${port}` });

const reset = (to: string, code = "493817"): OutgoingMail => ({
  to,
  subject: "Reset your password",
  text: `Your reset code is ${code}: http://localhost:8080/reset?code=${code}`,
  html: `<p>Your reset code is <b>${code}</b></p>`,
});

async function rows(storage: ServiceStorage) {
  return storage.db("mail_outbox").orderBy("seq").select();
}

t.test("a mail recorded in a committed change is sent after the commit, with its recipient, subject, bodies and From", async (t) => {
  const smtp = await startSmtp(t);
  const { replicas: [storage] } = await open(t, { ...smtpUrl(smtp.port), MAIL_FROM: "Workhub <accounts@example.com>" });
  storage.startMailer();
  await storage.flushMail(); // the look at start has found nothing
  const id = await storage.change(async (trx, _emit, mail) => {
    await trx("things").insert({ name: "a" });
    return mail(reset("ada@example.com"));
  });
  // The sender polls every 5 s; the kick after the commit sends at once.
  await smtp.until(1, 4_000);
  const [{ mail, recipients }] = smtp.received;
  t.same(recipients, ["ada@example.com"]);
  t.equal(mail.subject, "Reset your password");
  t.equal(mail.text?.trim(), "Your reset code is 493817: http://localhost:8080/reset?code=493817");
  t.equal(mail.html, "<p>Your reset code is <b>493817</b></p>");
  t.same(mail.from?.value, [{ address: "accounts@example.com", name: "Workhub" }]);
  t.equal(mail.messageId, `<${id}@example.com>`, "the mail's id is its Message-ID");
  t.equal(mail.date?.toISOString(), "2025-03-01T12:00:00.000Z", "dated when it was recorded, by the service's clock");
  await storage.flushMail(); // passes run one after another: this waits for the one that sent
  const [row] = await rows(storage);
  t.match(row, { id, recipient: "ada@example.com", attempts: 1, last_error: null, given_up_at: null });
  t.ok(row.sent_at, "marked sent");
});

t.test("mails are sent in the order they were recorded", async (t) => {
  const smtp = await startSmtp(t);
  const { replicas: [storage] } = await open(t, smtpUrl(smtp.port));
  for (const n of [1, 2, 3]) await storage.change((_trx, _emit, mail) => mail({ to: `u${n}@example.com`, subject: `mail ${n}`, text: "x" }));
  await storage.flushMail();
  t.same(smtp.received.map((d) => d.mail.subject), ["mail 1", "mail 2", "mail 3"]);
});

t.test("a change that throws records no mail and sends none", async (t) => {
  const smtp = await startSmtp(t);
  const { replicas: [storage] } = await open(t, smtpUrl(smtp.port));
  storage.startMailer();
  await t.rejects(
    storage.change(async (trx, _emit, mail) => {
      await trx("things").insert({ name: "b" });
      await mail(reset("bob@example.com"));
      throw new Error("validation failed late");
    }),
    /validation failed late/,
  );
  await storage.flushMail();
  t.same(await rows(storage), [], "no row");
  t.equal(smtp.received.length, 0, "nothing sent");
  t.equal((await storage.db("things").count({ n: "*" }))[0].n, 0);
});

t.test("retries wait 10 s, then twice as long each time, at most 15 minutes", async (t) => {
  t.same([1, 2, 3, 4, 5, 6, 7, 8, 9, 50].map(nextRetryDelay), [10, 20, 40, 80, 160, 320, 640, 900, 900, 900].map((s) => s * 1000));
});

t.test("while the SMTP server is down the mail stays pending with its attempts counted; once it is back and the retry is due, the mail arrives once", async (t) => {
  const port = await freePort();
  const { replicas: [storage], clock } = await open(t, smtpUrl(port));
  const id = await storage.change((_trx, _emit, mail) => mail(reset("cy@example.com")));

  await storage.flushMail();
  let [row] = await rows(storage);
  t.match(row, { id, attempts: 1, sent_at: null, given_up_at: null, last_error: /ECONNREFUSED/ });
  t.equal(dbDate(row.next_attempt_at).getTime(), clock.now().getTime() + 10_000, "next try in 10 s");

  await storage.flushMail();
  t.equal((await rows(storage))[0].attempts, 1, "not tried again before the delay");

  clock.advance(10_000);
  await storage.flushMail();
  [row] = await rows(storage);
  t.match(row, { attempts: 2, sent_at: null });
  t.equal(dbDate(row.next_attempt_at).getTime(), clock.now().getTime() + 20_000, "then in 20 s");

  const smtp = await startSmtp(t, { port });
  await storage.flushMail();
  t.equal(smtp.received.length, 0, "the server is back but the retry is not due yet");
  clock.advance(20_000);
  await storage.flushMail();
  t.equal(smtp.received.length, 1, "sent once due");
  t.equal(smtp.received[0].mail.messageId?.startsWith(`<${id}@`), true);
  clock.advance(3600_000);
  await storage.flushMail();
  t.equal(smtp.received.length, 1, "and only once");
  t.match((await rows(storage))[0], { attempts: 3, last_error: null });
  t.ok((await rows(storage))[0].sent_at);
});

t.test("two senders (replicas) on one database send each mail once", async (t) => {
  const smtp = await startSmtp(t);
  const { replicas: [a, b] } = await open(t, smtpUrl(smtp.port), 2);
  for (let n = 0; n < 10; n++) await (n % 2 ? a : b).change((_trx, _emit, mail) => mail({ to: `u${n}@example.com`, subject: `mail ${n}`, text: "x" }));
  for (let round = 0; round < 3; round++) await Promise.all([a.flushMail(), b.flushMail()]);
  t.equal(smtp.received.length, 10);
  t.same(new Set(smtp.received.map((d) => d.mail.subject)).size, 10, "no mail twice");
});

t.test("the sending replica holds a lease: another sends only once it has expired (the first stopped renewing it)", async (t) => {
  const smtp = await startSmtp(t);
  const { replicas: [a, b], clock } = await open(t, smtpUrl(smtp.port), 2);
  await a.change((_trx, _emit, mail) => mail({ to: "one@example.com", subject: "one", text: "x" }));
  await a.flushMail();
  t.equal(smtp.received.length, 1, "a sends and holds the lease");
  // a is gone from here on (it never sends or renews again).
  await b.change((_trx, _emit, mail) => mail({ to: "two@example.com", subject: "two", text: "x" }));
  await b.flushMail();
  t.equal(smtp.received.length, 1, "b waits while a's lease lasts");
  clock.advance(60_001);
  await b.flushMail();
  t.same(smtp.received.map((d) => d.mail.subject), ["one", "two"], "b takes over");
});

t.test("the stored row holds neither the subject nor the bodies in clear", async (t) => {
  const { replicas: [storage], config } = await open(t, smtpUrl(await freePort()));
  await storage.change((_trx, _emit, mail) => mail(reset("dee@example.com", "731904")));
  const [row] = await rows(storage);
  const dump = JSON.stringify(row);
  for (const secret of ["731904", "Reset your password", "reset?code"]) t.notOk(dump.includes(secret), `no "${secret}" in the row`);
  t.same(JSON.parse(new SecretBox(config.encryptionKey).open(row.sealed)), {
    subject: "Reset your password",
    text: "Your reset code is 731904: http://localhost:8080/reset?code=731904",
    html: "<p>Your reset code is <b>731904</b></p>",
  });
});

t.test("a recipient the server refuses for good (550) is given up at once, logged as an error, and the next mail still goes", async (t) => {
  const smtp = await startSmtp(t, { refuse: ["gone@example.com"] });
  const { replicas: [storage], entries } = await open(t, smtpUrl(smtp.port));
  await storage.change((_trx, _emit, mail) => mail({ to: "gone@example.com", subject: "first", text: "x" }));
  await storage.change((_trx, _emit, mail) => mail({ to: "here@example.com", subject: "second", text: "x" }));
  await storage.flushMail();
  t.same(smtp.received.map((d) => d.mail.subject), ["second"]);
  const [gone] = await rows(storage);
  t.match(gone, { recipient: "gone@example.com", attempts: 1, sent_at: null, last_error: /550/ });
  t.ok(gone.given_up_at, "given up");
  t.ok(entries.some((e) => e.level === 50 && e.msg === "mail given up, it will not be sent" && e.to === "gone@example.com"), "logged as an error");
});

t.test("a mail the server cannot take for three days is given up, logged as an error", async (t) => {
  const { replicas: [storage], clock, entries } = await open(t, smtpUrl(await freePort()));
  await storage.change((_trx, _emit, mail) => mail(reset("eve@example.com")));
  await storage.flushMail();
  clock.advance(3 * 24 * 3600_000 - 1);
  await storage.flushMail();
  t.match((await rows(storage))[0], { attempts: 2, given_up_at: null }, "still retried just before three days");
  clock.advance(15 * 60_000);
  await storage.flushMail();
  const [row] = await rows(storage);
  t.match(row, { attempts: 3, sent_at: null, last_error: /ECONNREFUSED/ });
  t.ok(row.given_up_at, "given up");
  t.ok(entries.some((e) => e.level === 50 && e.msg === "mail given up, it will not be sent"), "logged as an error");
  clock.advance(3600_000);
  await storage.flushMail();
  t.equal((await rows(storage))[0].attempts, 3, "not tried again");
});

t.test("a mail sealed with another key (ENCRYPTION_KEY changed) is given up, logged as an error, and the next mail still goes", async (t) => {
  const smtp = await startSmtp(t);
  const env = testEnv(smtpUrl(smtp.port));
  const { log, entries } = capturingLog();
  const deps = (config: Config) => ({ config, clock: new ManualClock(), bus: new InProcessBus(), log });
  const before = await ServiceStorage.open(deps(loadConfig(env)), "accounts", [things, mailOutboxMigration], { mail: true });
  const after = await ServiceStorage.open(deps(loadConfig({ ...env, ENCRYPTION_KEY: randomBytes(32).toString("base64") })), "accounts", [things, mailOutboxMigration], { mail: true });
  t.teardown(async () => {
    await before.close();
    await after.close();
    await cleanUp(loadConfig(env));
  });
  await before.change((_trx, _emit, mail) => mail({ to: "old@example.com", subject: "old key", text: "x" }));
  await after.change((_trx, _emit, mail) => mail({ to: "new@example.com", subject: "new key", text: "x" }));
  await after.flushMail();
  t.same(smtp.received.map((d) => d.mail.subject), ["new key"]);
  const [old] = await rows(after);
  t.match(old, { recipient: "old@example.com", sent_at: null, last_error: /does not open with ENCRYPTION_KEY/ });
  t.ok(old.given_up_at, "given up");
  t.ok(entries.some((e) => e.level === 50 && e.to === "old@example.com"), "logged as an error");
});

t.test("sent and given-up mails are removed 7 days after they finished", async (t) => {
  const smtp = await startSmtp(t, { refuse: ["gone@example.com"] });
  const { replicas: [storage], clock } = await open(t, smtpUrl(smtp.port));
  await storage.change((_trx, _emit, mail) => mail({ to: "here@example.com", subject: "sent", text: "x" }));
  await storage.change((_trx, _emit, mail) => mail({ to: "gone@example.com", subject: "given up", text: "x" }));
  await storage.flushMail();
  clock.advance(7 * 24 * 3600_000 - 1);
  await storage.change((_trx, _emit, mail) => mail({ to: "here@example.com", subject: "newer", text: "x" }));
  await storage.flushMail();
  t.same((await rows(storage)).map((r) => r.recipient), ["here@example.com", "gone@example.com", "here@example.com"], "kept for 7 days");
  clock.advance(10 * 60_000);
  await storage.flushMail();
  const left = await rows(storage);
  t.equal(left.length, 1);
  t.ok(left[0].sent_at && dbDate(left[0].sent_at).getTime() > clock.now().getTime() - 3600_000, "only the newer mail is left");
});

t.test("without SMTP_URL each mail becomes an .eml file (0600) under DATA_DIR/mail (0700), logged with its subject and recipient", async (t) => {
  const { replicas: [storage], config, entries } = await open(t);
  const id = await storage.change((_trx, _emit, mail) => mail(reset("fay@example.com", "112233")));
  await storage.flushMail();
  const dir = join(config.dataDir, "mail");
  t.equal((await stat(dir)).mode & 0o777, 0o700, "directory 0700");
  const files = await readdir(dir);
  t.same(files, [`20250301T120000000Z-${id}.eml`]);
  const file = join(dir, files[0]);
  t.equal((await stat(file)).mode & 0o777, 0o600, "file 0600");
  const raw = await readFile(file, "utf8");
  t.match(raw, /\r\nSubject: Reset your password\r\n/, "RFC 5322 headers, CRLF lines");
  const parsed = await simpleParser(raw);
  t.equal(parsed.to && !Array.isArray(parsed.to) ? parsed.to.text : "", "fay@example.com");
  t.same(parsed.from?.value, [{ address: "no-reply@localhost", name: "workhub" }], "the default From");
  t.match(parsed.text, "reset?code=112233");
  t.match((await rows(storage))[0], { attempts: 1, last_error: null });
  t.ok(entries.some((e) => e.level === 30 && e.to === "fay@example.com" && e.subject === "Reset your password"), "logged at info");
  t.match(await readWrittenMails(dir, 10), [{ to: "fay@example.com", subject: "Reset your password", date: "2025-03-01T12:00:00.000Z" }]);
});

t.test("a mail to more than one plain address, or with a subject of several lines, is refused and nothing is written", async (t) => {
  const { replicas: [storage] } = await open(t);
  for (const bad of [
    { to: "a@example.com, b@example.com", subject: "s", text: "x" },
    { to: "Eve <eve@example.com>", subject: "s", text: "x" },
    { to: "a@example.com", subject: "s\r\nBcc: b@example.com", text: "x" },
  ]) {
    await t.rejects(storage.change((_trx, _emit, mail) => mail(bad)), /^mail: /);
  }
  t.same(await rows(storage), []);
});

t.test("a service opened without mail cannot record one, and one that sends mail must list the migration", async (t) => {
  const config = loadConfig(testEnv());
  const deps = { config, clock: new ManualClock(), bus: new InProcessBus(), log: pino({ level: "silent" }) };
  await t.rejects(ServiceStorage.open(deps, "accounts", [things], { mail: true }), /lists mailOutboxMigration/);
  const storage = await ServiceStorage.open(deps, "accounts", [things]);
  t.teardown(async () => {
    await storage.close();
    await cleanUp(config);
  });
  await t.rejects(storage.change((_trx, _emit, mail) => mail(reset("x@example.com"))), /sends no mail/);
});
