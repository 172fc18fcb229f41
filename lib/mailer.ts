import { chmod, mkdir, readdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createTransport } from "nodemailer";
import SMTPTransport from "nodemailer/lib/smtp-transport/index.js";
import type Mail from "nodemailer/lib/mailer/index.js";
import { simpleParser } from "mailparser";
import type { Config } from "./config.js";
import type { Clock } from "./clock.js";
import type { Logger } from "./logger.js";
import { SecretBox } from "./secret-box.js";
import { sortableId } from "./ids.js";
import { LeasedWork } from "./background.js";
import { dbDate, type Knex, type Migration } from "./db.js";

/**
 * Outgoing mail, sent reliably: a handler records a mail in the transaction of its change
 * (`mail_outbox`, subject and bodies sealed), and a Mailer in the service process sends what
 * committed, through SMTP (SMTP_URL) or, on the embedded default, into files under DATA_DIR/mail.
 */

/** A file a mail carries (a report's PDF). */
export interface MailAttachment {
  filename: string;
  contentType: string;
  content: Uint8Array;
}

/** A mail a service sends: one recipient, a subject, a text body, optionally an HTML one and files. */
export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html?: string;
  attachments?: MailAttachment[];
}

/** Records a mail inside the change's transaction; it is sent once the change commits. Returns its id. */
export type RecordMail = (mail: OutgoingMail) => Promise<string>;

/** A recorded mail as a transport sends it: its id (the Message-ID) and the time it was recorded (Date:). */
export interface Envelope extends OutgoingMail {
  id: string;
  date: Date;
}

/** Where mails go: an SMTP server, or files. Throws when this mail was not taken. */
export interface MailTransport {
  send(mail: Envelope): Promise<void>;
}

export const mailOutboxMigration: Migration = {
  name: "0000_mail_outbox",
  async up(knex: Knex) {
    await knex.schema.createTable("mail_outbox", (t) => {
      t.bigIncrements("seq");
      t.string("id", 40).notNullable().unique();
      t.string("recipient", 254).notNullable();
      // {subject, text, html} sealed with ENCRYPTION_KEY: the mails carry reset codes and invitation links.
      t.text("sealed", "mediumtext").notNullable();
      t.dateTime("created_at", { precision: 3 }).notNullable();
      t.integer("attempts").notNullable().defaultTo(0);
      t.dateTime("next_attempt_at", { precision: 3 }).notNullable();
      t.dateTime("sent_at", { precision: 3 }).nullable();
      t.dateTime("given_up_at", { precision: 3 }).nullable();
      t.string("last_error", 200).nullable();
      // The sender's question: pending (neither sent nor given up) and due.
      t.index(["sent_at", "given_up_at", "next_attempt_at"]);
    });
  },
  async down(knex: Knex) {
    await knex.schema.dropTable("mail_outbox");
  },
};

/** One plain address, nothing that would make a header carry two. */
const RECIPIENT = /^[^\s@<>()[\],;:"\\]+@[^\s@<>()[\],;:"\\]+$/;
const MAX_SUBJECT = 300;
const MAX_BODY = 512 * 1024;
/** What a mail's files may weigh in all (the outbox keeps them sealed, base64, in a MEDIUMTEXT). */
export const MAX_ATTACHMENT_BYTES = 5 * 1024 * 1024;

/** A mail the code builds wrongly is a programming error, refused before anything is written. */
function checkMail(mail: OutgoingMail): void {
  if (mail.to.length > 254 || !RECIPIENT.test(mail.to)) throw new Error(`mail: not one plain address: ${JSON.stringify(mail.to)}`);
  if (mail.subject.length > MAX_SUBJECT || /[\r\n]/.test(mail.subject)) throw new Error("mail: a subject is one line of at most 300 characters");
  if (mail.text.length + (mail.html?.length ?? 0) > MAX_BODY) throw new Error("mail: the bodies exceed 512 KiB");
  const files = mail.attachments ?? [];
  if (files.some((f) => !f.filename || f.filename.length > 200 || /[\r\n"\\/]/.test(f.filename))) throw new Error("mail: a file name is one line of at most 200 characters, without quotes or slashes");
  if (files.reduce((n, f) => n + f.content.byteLength, 0) > MAX_ATTACHMENT_BYTES) throw new Error("mail: the files exceed 5 MiB");
}

interface SealedContent {
  subject: string;
  text: string;
  html?: string;
  /** Files with their content in base64. */
  attachments?: { filename: string; contentType: string; content: string }[];
}

/** The sealed form's files as a transport sends them. */
const attachmentsOf = (content: SealedContent): MailAttachment[] | undefined =>
  content.attachments?.map((a) => ({ filename: a.filename, contentType: a.contentType, content: Buffer.from(a.content, "base64") }));

/** Writes a mail into the outbox inside the caller's transaction: it goes out if and only if the transaction commits. */
export async function recordMail(trx: Knex.Transaction, box: SecretBox, clock: Clock, mail: OutgoingMail): Promise<string> {
  checkMail(mail);
  const now = clock.now();
  const id = sortableId(now.getTime());
  const content: SealedContent = {
    subject: mail.subject,
    text: mail.text,
    ...(mail.html === undefined ? {} : { html: mail.html }),
    ...(mail.attachments?.length ? { attachments: mail.attachments.map((a) => ({ filename: a.filename, contentType: a.contentType, content: Buffer.from(a.content).toString("base64") })) } : {}),
  };
  await trx("mail_outbox").insert({
    id,
    recipient: mail.to,
    sealed: box.seal(JSON.stringify(content)),
    created_at: now,
    attempts: 0,
    next_attempt_at: now,
  });
  return id;
}

const FIRST_RETRY_MS = 10_000;
const LONGEST_RETRY_MS = 15 * 60_000;

/** The wait after a mail's `failures`-th failed attempt: 10 s, 20 s, 40 s ... doubling, at most 15 minutes. */
export function nextRetryDelay(failures: number): number {
  return Math.min(FIRST_RETRY_MS * 2 ** Math.max(0, failures - 1), LONGEST_RETRY_MS);
}

/** How long a mail is retried before it is given up (loudly): a reset code or an invitation is stale by then. */
export const GIVE_UP_AFTER_MS = 3 * 24 * 3600_000;
/** Sent and given-up rows are kept this long (for inspection), then removed. */
const KEEP_FINISHED_MS = 7 * 24 * 3600_000;
/** The row of `outbox_lease` (lib/events.ts) that says which replica sends mail. */
const LEASE = "mail";

interface MailRow {
  seq: number;
  id: string;
  recipient: string;
  sealed: string;
  created_at: Date | string | number;
  attempts: number;
}

/** Failures of this one mail (its recipient or content refused); any other failure would hit the next mail too. */
function failedForThisMail(err: unknown): boolean {
  const code = (err as { code?: string }).code;
  return code === "EENVELOPE" || code === "EMESSAGE";
}

/** The server refused the recipient for good (5xx to RCPT TO): retrying cannot help. */
function refusedForGood(err: unknown): boolean {
  const e = err as { code?: string; responseCode?: number };
  return e.code === "EENVELOPE" && (e.responseCode ?? 0) >= 500;
}

function shortError(err: unknown): string {
  const e = err as { code?: string; message?: string };
  return [e.code, e.message ?? String(err)].filter(Boolean).join(" ").slice(0, 200);
}

export interface MailerOptions {
  /** Milliseconds between looks for due mail when nothing kicks the sender. */
  pollMs?: number;
  batch?: number;
  /** How long the sending replica's lease lasts without renewal (renewed before every mail). */
  leaseMs?: number;
  giveUpAfterMs?: number;
}

/**
 * Mailer sends the committed mails of one schema's outbox, in creation order, one replica at a
 * time: it holds the `mail` row of `outbox_lease` (renewed before each mail; another replica
 * takes over once it expires). A failure is retried after `nextRetryDelay`; a mail still failing
 * after GIVE_UP_AFTER_MS, a recipient refused for good, or a sealed value the key no longer opens
 * is given up and logged as an error. Delivery is at least once: a replica that dies between the
 * server's acceptance and marking the row sends that mail again (same Message-ID). Time is the
 * injected clock's.
 */
export class Mailer extends LeasedWork {
  private lastPurge = 0;

  constructor(
    private readonly db: Knex,
    private readonly transport: MailTransport,
    private readonly deps: { box: SecretBox; clock: Clock; log: Logger },
    private readonly options: MailerOptions = {},
  ) {
    super(db, LEASE, deps.clock, deps.log, { pollMs: options.pollMs ?? 5_000, leaseMs: options.leaseMs ?? 60_000 });
  }

  /** The mailer of a service: SMTP when SMTP_URL is set, otherwise files under DATA_DIR/mail. */
  static fromConfig(db: Knex, deps: { config: Config; clock: Clock; log: Logger }, options?: MailerOptions): Mailer {
    const { config, clock, log } = deps;
    const transport = config.smtpUrl ? smtpTransport(config.smtpUrl, config.mailFrom, log) : mailDrop(mailDirectory(config), config.mailFrom, log);
    return new Mailer(db, transport, { box: new SecretBox(config.encryptionKey), clock, log }, options);
  }

  record(trx: Knex.Transaction, mail: OutgoingMail): Promise<string> {
    return recordMail(trx, this.deps.box, this.deps.clock, mail);
  }

  private due(now: Date) {
    return this.db("mail_outbox").whereNull("sent_at").whereNull("given_up_at").where("next_attempt_at", "<=", now);
  }

  /** Whether any mail is due (polls that find none do not touch the lease); finished rows are purged first. */
  protected override async pending(): Promise<boolean> {
    await this.purgeFinished();
    return Boolean(await this.due(this.deps.clock.now()).first("seq"));
  }

  /** Sends every mail that is due now, renewing the lease before each; ends when none is left or the transport fails. */
  protected async pass(): Promise<void> {
    const now = this.deps.clock.now();
    const batch = this.options.batch ?? 50;
    for (;;) {
      // Read after renewing the lease: what another replica sent before is no longer pending.
      if (!(await this.stillHeld())) return;
      const rows: MailRow[] = await this.due(now).orderBy("seq").limit(batch).select("seq", "id", "recipient", "sealed", "created_at", "attempts");
      for (const row of rows) {
        if (this.stopRequested || !(await this.stillHeld())) return;
        if (!(await this.sendOne(row))) return;
      }
      if (rows.length < batch) return;
    }
  }

  /** Sends one mail and records the outcome; false when the transport fails for every mail (stop the pass). */
  private async sendOne(row: MailRow): Promise<boolean> {
    let content: SealedContent;
    try {
      content = JSON.parse(this.deps.box.open(row.sealed)) as SealedContent;
    } catch {
      await this.giveUp(row, row.attempts, "the sealed mail does not open with ENCRYPTION_KEY");
      return true;
    }
    try {
      await this.transport.send({ id: row.id, to: row.recipient, date: dbDate(row.created_at), subject: content.subject, text: content.text, html: content.html, attachments: attachmentsOf(content) });
    } catch (err) {
      await this.recordFailure(row, err);
      return failedForThisMail(err);
    }
    await this.db("mail_outbox").where({ seq: row.seq }).update({ sent_at: this.deps.clock.now(), attempts: row.attempts + 1, last_error: null });
    return true;
  }

  private async recordFailure(row: MailRow, err: unknown): Promise<void> {
    const attempts = row.attempts + 1;
    const now = this.deps.clock.now();
    const error = shortError(err);
    const age = now.getTime() - dbDate(row.created_at).getTime();
    if (refusedForGood(err) || age >= (this.options.giveUpAfterMs ?? GIVE_UP_AFTER_MS)) return this.giveUp(row, attempts, error);
    const delay = nextRetryDelay(attempts);
    await this.db("mail_outbox")
      .where({ seq: row.seq })
      .update({ attempts, next_attempt_at: new Date(now.getTime() + delay), last_error: error });
    this.deps.log.warn({ mail: row.id, attempts, retryInSeconds: delay / 1000, error }, "mail not sent, will retry");
  }

  private async giveUp(row: MailRow, attempts: number, error: string): Promise<void> {
    await this.db("mail_outbox").where({ seq: row.seq }).update({ given_up_at: this.deps.clock.now(), attempts, last_error: error.slice(0, 200) });
    this.deps.log.error({ mail: row.id, to: row.recipient, createdAt: dbDate(row.created_at), attempts, error }, "mail given up, it will not be sent");
  }

  /** Finished rows go after KEEP_FINISHED_MS, a bounded batch at a time, at most every 10 minutes (by any replica: deleting twice is harmless). */
  private async purgeFinished(): Promise<void> {
    const now = this.deps.clock.now().getTime();
    if (now - this.lastPurge < 10 * 60_000) return;
    this.lastPurge = now;
    const before = new Date(now - KEEP_FINISHED_MS);
    const seqs = await this.db("mail_outbox")
      .where((q) => q.where("sent_at", "<", before).orWhere("given_up_at", "<", before))
      .orderBy("seq")
      .limit(10_000)
      .pluck("seq");
    if (seqs.length) await this.db("mail_outbox").whereIn("seq", seqs).delete();
  }
}

/** The message nodemailer builds: Message-ID from the mail's id, Date: when it was recorded. */
function messageOf(mail: Envelope, from: string): Mail.Options {
  const domain = /@([^\s>]+)>?\s*$/.exec(from)?.[1] ?? "workhub";
  const attachments = mail.attachments?.map((a) => ({ filename: a.filename, contentType: a.contentType, content: Buffer.from(a.content) }));
  return { from, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html, attachments, date: mail.date, messageId: `<${mail.id}@${domain}>` };
}

/**
 * SMTP through nodemailer (SMTP_URL: `smtp://` with STARTTLS when offered, `smtps://` for TLS from
 * the start; nodemailer's options as query parameters, e.g. `?requireTLS=true`). A connection per
 * mail; the timeouts are short so a hung server fails the attempt well inside the sender's lease.
 */
export function smtpTransport(smtpUrl: string, from: string, log: Logger): MailTransport {
  const transporter = createTransport(new SMTPTransport({ url: smtpUrl, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 }));
  return {
    async send(mail) {
      const info = await transporter.sendMail(messageOf(mail, from));
      log.info({ mail: mail.id, to: mail.to, subject: mail.subject, response: info.response }, "mail sent");
    },
  };
}

/** Where the embedded default writes mails: DATA_DIR/mail. */
export function mailDirectory(config: Config): string {
  return join(config.dataDir, "mail");
}

/**
 * Without SMTP each mail becomes a file `<recorded at>-<id>.eml` (RFC 5322, as nodemailer builds it
 * for SMTP) in a directory only this user reads (0700; files 0600: they hold reset links), written
 * whole (a temporary file renamed) and logged. Sending a mail again rewrites its same file.
 */
export function mailDrop(dir: string, from: string, log: Logger): MailTransport {
  const composer = createTransport({ streamTransport: true, buffer: true, newline: "windows" });
  return {
    async send(mail) {
      const info = await composer.sendMail(messageOf(mail, from));
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await chmod(dir, 0o700);
      const name = `${mail.date.toISOString().replace(/[-:.]/g, "")}-${mail.id}.eml`;
      const temporary = join(dir, `.${name}.tmp`);
      await writeFile(temporary, info.message as Buffer, { mode: 0o600 });
      await rename(temporary, join(dir, name));
      log.info({ to: mail.to, subject: mail.subject, file: join(dir, name) }, "mail written (no SMTP_URL)");
    },
  };
}

/** A mail the embedded default wrote, as `mail:list` shows it. */
export interface WrittenMail {
  date: string;
  to: string;
  subject: string;
  text: string;
  file: string;
}

/** The newest `limit` mails under DATA_DIR/mail, newest first (file names start with the time the mail was recorded). */
export async function readWrittenMails(dir: string, limit: number): Promise<WrittenMail[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as { code?: string }).code === "ENOENT") return [];
    throw err;
  }
  const newest = names.filter((n) => n.endsWith(".eml") && !n.startsWith(".")).sort().reverse().slice(0, limit);
  return Promise.all(
    newest.map(async (name) => {
      const parsed = await simpleParser(await readFile(join(dir, name)));
      const to = Array.isArray(parsed.to) ? parsed.to.map((a) => a.text).join(", ") : (parsed.to?.text ?? "");
      return { date: parsed.date?.toISOString() ?? "", to, subject: parsed.subject ?? "", text: (parsed.text ?? "").trimEnd(), file: name };
    }),
  );
}

/** Where mail goes, for `mail:list`: the SMTP server (credentials left out), or the files it lists. */
export async function mailListing(config: Config, limit: number): Promise<Record<string, unknown>> {
  if (config.smtpUrl) {
    const url = new URL(config.smtpUrl);
    return { delivery: "smtp", server: `${url.protocol}//${url.host}`, note: "mail goes to the SMTP server (SMTP_URL); none is written under DATA_DIR/mail" };
  }
  const dir = mailDirectory(config);
  return { delivery: "files", directory: dir, mails: await readWrittenMails(dir, limit) };
}
