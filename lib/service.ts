import type { ConnectRouter, Interceptor } from "@connectrpc/connect";
import type { Config, ServiceName } from "./config.js";
import type { Clock } from "./clock.js";
import type { Logger } from "./logger.js";
import type { EventBus } from "./bus.js";
import type { Directory } from "./directory.js";

/** What a service gets from the process that runs it. */
export interface ServiceDeps {
  config: Config;
  clock: Clock;
  log: Logger;
  bus: EventBus;
  directory: Directory;
}

/** A started service: its RPCs, its readiness, and how to stop it. */
export interface ServiceInstance {
  name: ServiceName;
  routes: (router: ConnectRouter) => void;
  /** Resolves the access each RPC declares before its handler runs (`accessInterceptor` of lib/access.ts). */
  access: Interceptor;
  ready(): Promise<boolean>;
  /** Starts background work (relays, consumers, workers) once every local service is registered. */
  start(): Promise<void>;
  close(): Promise<void>;
  /** Prometheus text exposition, served at GET /metrics on the service's port when present. */
  metrics?(): Promise<string>;
}

export type ServiceFactory = (deps: ServiceDeps) => Promise<ServiceInstance>;
