import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { answerOf, watchStream } from "./interceptors.js";
import type { DescMethod } from "@bufbuild/protobuf";
import { Registry } from "prom-client";

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

type Labels = Record<string, string>;

/**
 * A counter or histogram with one series per combination of label values, for prom-client's
 * registry, which writes it out with the registry's default labels. Counting costs a Map lookup
 * by the values in order; prom-client's own Counter and Histogram validate and hash the label
 * object on every call, which every request paid twice.
 */
abstract class LabelledSeries<S extends { labels: Labels }> {
  protected readonly series = new Map<string, S>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly string[],
    registry: Registry,
  ) {
    registry.registerMetric(this as never);
  }

  /** A new series of these labels. */
  protected abstract fresh(labels: Labels): S;

  protected seriesOf(values: readonly string[]): S {
    const key = values.length === 1 ? values[0] : values.join("\u0000");
    let s = this.series.get(key);
    if (!s) {
      const labels: Labels = {};
      this.labelNames.forEach((n, i) => (labels[n] = values[i]));
      s = this.fresh(labels);
      this.series.set(key, s);
    }
    return s;
  }
}

export class SeriesCounter extends LabelledSeries<{ labels: Labels; value: number }> {
  readonly type = "counter";

  protected fresh(labels: Labels) {
    return { labels, value: 0 };
  }

  inc(values: readonly string[]): void {
    this.seriesOf(values).value++;
  }

  /** What prom-client's registry reads. */
  get() {
    return { name: this.name, help: this.help, type: this.type, aggregator: "sum", values: [...this.series.values()].map((s) => ({ labels: s.labels, value: s.value })) };
  }
}

export class SeriesHistogram extends LabelledSeries<{ labels: Labels; counts: number[]; sum: number; count: number }> {
  readonly type = "histogram";

  constructor(name: string, help: string, labelNames: readonly string[], registry: Registry, private readonly buckets: readonly number[] = LATENCY_BUCKETS) {
    super(name, help, labelNames, registry);
  }

  protected fresh(labels: Labels) {
    return { labels, counts: this.buckets.map(() => 0), sum: 0, count: 0 };
  }

  observe(values: readonly string[], value: number): void {
    const s = this.seriesOf(values);
    const { buckets } = this;
    for (let i = 0; i < buckets.length; i++) {
      if (value <= buckets[i]) {
        s.counts[i]++;
        break;
      }
    }
    s.sum += value;
    s.count++;
  }

  /** What prom-client's registry reads: cumulative buckets, +Inf, sum and count per series (as prom-client's Histogram writes them). */
  get() {
    const bucket = `${this.name}_bucket`;
    const values = [...this.series.values()].flatMap((s) => {
      let cumulative = 0;
      return [
        ...this.buckets.map((le, i) => ({ metricName: bucket, labels: { le }, sharedLabels: s.labels, value: (cumulative += s.counts[i]) })),
        { metricName: bucket, labels: { le: "+Inf" }, sharedLabels: s.labels, value: s.count },
        { metricName: `${this.name}_sum`, labels: {}, sharedLabels: s.labels, value: s.sum },
        { metricName: `${this.name}_count`, labels: {}, sharedLabels: s.labels, value: s.count },
      ];
    });
    return { name: this.name, help: this.help, type: this.type, aggregator: "sum", values };
  }
}

const rpcNames = new WeakMap<DescMethod, string>();

/** `tracking.v1.TimeEntryService/GetCurrentTimeEntry`: the `rpc` label of a method. */
function rpcName(method: DescMethod): string {
  let name = rpcNames.get(method);
  if (name === undefined) rpcNames.set(method, (name = `${method.parent.typeName}/${method.name}`));
  return name;
}

/**
 * Request counts and latencies per RPC of one service (`rpc_requests_total{rpc,code}`,
 * `rpc_request_duration_seconds{rpc}`), gathered by a Connect interceptor that runs on every call,
 * over the network or in memory. A streaming RPC is counted when its answer ends: its last message
 * read (`ok`), its failure, or its reader gone (`canceled`).
 */
export class RpcMetrics {
  readonly registry: Registry;
  private readonly requests: SeriesCounter;
  private readonly latency: SeriesHistogram;

  constructor(service: string) {
    this.registry = serviceRegistry(service);
    this.requests = new SeriesCounter("rpc_requests_total", "RPCs answered, by procedure and Connect code.", ["rpc", "code"], this.registry);
    this.latency = new SeriesHistogram("rpc_request_duration_seconds", "Time to answer an RPC, by procedure.", ["rpc"], this.registry);
  }

  // Chained, not awaited (an async layer costs every call a promise and ticks).
  readonly interceptor: Interceptor = (next) => (req) => {
    const started = performance.now();
    const rpc = rpcName(req.method);
    return answerOf(next, req).then(
      (res) => {
        if (res.stream) {
          return watchStream(
            res,
            (err) => err,
            (how) => this.record(rpc, started, how.completed ? "ok" : how.error === undefined ? "canceled" : codeName(ConnectError.from(how.error).code)),
          );
        }
        this.record(rpc, started, "ok");
        return res;
      },
      (err: unknown) => {
        this.record(rpc, started, codeName(ConnectError.from(err).code));
        throw err;
      },
    );
  };

  private record(rpc: string, started: number, code: string): void {
    this.latency.observe([rpc], (performance.now() - started) / 1000);
    this.requests.inc([rpc, code]);
  }

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
  private readonly requests = new SeriesCounter("http_requests_total", "HTTP requests answered, by route, method and status.", ["route", "method", "status"], this.registry);
  private readonly latency = new SeriesHistogram("http_request_duration_seconds", "Time to answer an HTTP request, by route and method.", ["route", "method"], this.registry);

  observe(route: string | undefined, method: string, status: number, seconds: number): void {
    const r = route ?? "unmatched";
    this.requests.inc([r, method, String(status)]);
    this.latency.observe([r, method], seconds);
  }

  exposition(): Promise<string> {
    return this.registry.metrics();
  }
}
