import knexFactory, { type Knex } from "knex";
import { join } from "node:path";
import { ensureDataDir, type Config, type ServiceName } from "./config.js";
import { SqliteClient } from "./sqlite-client.js";

export type { Knex };

/** A migration of one service's schema; migrations run in the order of their names. */
export interface Migration {
  name: string;
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

export function databaseName(config: Config, service: ServiceName): string {
  return `${config.databasePrefix}${service}`;
}

function mysqlConnection(url: string, database?: string): Knex.MySql2ConnectionConfig {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: Number(u.port || 3306),
    user: decodeURIComponent(u.username || "root"),
    password: decodeURIComponent(u.password),
    database,
    supportBigNumbers: true,
    dateStrings: false,
    timezone: "Z",
    charset: "utf8mb4",
    // mysql2 makes each connection a cache of prepared statements sized for this many (16,000 by
    // default: four arrays of that length, 590 KiB of heap a connection, 80 with one). knex sends
    // plain queries, never prepared ones, so the cache stays empty: one slot is enough.
    maxPreparedStatements: 1,
  };
}

/**
 * What both engines' knex instances share. knex writes a failed statement's bound values into its
 * error message, and a value it cannot write (a bigint, as the contract's ids are) replaces the
 * driver's error with its own TypeError, losing the code that tells a unique-key collision or a
 * deadlock; the values (addresses, hashes) would also reach the logs. The message keeps the SQL with
 * its placeholders.
 */
const KNEX_COMMON = { compileSqlOnError: false } as const;

/** One connection to the MySQL server, outside any service's database: to create or drop one. */
const serverConnection = (url: string) => knexFactory({ ...KNEX_COMMON, client: "mysql2", connection: mysqlConnection(url), pool: { min: 0, max: 1 } });

/** Opens the service's own schema (SQLite file or MySQL database), creating it when missing. */
export async function connectDatabase(config: Config, service: ServiceName): Promise<Knex> {
  if (config.mysqlUrl) {
    const name = databaseName(config, service);
    const admin = serverConnection(config.mysqlUrl);
    try {
      await admin.raw("CREATE DATABASE IF NOT EXISTS ?? CHARACTER SET utf8mb4 COLLATE utf8mb4_bin", [name]);
    } finally {
      await admin.destroy();
    }
    return knexFactory({
      ...KNEX_COMMON,
      client: "mysql2",
      connection: mysqlConnection(config.mysqlUrl, name),
      pool: { min: 0, max: 10 },
    });
  }
  ensureDataDir(config.dataDir);
  return knexFactory({
    ...KNEX_COMMON,
    // knex's better-sqlite3 client, writing LIMIT into the SQL (see lib/sqlite-client.ts).
    client: SqliteClient as unknown as typeof Knex.Client,
    connection: { filename: join(config.dataDir, `${service}.sqlite`) },
    useNullAsDefault: true,
    pool: {
      min: 1,
      max: 1,
      afterCreate(conn: SqliteConnection, done: (err: Error | null, conn: unknown) => void) {
        rememberStatements(conn);
        conn.pragma("journal_mode = WAL");
        conn.pragma("synchronous = NORMAL");
        conn.pragma("foreign_keys = ON");
        conn.pragma("busy_timeout = 5000");
        done(null, conn);
      },
    },
  });
}

/** What lib/db.ts uses of a better-sqlite3 connection and its statements. */
interface SqliteStatement {
  raw(on: boolean): SqliteStatement;
  all(bindings: unknown[]): unknown[];
}
interface SqliteConnection {
  pragma(s: string): unknown;
  prepare(sql: string): SqliteStatement;
}

/** Prepared statements a connection keeps at most; a full cache is started afresh. */
const REMEMBERED_STATEMENTS = 500;

/**
 * Makes the connection keep its prepared statements by their SQL text. knex prepares every
 * statement anew, which cost 4 to 11% of a request's CPU time (a page of candidates, the
 * running time entry; see docs/gateway-cost.md); SQLite itself still prepares again a statement
 * whose LIMIT is bound, which lib/sqlite-client.ts avoids. A statement
 * runs to its end before the next is run on the connection (`all` and `run` are synchronous),
 * so one statement may serve every query of the same text. Its settings stay as knex leaves
 * them: knex sets none (no `safeIntegers` option is used), and `selectArrays` turns raw mode
 * back off.
 */
function rememberStatements(conn: SqliteConnection): void {
  const prepare = conn.prepare.bind(conn);
  const statements = new Map<string, SqliteStatement>();
  conn.prepare = (sql: string) => {
    let statement = statements.get(sql);
    if (!statement) {
      statement = prepare(sql);
      if (statements.size >= REMEMBERED_STATEMENTS) statements.clear();
      statements.set(sql, statement);
    }
    return statement;
  };
}

/** True when a CREATE TABLE lost the race to another process that made the table first. */
function isTableExists(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return e?.code === "ER_TABLE_EXISTS_ERROR" || /already exists/.test(e?.message ?? "");
}

/**
 * Makes knex's own migration tables and the lock's one row, as knex would, but safely when
 * replicas (and their init containers) start at the same moment. knex looks for each table and
 * then creates it: two processes both create (one fails with "already exists"), or both insert a
 * lock row, after which no process can ever take the lock (it expects to lock exactly one row).
 */
async function ensureMigrationTables(db: Knex): Promise<void> {
  const lostRace = (err: unknown) => {
    if (!isTableExists(err)) throw err;
  };
  if (!(await db.schema.hasTable("knex_migrations"))) {
    await db.schema
      .createTable("knex_migrations", (t) => {
        t.increments();
        t.string("name");
        t.integer("batch");
        t.timestamp("migration_time");
      })
      .catch(lostRace);
  }
  if (!(await db.schema.hasTable("knex_migrations_lock"))) {
    await db.schema
      .createTable("knex_migrations_lock", (t) => {
        t.increments("index").primary();
        t.integer("is_locked");
      })
      .catch(lostRace);
  }
  // The one row, by its key: a second insert is ignored.
  await db("knex_migrations_lock").insert({ index: 1, is_locked: 0 }).onConflict("index").ignore();
}

export async function migrate(db: Knex, migrations: Migration[]): Promise<void> {
  await ensureMigrationTables(db);
  const source: Knex.MigrationSource<Migration> = {
    getMigrations: async () => [...migrations].sort((a, b) => a.name.localeCompare(b.name)),
    getMigrationName: (m) => m.name,
    getMigration: async (m) => m,
  };
  // Replicas (and their init containers) that start together: one migrates, the others wait for
  // its lock and then find nothing left to do. A lock still held after a minute is reported.
  for (let attempt = 1; ; attempt++) {
    try {
      await db.migrate.latest({ migrationSource: source });
      return;
    } catch (err) {
      if ((err as Error).name !== "MigrationLocked" || attempt >= MIGRATION_LOCK_ATTEMPTS) throw err;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}

/** How many times (a second apart) `migrate` tries for the migration lock another process holds. */
const MIGRATION_LOCK_ATTEMPTS = 60;

/** Opens and migrates a service's schema. */
export async function openDatabase(config: Config, service: ServiceName, migrations: Migration[]): Promise<Knex> {
  const db = await connectDatabase(config, service);
  await migrate(db, migrations);
  return db;
}

/** Drops a service's MySQL database (tests clean up after themselves). */
export async function dropDatabase(config: Config, service: ServiceName): Promise<void> {
  if (!config.mysqlUrl) return;
  const admin = serverConnection(config.mysqlUrl);
  try {
    await admin.raw("DROP DATABASE IF EXISTS ??", [databaseName(config, service)]);
  } finally {
    await admin.destroy();
  }
}

export function isMysql(db: Knex): boolean {
  return db.client.config.client === "mysql2";
}

/** A value bound to a better-sqlite3 statement as knex binds it (dates as milliseconds, booleans as 0/1). */
const sqliteBinding = (v: unknown): unknown => (v instanceof Date ? v.getTime() : typeof v === "boolean" ? Number(v) : v);

/**
 * A SELECT's rows as arrays of its columns' values, in the order it names them. Both drivers
 * make a row as an object one property at a time, which cost more than the query itself on a
 * month of time entries (2,742 rows: 11.5 ms of CPU as objects, 6.3 ms as arrays); an array is
 * made at once. better-sqlite3 reads arrays in its raw mode (which knex does not offer: the
 * statement is prepared here, on the pool's connection), mysql2 with its rowsAsArray option.
 */
export async function selectArrays(db: Knex, query: Knex.QueryBuilder): Promise<unknown[][]> {
  if (isMysql(db)) return (await query.options({ rowsAsArray: true })) as unknown[][];
  const { sql, bindings } = query.toSQL().toNative();
  const connection = (await db.client.acquireConnection()) as SqliteConnection;
  try {
    // The statement is remembered (see rememberStatements): raw mode ends with this query.
    const statement = connection.prepare(sql).raw(true);
    try {
      return statement.all(bindings.map(sqliteBinding)) as unknown[][];
    } finally {
      statement.raw(false);
    }
  } finally {
    await db.client.releaseConnection(connection);
  }
}

/** True when the error is a unique-key violation in either engine. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; errno?: number };
  return e?.code === "ER_DUP_ENTRY" || e?.code === "SQLITE_CONSTRAINT_UNIQUE" || e?.code === "SQLITE_CONSTRAINT_PRIMARYKEY";
}

/**
 * True when the database refused the transaction for a conflict with a concurrent one, which may
 * run again from its start: MySQL chose it as a deadlock's victim, or SQLite could not turn its
 * read into a write because another connection (another process on the same file: the admin
 * command, a benchmark's server) wrote since it began (SQLITE_BUSY_SNAPSHOT; waiting cannot help).
 */
export function isConflictVictim(err: unknown): boolean {
  const code = (err as { code?: string })?.code;
  return code === "ER_LOCK_DEADLOCK" || code === "SQLITE_BUSY_SNAPSHOT";
}

/** MySQL and SQLite codes of a database that cannot be reached or went away (SQLite's busy codes: see below). */
const CONNECTION_FAILURES = new Set([
  "ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EHOSTUNREACH", "ENOTFOUND", "EPIPE",
  "PROTOCOL_CONNECTION_LOST", "PROTOCOL_SEQUENCE_TIMEOUT", "ER_CON_COUNT_ERROR", "ER_SERVER_SHUTDOWN", "ER_ACCESS_DENIED_ERROR",
  "SQLITE_IOERR", "SQLITE_FULL", "SQLITE_CANTOPEN",
]);

/**
 * True when the database could not be reached, went away, or is too busy (not a fault of the
 * request): callers answer 503, so clients retry later.
 */
export function isConnectionFailure(err: unknown): boolean {
  const e = err as { code?: string; fatal?: boolean; name?: string };
  // SQLITE_BUSY and its extended codes (SQLITE_BUSY_SNAPSHOT, ...): the database is too busy.
  return e?.name === "KnexTimeoutError" || e?.fatal === true || (typeof e?.code === "string" && (CONNECTION_FAILURES.has(e.code) || e.code.startsWith("SQLITE_BUSY")));
}

/** A date read back from either engine: a Date (MySQL), epoch milliseconds or a UTC string (SQLite). */
export function dbDate(v: Date | string | number): Date {
  if (v instanceof Date) return v;
  if (typeof v === "string" && !/[zZ]|[+-]\d\d:?\d\d$/.test(v)) return new Date(`${v.replace(" ", "T")}Z`);
  return new Date(v);
}
