import { createRequire } from "node:module";
import type { Knex } from "knex";

const require = createRequire(import.meta.url);

/** What this file uses of knex's query compiler (a CommonJS class without types of its own). */
interface QueryCompiler {
  single: { limit?: unknown };
  _getValueOrParameterFromAttribute(attribute: string, rawValue?: unknown): unknown;
}
type QueryCompilerClass = new (client: unknown, builder: unknown, formatter: unknown) => QueryCompiler;
type ClientClass = new (config: Knex.Config) => { queryCompiler(builder: unknown, formatter: unknown): QueryCompiler };

/** knex's better-sqlite3 dialect and the SQLite query compiler it uses. */
const BetterSqlite3Client = require("knex/lib/dialects/better-sqlite3/index.js") as ClientClass;
const SqliteQueryCompiler = require("knex/lib/dialects/sqlite3/query/sqlite-querycompiler.js") as QueryCompilerClass;

/**
 * Writes a query's LIMIT into its SQL (`limit 1`) where knex binds it (`limit ?`). SQLite as
 * better-sqlite3 builds it (with STAT4) re-prepares a statement whose LIMIT is a bound parameter
 * every time it runs: it parses and plans the statement again, so a remembered statement (see
 * lib/db.ts) saved nothing. That cost 3 µs a query back to back and 30 to 60 µs inside an HTTP
 * request, where the parser's and planner's code and data are no longer in the CPU's caches;
 * every `.first()` is such a query. knex's `limit()` keeps only integers, so the value written is
 * one; the few limits the services use (1, page sizes) give few statements to remember. An OFFSET
 * stays bound: it does not make SQLite re-prepare, and pages' offsets are many.
 */
class InlineLimitCompiler extends SqliteQueryCompiler {
  override _getValueOrParameterFromAttribute(attribute: string, rawValue?: unknown): unknown {
    const { limit } = this.single;
    if (attribute === "limit" && Number.isInteger(limit)) return limit;
    return super._getValueOrParameterFromAttribute(attribute, rawValue);
  }
}

/** knex's better-sqlite3 client with InlineLimitCompiler (transactions' clients are made from its prototype too). */
export class SqliteClient extends BetterSqlite3Client {
  override queryCompiler(builder: unknown, formatter: unknown): QueryCompiler {
    return new InlineLimitCompiler(this, builder, formatter);
  }
}
