import { loadConfig, SERVICE_NAMES, type ServiceName } from "../lib/config.js";
import { openDatabase } from "../lib/db.js";
import { outboxMigration } from "../lib/events.js";
import { migrations as hiring } from "../services/hiring/migrations.js";
import { migrations as accounts } from "../services/accounts/migrations.js";
import { migrations as tracking } from "../services/tracking/migrations.js";
import { migrations as notifier } from "../services/notifier/migrations.js";

/** `npm run migrate [-- <service>...]`: brings the schemas up to date (a Kubernetes Job runs it). */
const all = { hiring, accounts, tracking, notifier };
const config = loadConfig();
const names = (process.argv.slice(2).length ? process.argv.slice(2) : SERVICE_NAMES) as ServiceName[];
for (const name of names) {
  if (!(name in all)) {
    console.error(`unknown service ${name}`);
    process.exit(2);
  }
  const db = await openDatabase(config, name, [outboxMigration, ...all[name]]);
  await db.destroy();
  console.log(JSON.stringify({ service: name, migrated: true }));
}
