import t from "tap";
import { loadConfig } from "../config.js";
import { connectDatabase, dropDatabase, isMysql, isUniqueViolation, selectArrays } from "../db.js";
import { testEnv } from "../../test/support/harness.js";

/**
 * An SQLite connection keeps its prepared statements by SQL text (lib/db.ts): the same statement
 * serves later queries of the same text, and what one query sets on it does not reach the next.
 * Its LIMIT is written into the SQL, not bound (lib/sqlite-client.ts), in and out of transactions.
 */

const config = loadConfig(testEnv());
const db = await connectDatabase(config, "hiring");
t.teardown(async () => {
  await db.destroy();
  await dropDatabase(config, "hiring");
});
await db.schema.createTable("statement_things", (table) => {
  table.integer("id").primary();
  table.string("name").notNullable();
});
await db("statement_things").insert([{ id: 1, name: "one" }, { id: 2, name: "two" }]);

const byId = (id: number) => db("statement_things").where({ id }).select("id", "name");

t.test("a query of the same text reads the rows as they are now, with its own bindings", async (t) => {
  t.same(await byId(1), [{ id: 1, name: "one" }]);
  await db("statement_things").where({ id: 1 }).update({ name: "uno" });
  t.same(await byId(1), [{ id: 1, name: "uno" }]);
  t.same(await byId(2), [{ id: 2, name: "two" }]);
  t.same(await byId(3), []);
});

t.test("rows read as arrays leave the statement reading objects for knex", async (t) => {
  t.same(await selectArrays(db, byId(2)), [[2, "two"]]);
  t.same(await byId(2), [{ id: 2, name: "two" }]);
  t.same(await selectArrays(db, byId(2)), [[2, "two"]]);
});

t.test("a statement that failed serves the next query", async (t) => {
  const insert = (id: number) => db("statement_things").insert({ id, name: "dup" });
  await insert(10);
  t.ok(isUniqueViolation(await insert(10).then(() => undefined, (err: unknown) => err)), "same key twice");
  await insert(11);
  t.same(await db("statement_things").whereIn("id", [10, 11]).orderBy("id").pluck("id"), [10, 11]);
});

t.test("a failed statement keeps its driver's error code and leaves its bound values out of the message", async (t) => {
  const insert = (id: bigint, name: string) => db("statement_things").insert({ id, name });
  await insert(30n, "first");
  const err = (await insert(30n, "secret-value").then(() => undefined, (e: unknown) => e)) as Error;
  t.ok(isUniqueViolation(err), "a collision, whatever type its key is bound as");
  t.notMatch(err.message, /secret-value/);
});

t.test("a statement rolled back in a transaction is used again after it", async (t) => {
  await t.rejects(
    db.transaction(async (trx) => {
      await trx("statement_things").insert({ id: 20, name: "gone" });
      throw new Error("abandon");
    }),
    { message: "abandon" },
  );
  t.same(await byId(20), []);
  await db.transaction(async (trx) => {
    await trx("statement_things").insert({ id: 20, name: "kept" });
  });
  t.same(await byId(20), [{ id: 20, name: "kept" }]);
});

t.test("an SQLite query's LIMIT is in its SQL, its OFFSET bound; both engines answer alike", async (t) => {
  const page = (q: typeof db) => q("statement_things").whereIn("id", [1, 2]).orderBy("id").limit(1).offset(1).select("id");
  if (!isMysql(db)) {
    t.equal(page(db).toSQL().sql, "select `id` from `statement_things` where `id` in (?, ?) order by `id` asc limit 1 offset ?");
    t.same(page(db).toSQL().bindings, [1, 2, 1]);
    t.match(db("statement_things").first("id").toSQL().sql, / limit 1$/, "first()");
    t.match(db("statement_things").offset(1).select("id").toSQL().sql, / limit -1 offset \?$/, "an offset alone");
    await db.transaction(async (trx) => t.match(trx("statement_things").first("id").toSQL().sql, / limit 1$/, "in a transaction"));
  }
  t.same(await page(db), [{ id: 2 }]);
  t.same(await db("statement_things").where({ id: 2 }).first("name"), { name: "two" });
  t.same(await db("statement_things").whereIn("id", [1, 2]).orderBy("id").offset(1).pluck("id"), [2]);
  t.same(await db("statement_things").limit(0).select("id"), [], "limit 0");
  await db.transaction(async (trx) => t.same(await trx("statement_things").where({ id: 1 }).first("id"), { id: 1 }));
});

t.test("a MySQL connection holds no room for prepared statements it never makes", { skip: !isMysql(db) && "MySQL only" }, async (t) => {
  const connection = (await db.client.acquireConnection()) as { config: { maxPreparedStatements: number } };
  try {
    t.equal(connection.config.maxPreparedStatements, 1);
  } finally {
    await db.client.releaseConnection(connection);
  }
  t.same(await byId(2), [{ id: 2, name: "two" }], "queries answer as before");
});
