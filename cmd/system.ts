import type { FastifyInstance } from "fastify";
import { SERVICE_NAMES, type Config, type ServiceName } from "../lib/config.js";
import { systemClock, type Clock } from "../lib/clock.js";
import { createLogger, type Logger } from "../lib/logger.js";
import { InProcessBus, JetStreamBus, type EventBus } from "../lib/bus.js";
import { Directory, serverInterceptors } from "../lib/directory.js";
import { DRAIN_MS, serveConnect, type Listening } from "../lib/serve.js";
import { HttpMetrics, RpcMetrics } from "../lib/metrics.js";
import type { ServiceFactory, ServiceInstance } from "../lib/service.js";
import { buildGateway, drainGateway } from "../gateway/server.js";
import { createHiringService } from "../services/hiring/index.js";
import { createAccountsService } from "../services/accounts/index.js";
import { createTrackingService } from "../services/tracking/index.js";
import { createNotifierService } from "../services/notifier/index.js";

export const FACTORIES: Record<ServiceName, ServiceFactory> = {
  // The notifier comes first so its consumer is there before any relay publishes.
  notifier: createNotifierService,
  accounts: createAccountsService,
  hiring: createHiringService,
  tracking: createTrackingService,
};

export interface System {
  config: Config;
  bus: EventBus;
  directory: Directory;
  services: Map<ServiceName, ServiceInstance>;
  /** Actual ports (differ from the configuration when it asked for port 0). */
  ports: Partial<Record<ServiceName | "gateway", number>>;
  gateway?: FastifyInstance;
  gatewayUrl?: string;
  /** Stops everything; `lameDuckMs`: first serve on that long while sending clients elsewhere (see drainGateway). */
  close(options?: { lameDuckMs?: number }): Promise<void>;
}

/** Asks a service in another process whether it is ready. */
async function remoteReady(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2000) });
    return res.ok;
  } catch {
    return false;
  }
}

/**
 * Starts the named services (each served on its own port) and, optionally, the gateway, in
 * this process. Local services call each other in memory; the rest over HTTP/2.
 */
export async function startSystem(options: {
  config: Config;
  services: readonly ServiceName[];
  gateway: boolean;
  clock?: Clock;
  log?: Logger;
  host?: string;
}): Promise<System> {
  const { config } = options;
  const log = options.log ?? createLogger(config.logLevel);
  const clock = options.clock ?? systemClock;
  const bus: EventBus = config.natsUrl ? await JetStreamBus.connect(config.natsUrl, config.natsPrefix, log) : new InProcessBus();
  const directory = new Directory(config, log);
  const services = new Map<ServiceName, ServiceInstance>();
  // Request counts and latencies per RPC, served with the service's own figures at /metrics.
  const rpcMetrics = new Map<ServiceName, RpcMetrics>();
  const listening: Listening[] = [];
  const ports: System["ports"] = {};
  let gateway: FastifyInstance | undefined;

  const close = async ({ lameDuckMs = 0 } = {}) => {
    // The gateway and each port drain at the same time (the gateway calls this process's services in memory).
    await Promise.all([gateway && drainGateway(gateway, lameDuckMs), ...listening.map((l) => l.close(DRAIN_MS, lameDuckMs))]);
    for (const s of [...services.values()].reverse()) await s.close().catch((err) => log.error({ err }, "closing failed"));
    await bus.close();
  };

  try {
    const order = (Object.keys(FACTORIES) as ServiceName[]).filter((n) => options.services.includes(n));
    for (const name of order) {
      const instance = await FACTORIES[name]({ config, clock, bus, directory, log: log.child({ service: name }) });
      services.set(name, instance);
      rpcMetrics.set(name, new RpcMetrics(name));
      directory.registerLocal(name, instance.routes, [rpcMetrics.get(name)!.interceptor], [instance.access]);
    }
    for (const [name, instance] of services) {
      const metrics = rpcMetrics.get(name)!;
      const l = await serveConnect({
        routes: instance.routes,
        interceptors: [metrics.interceptor, ...serverInterceptors(config, log.child({ service: name })), instance.access],
        ready: () => instance.ready(),
        metrics: () => metrics.exposition(instance.metrics?.bind(instance)),
        port: config.ports[name],
        host: options.host ?? config.host,
      });
      listening.push(l);
      ports[name] = l.port;
    }
    for (const instance of services.values()) await instance.start();
    if (options.gateway) {
      const ready = async () => {
        const checks = SERVICE_NAMES.map((n) => (services.has(n) ? services.get(n)!.ready() : remoteReady(config.serviceUrls[n])));
        return (await Promise.all(checks)).every(Boolean);
      };
      gateway = await buildGateway({ directory, log, ready, trustProxy: config.trustProxy, metrics: new HttpMetrics(), publicUrl: config.publicUrl });
      await gateway.listen({ port: config.ports.gateway, host: options.host ?? config.host });
      ports.gateway = (gateway.server.address() as { port: number }).port;
    }
  } catch (err) {
    await close().catch(() => undefined);
    throw err;
  }
  return {
    config,
    bus,
    directory,
    services,
    ports,
    gateway,
    gatewayUrl: ports.gateway !== undefined ? `http://127.0.0.1:${ports.gateway}` : undefined,
    close,
  };
}

/**
 * How long a process gives itself to stop after SIGTERM before it exits anyway: the drain of the
 * calls in progress (DRAIN_MS), then the services' background work, the pools and the bus. It fits
 * in the pods' terminationGracePeriodSeconds (30 s) after their preStop pause (5 s).
 */
export const SHUTDOWN_BUDGET_MS = 20_000;

/**
 * How long a process told to stop goes on answering while sending its clients elsewhere, before
 * it closes its ports (see drainGateway and Listening.close). Kubernetes sends SIGTERM while it
 * takes the pod out of the Service's endpoints; the pods' preStop pause gives more room still.
 */
export const LAME_DUCK_MS = 1_000;

/**
 * On SIGTERM or SIGINT: stop taking requests, finish the ones in progress, stop the services'
 * background work, close the pools and the bus, then exit (0, or 1 when that failed or took
 * longer than SHUTDOWN_BUDGET_MS).
 */
export function stopOnSignals(system: System, log: Logger): void {
  let stopping = false;
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      log.info(`${signal}: shutting down`);
      setTimeout(() => {
        log.error(`shutdown took longer than ${SHUTDOWN_BUDGET_MS} ms; exiting`);
        process.exit(1);
      }, SHUTDOWN_BUDGET_MS).unref();
      system.close({ lameDuckMs: LAME_DUCK_MS }).then(
        () => {
          log.info("stopped");
          process.exit(0);
        },
        (err) => {
          log.error({ err }, "shutdown failed");
          process.exit(1);
        },
      );
    });
  }
}
