import { mkdirSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { join, resolve } from "node:path";

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
const DEFAULT_TRUST_PROXY = "loopback,linklocal,uniquelocal";

function envTrustProxy(env: NodeJS.ProcessEnv): boolean | string {
  const raw = (env.TRUST_PROXY ?? "").trim();
  if (raw === "") return DEFAULT_TRUST_PROXY;
  if (raw === "true" || raw === "false") return raw === "true";
  return raw;
}

/** Makes the data directory if it is missing, readable by this user alone: it holds the databases and the token. */
export function ensureDataDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/** The internal token: INTERNAL_TOKEN, or one kept in the data directory so the admin CLI finds it. */
function internalToken(env: NodeJS.ProcessEnv, dataDir: string): string {
  if (env.INTERNAL_TOKEN) return env.INTERNAL_TOKEN;
  const file = join(dataDir, "internal-token");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  ensureDataDir(dataDir);
  const token = randomBytes(32).toString("base64url");
  writeFileSync(file, token, { mode: 0o600, flag: "wx" });
  return token;
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
    internalToken: internalToken(env, dataDir),
    logLevel: env.LOG_LEVEL || "info",
    ports,
    serviceUrls: { hiring: url("hiring"), accounts: url("accounts"), tracking: url("tracking"), notifier: url("notifier") },
    webhookAllowInternal: env.WEBHOOK_ALLOW_INTERNAL === "1",
    webhookRetentionDays: envPositiveNumber(env, "WEBHOOK_RETENTION_DAYS", 30),
    trustProxy: envTrustProxy(env),
    natsPrefix: env.NATS_PREFIX ?? "",
  };
}
