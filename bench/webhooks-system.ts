import "../lib/runtime.js";
import { loadConfig, SERVICE_NAMES } from "../lib/config.js";
import { createLogger } from "../lib/logger.js";
import { startSystem, stopOnSignals } from "../cmd/system.js";
import type { Notifier } from "../services/notifier/index.js";

/**
 * The system of `npm run bench:webhooks`: `cmd/start.ts` (every service and the gateway in one
 * process), whose notifier's dispatcher the bench can hold and release over the IPC channel, so
 * that a backlog of events can be queued first and its delivery timed alone. `hold` stops the
 * dispatcher (ingest goes on queueing), `release` starts it again; each is answered with
 * `held` / `released` once done.
 */
const config = loadConfig();
const log = createLogger(config.logLevel);
const system = await startSystem({ config, services: SERVICE_NAMES, gateway: true, log });
const notifier = system.services.get("notifier") as Notifier;
process.on("message", (message) => {
  const step = message === "hold" ? notifier.dispatcher.stop() : message === "release" ? notifier.dispatcher.start() : undefined;
  void step?.then(() => process.send?.(message === "hold" ? "held" : "released"));
});
stopOnSignals(system, log);
