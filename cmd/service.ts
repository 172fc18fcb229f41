import "../lib/runtime.js";
import { loadConfig, SERVICE_NAMES, type ServiceName } from "../lib/config.js";
import { createLogger } from "../lib/logger.js";
import { startSystem, stopOnSignals } from "./system.js";

/** `npm run service -- <name>`: one service (or the gateway) alone, as in Kubernetes. */
const name = process.argv[2];
const names = [...SERVICE_NAMES, "gateway"];
if (!name || !names.includes(name)) {
  console.error(`usage: npm run service -- <${names.join("|")}>`);
  process.exit(2);
}
const config = loadConfig();
const log = createLogger(config.logLevel, name);
const system = await startSystem({
  config,
  services: name === "gateway" ? [] : [name as ServiceName],
  gateway: name === "gateway",
  log,
});
log.info({ ports: system.ports }, `${name} started`);

stopOnSignals(system, log);
