import "../lib/runtime.js";
import { loadConfig, SERVICE_NAMES } from "../lib/config.js";
import { createLogger } from "../lib/logger.js";
import { startSystem, stopOnSignals } from "./system.js";

/** `npm start`: every service and the gateway in one process. */
const config = loadConfig();
const log = createLogger(config.logLevel);
const system = await startSystem({ config, services: SERVICE_NAMES, gateway: true, log });
const mode = config.mysqlUrl ? `MySQL ${new URL(config.mysqlUrl).host}, NATS ${config.natsUrl ?? "in-process bus"}` : `SQLite in ${config.dataDir}, in-process bus`;
log.info({ ports: system.ports }, `gateway listening on ${system.gatewayUrl} (${mode})`);
console.log(`Gateway: http://localhost:${system.ports.gateway}`);

stopOnSignals(system, log);
