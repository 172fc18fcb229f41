import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { Counter, Histogram, Registry } from "prom-client";

/** Latency buckets of the request histograms, in seconds. */
export const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * A registry for one process part's figures (a service or the gateway), each labelled
 * `service=<name>`. Its own registry, not prom-client's global one: tests run several systems in
 * one process.
 */
export function serviceRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  return registry;
}

/** `NotFound` -> `not_found`: the Connect protocol's spelling of a code. */
function codeName(code: Code): string {
  return Code[code].replace(/[A-Z]/g, (c, i) => (i ? "_" : "") + c.toLowerCase());
}

/**
 * Request counts and latencies per RPC of one service (`rpc_requests_total{rpc,code}`,
 * `rpc_request_duration_seconds{rpc}`), gathered by a Connect interceptor that runs on every call,
 * over the network or in memory. For a streaming RPC the latency ends when its answer begins.
 */
export class RpcMetrics {
  readonly registry: Registry;
  private readonly requests: Counter<"rpc" | "code">;
  private readonly latency: Histogram<"rpc">;

  constructor(service: string) {
    this.registry = serviceRegistry(service);
    this.requests = new Counter({ name: "rpc_requests_total", help: "RPCs answered, by procedure and Connect code.", labelNames: ["rpc", "code"], registers: [this.registry] });
    this.latency = new Histogram({ name: "rpc_request_duration_seconds", help: "Time to answer an RPC, by procedure.", labelNames: ["rpc"], buckets: LATENCY_BUCKETS, registers: [this.registry] });
  }

  readonly interceptor: Interceptor = (next) => async (req) => {
    const rpc = `${req.service.typeName}/${req.method.name}`;
    const end = this.latency.startTimer({ rpc });
    let code = "ok";
    try {
      return await next(req);
    } catch (err) {
      code = codeName(ConnectError.from(err).code);
      throw err;
    } finally {
      end();
      this.requests.inc({ rpc, code });
    }
  };

  /** The Prometheus text exposition, followed by what `more` adds (a service's own figures). */
  async exposition(more?: () => Promise<string>): Promise<string> {
    const own = await this.registry.metrics();
    return more ? own + (await more()) : own;
  }
}

/**
 * Request counts and latencies of the gateway's REST routes (`http_requests_total{route,method,
 * status}`, `http_request_duration_seconds{route,method}`); `route` is the route's pattern
 * (`/api/v9/workspaces/:workspace_id/clients`), `unmatched` for paths no route serves.
 */
export class HttpMetrics {
  readonly registry = serviceRegistry("gateway");
  private readonly requests = new Counter({ name: "http_requests_total", help: "HTTP requests answered, by route, method and status.", labelNames: ["route", "method", "status"], registers: [this.registry] });
  private readonly latency = new Histogram({ name: "http_request_duration_seconds", help: "Time to answer an HTTP request, by route and method.", labelNames: ["route", "method"], buckets: LATENCY_BUCKETS, registers: [this.registry] });

  observe(route: string | undefined, method: string, status: number, seconds: number): void {
    const labels = { route: route ?? "unmatched", method };
    this.requests.inc({ ...labels, status: String(status) });
    this.latency.observe(labels, seconds);
  }

  exposition(): Promise<string> {
    return this.registry.metrics();
  }
}
