import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { simpleParser, type ParsedMail } from "mailparser";
import type { TestContext } from "./harness.js";

/** A mail as the test SMTP server received it. */
export interface Delivered {
  mail: ParsedMail;
  /** RCPT TO of the SMTP session. */
  recipients: string[];
}

/** An SMTP server on loopback (no TLS, no auth) keeping what it accepts; `refuse` names recipients it answers 550. */
export async function startSmtp(t: TestContext, options: { port?: number; refuse?: string[] } = {}) {
  const received: Delivered[] = [];
  let waiters: (() => void)[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    disableReverseLookup: true,
    onRcptTo(address, _session, callback) {
      if (options.refuse?.includes(address.address)) return callback(Object.assign(new Error("no such mailbox"), { responseCode: 550 }));
      callback();
    },
    onData(stream, session, callback) {
      simpleParser(stream).then(
        (mail) => {
          received.push({ mail, recipients: session.envelope.rcptTo.map((r) => r.address) });
          waiters.forEach((w) => w());
          callback();
        },
        (err) => callback(err),
      );
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return {
    port: (server.server.address() as AddressInfo).port,
    received,
    /** Resolves once `n` mails arrived; rejects after `timeoutMs`. */
    until(n: number, timeoutMs = 10_000): Promise<void> {
      if (received.length >= n) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`smtp: ${received.length} of ${n} mails after ${timeoutMs} ms`)), timeoutMs);
        waiters.push(() => {
          if (received.length < n) return;
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
}
