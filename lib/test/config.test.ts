import t from "tap";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../config.js";

/** Configuration read from the environment: defaults, and values refused with a clear error. */

// A token and a key, so that loading writes nothing into the data directory.
const KEY = Buffer.alloc(32, 7).toString("base64");
const env = (extra: Record<string, string>) => ({ INTERNAL_TOKEN: "test", ENCRYPTION_KEY: KEY, ...extra });

t.test("WEBHOOK_RETENTION_DAYS defaults to 30 days and takes any positive number", async (t) => {
  t.equal(loadConfig(env({})).webhookRetentionDays, 30);
  t.equal(loadConfig(env({ WEBHOOK_RETENTION_DAYS: "" })).webhookRetentionDays, 30);
  t.equal(loadConfig(env({ WEBHOOK_RETENTION_DAYS: "7" })).webhookRetentionDays, 7);
  t.equal(loadConfig(env({ WEBHOOK_RETENTION_DAYS: "0.5" })).webhookRetentionDays, 0.5);
});

t.test("a WEBHOOK_RETENTION_DAYS that is no positive number fails loading the configuration", async (t) => {
  for (const value of ["0", "-3", "thirty", "30d", "Infinity", " "]) {
    t.throws(() => loadConfig(env({ WEBHOOK_RETENTION_DAYS: value })), { message: `WEBHOOK_RETENTION_DAYS must be a positive number, got ${value}` }, value);
  }
});

t.test("TRUST_PROXY: no proxy is believed by default, or as given", async (t) => {
  t.equal(loadConfig(env({})).trustProxy, false);
  t.equal(loadConfig(env({ TRUST_PROXY: "false" })).trustProxy, false);
  t.equal(loadConfig(env({ TRUST_PROXY: "true" })).trustProxy, true);
  t.equal(loadConfig(env({ TRUST_PROXY: " 10.0.0.0/8, 192.168.1.1 " })).trustProxy, "10.0.0.0/8, 192.168.1.1");
});

t.test("ENCRYPTION_KEY: 32 bytes of base64, refused otherwise", async (t) => {
  t.same(loadConfig(env({})).encryptionKey, Buffer.alloc(32, 7));
  for (const value of ["short", Buffer.alloc(16).toString("base64"), Buffer.alloc(33).toString("base64"), `${KEY}!`]) {
    t.throws(() => loadConfig(env({ ENCRYPTION_KEY: value })), /ENCRYPTION_KEY must be 32 bytes in base64/, value);
  }
});

t.test("HOST: every port binds to all interfaces unless told", async (t) => {
  t.equal(loadConfig(env({})).host, "0.0.0.0");
  t.equal(loadConfig(env({ HOST: "127.0.0.1" })).host, "127.0.0.1");
});

t.test("PUBLIC_URL: the gateway on localhost by default, any http(s) URL, without a trailing slash", async (t) => {
  t.equal(loadConfig(env({})).publicUrl, "http://localhost:8080");
  t.equal(loadConfig(env({ PORT: "9000" })).publicUrl, "http://localhost:9000");
  t.equal(loadConfig(env({ PUBLIC_URL: "https://track.example.com/" })).publicUrl, "https://track.example.com");
  for (const value of ["track.example.com", "ftp://x.example.com"]) t.throws(() => loadConfig(env({ PUBLIC_URL: value })), /PUBLIC_URL must be an http\(s\) URL/, value);
  t.equal(loadConfig(env({})).smtpUrl, undefined);
  t.equal(loadConfig(env({ SMTP_URL: "smtp://u:p@127.0.0.1:2525" })).smtpUrl, "smtp://u:p@127.0.0.1:2525");
});

t.test("a data directory the system makes is its user's alone", async (t) => {
  const parent = mkdtempSync(join(tmpdir(), "workhub-config-"));
  t.teardown(() => rmSync(parent, { recursive: true, force: true }));
  const dir = join(parent, "data");
  loadConfig({ DATA_DIR: dir });
  t.equal(statSync(dir).mode & 0o777, 0o700);
  t.equal(statSync(join(dir, "internal-token")).mode & 0o777, 0o600);
  t.equal(statSync(join(dir, "encryption-key")).mode & 0o777, 0o600);
  t.same(loadConfig({ DATA_DIR: dir }).encryptionKey, loadConfig({ DATA_DIR: dir }).encryptionKey, "the generated key is kept");
});
