import { mkdirSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { join, resolve } from "node:path";
import addressparser from "nodemailer/lib/addressparser/index.js";

export const SERVICE_NAMES = ["hiring", "accounts", "tracking", "notifier"] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

export const DEFAULT_PORTS: Record<ServiceName | "gateway", number> = {
  gateway: 8080,
  hiring: 8081,
  accounts: 8082,
  tracking: 8083,
  notifier: 8084,
};

/** Config is everything the processes read from the environment, read in one place. */
export interface Config {
  dataDir: string;
  mysqlUrl?: string;
  natsUrl?: string;
  /** Prefix of the MySQL database names: `<prefix><service>`. */
  databasePrefix: string;
  /** Shared secret that internal callers present; only the gateway and services know it. */
  internalToken: string;
  logLevel: string;
  ports: Record<ServiceName | "gateway", number>;
  /** Base URLs of the services for callers in other processes. */
  serviceUrls: Record<ServiceName, string>;
  webhookAllowInternal: boolean;
  /** Days the notifier keeps finished notifications, the delivery log and unused event payloads. */
  webhookRetentionDays: number;
  /**
   * Which peers the gateway believes about the client's address (X-Forwarded-For): Fastify's
   * `trustProxy` (false, true, or a comma list of addresses, CIDR ranges and the keywords
   * loopback, linklocal, uniquelocal).
   */
  trustProxy: boolean | string;
  /** Prefix of the NATS stream and consumer names (tests use their own). */
  natsPrefix: string;
  /** AES-256 key for secrets kept at rest that must be read back (API tokens, webhook secrets). */
  encryptionKey: Buffer;
  /** Address every port binds to (HOST): all interfaces by default, `127.0.0.1` for one machine. */
  host: string;
  /** SMTP server for outgoing mail (SMTP_URL, e.g. `smtp://user:pass@host:587`); unset: mails are written under DATA_DIR/mail. */
  smtpUrl?: string;
  /** The public base URL of the gateway, for links in mail and in API answers (PUBLIC_URL); never the request's Host header. */
  publicUrl: string;
  /** The From: of outgoing mail (MAIL_FROM), one address with an optional name: `workhub <no-reply@example.com>`. */
  mailFrom: string;
  /** Where blobs (uploaded images) are kept (BLOB_DIR): a directory, shared by the replicas of a deployment. */
  blobDir: string;
  /** Where finished data exports (ZIP files) are kept (EXPORT_DIR): a directory, shared by the tracking replicas of a deployment. */
  exportDir: string;
  /** Days a finished data export stays downloadable before its file is deleted (EXPORT_RETENTION_DAYS). */
  exportRetentionDays: number;
}

function envPort(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`${name} must be a port number, got ${raw}`);
  return port;
}

function envPositiveNumber(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got ${raw}`);
  return value;
}

/** Proxies on private networks (an ingress in the cluster), never a client on the internet. */
function envTrustProxy(env: NodeJS.ProcessEnv): boolean | string {
  const raw = (env.TRUST_PROXY ?? "").trim();
  // Believing no proxy unless told: otherwise any client that can reach the gateway picks its address.
  if (raw === "") return false;
  if (raw === "true" || raw === "false") return raw === "true";
  return raw;
}

/** Makes the data directory if it is missing, readable by this user alone: it holds the databases and the token. */
export function ensureDataDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/**
 * A secret from the environment, or one generated once into the data directory (mode 0600) so
 * that every process of an embedded install, and the admin CLI, find the same one.
 */
function sharedSecret(env: NodeJS.ProcessEnv, name: string, dataDir: string, file: string, encoding: "base64url" | "base64"): string {
  const given = env[name];
  if (given) return given;
  const path = join(dataDir, file);
  if (existsSync(path)) return readFileSync(path, "utf8").trim();
  ensureDataDir(dataDir);
  const secret = randomBytes(32).toString(encoding);
  writeFileSync(path, secret, { mode: 0o600, flag: "wx" });
  return secret;
}

/** ENCRYPTION_KEY: 32 bytes, base64. */
function encryptionKey(env: NodeJS.ProcessEnv, dataDir: string): Buffer {
  const raw = sharedSecret(env, "ENCRYPTION_KEY", dataDir, "encryption-key", "base64");
  const key = Buffer.from(raw, "base64");
  if (key.length !== 32 || !/^[A-Za-z0-9+/]+={0,2}$/.test(raw)) throw new Error("ENCRYPTION_KEY must be 32 bytes in base64 (openssl rand -base64 32)");
  return key;
}

/** PUBLIC_URL without a trailing slash; by default the gateway on localhost. */
function publicUrl(env: NodeJS.ProcessEnv, gatewayPort: number): string {
  const raw = env.PUBLIC_URL || `http://localhost:${gatewayPort || DEFAULT_PORTS.gateway}`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`PUBLIC_URL must be an http(s) URL, got ${raw}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error(`PUBLIC_URL must be an http(s) URL, got ${raw}`);
  return url.href.replace(/\/+$/, "");
}

/** MAIL_FROM: exactly one address (a name may come with it), checked at start rather than at every send. */
function mailFrom(env: NodeJS.ProcessEnv): string {
  const raw = (env.MAIL_FROM ?? "").trim() || "workhub <no-reply@localhost>";
  const parsed = addressparser(raw, { flatten: true });
  if (parsed.length !== 1 || !/^[^@\s]+@[^@\s]+$/.test(parsed[0].address)) throw new Error(`MAIL_FROM must be one address, e.g. "workhub <no-reply@example.com>", got ${raw}`);
  return raw;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const dataDir = resolve(env.DATA_DIR || "./data");
  const ports = {
    gateway: envPort(env, "PORT", DEFAULT_PORTS.gateway),
    hiring: envPort(env, "HIRING_PORT", DEFAULT_PORTS.hiring),
    accounts: envPort(env, "ACCOUNTS_PORT", DEFAULT_PORTS.accounts),
    tracking: envPort(env, "TRACKING_PORT", DEFAULT_PORTS.tracking),
    notifier: envPort(env, "NOTIFIER_PORT", DEFAULT_PORTS.notifier),
  };
  const url = (name: ServiceName) =>
    env[`${name.toUpperCase()}_URL`] || `http://127.0.0.1:${ports[name] || DEFAULT_PORTS[name]}`;
  return {
    dataDir,
    mysqlUrl: env.MYSQL_URL || undefined,
    natsUrl: env.NATS_URL || undefined,
    databasePrefix: env.DATABASE_PREFIX ?? "workhub_",
    internalToken: sharedSecret(env, "INTERNAL_TOKEN", dataDir, "internal-token", "base64url"),
    encryptionKey: encryptionKey(env, dataDir),
    logLevel: env.LOG_LEVEL || "info",
    ports,
    serviceUrls: { hiring: url("hiring"), accounts: url("accounts"), tracking: url("tracking"), notifier: url("notifier") },
    webhookAllowInternal: env.WEBHOOK_ALLOW_INTERNAL === "1",
    webhookRetentionDays: envPositiveNumber(env, "WEBHOOK_RETENTION_DAYS", 30),
    trustProxy: envTrustProxy(env),
    natsPrefix: env.NATS_PREFIX ?? "",
    host: env.HOST || "0.0.0.0",
    smtpUrl: env.SMTP_URL || undefined,
    publicUrl: publicUrl(env, ports.gateway),
    mailFrom: mailFrom(env),
    blobDir: resolve(env.BLOB_DIR || join(dataDir, "blobs")),
    exportDir: resolve(env.EXPORT_DIR || join(dataDir, "exports")),
    exportRetentionDays: envPositiveNumber(env, "EXPORT_RETENTION_DAYS", 7),
  };
}
