import t from "tap";
import { loadConfig } from "../config.js";
import { openDatabase, type Knex, type Migration } from "../db.js";
import { cleanUp, STACK_MODE, testEnv } from "../../test/support/harness.js";

/**
 * Replicas and their init containers migrate a schema at the same moment: every one of them
 * succeeds, each migration runs once, and the migration lock keeps its one row (with two, no
 * process could ever take it again). Replicas share MySQL; on SQLite, processes sharing one file
 * wait on its busy timeout, so fewer of them race there.
 */

const MIGRATORS = STACK_MODE ? 8 : 3;
const ROUNDS = STACK_MODE ? 3 : 1;

const migrations: Migration[] = [
  { name: "0001_things", up: (db) => db.schema.createTable("things", (tb) => tb.increments()), down: (db) => db.schema.dropTable("things") },
  { name: "0002_more", up: (db) => db.schema.createTable("more_things", (tb) => tb.increments()), down: (db) => db.schema.dropTable("more_things") },
];

t.test("migrators at once all succeed, each migration once", async (t) => {
  for (let round = 0; round < ROUNDS; round++) {
    const config = loadConfig(testEnv());
    t.teardown(() => cleanUp(config));
    const results = await Promise.allSettled(Array.from({ length: MIGRATORS }, () => openDatabase(config, "hiring", migrations)));
    const opened = results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
    t.teardown(() => Promise.all(opened.map((db: Knex) => db.destroy())));
    t.same(
      results.filter((r) => r.status === "rejected").map((r) => String((r as PromiseRejectedResult).reason)),
      [],
      `round ${round}: every migrator succeeded`,
    );
    const db = opened[0];
    t.same((await db("knex_migrations").select("name").orderBy("name")).map((r: { name: string }) => r.name), ["0001_things", "0002_more"], "each migration ran once");
    t.same(await db("knex_migrations_lock").select("index", "is_locked"), [{ index: 1, is_locked: 0 }], "one lock row, free");
  }
});
