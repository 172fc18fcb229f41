import { pino, type Logger } from "pino";

export type { Logger };

export function createLogger(level: string, name?: string): Logger {
  return pino({ level, name, base: name ? { service: name } : undefined });
}

type Bindings = Record<string, unknown>;
type LogArgs = Parameters<Logger["info"]>;

/**
 * A request's logger whose pino child is made only when the request logs. Fastify makes a child
 * per request (its bindings serialized at once); with request logging off almost no request logs,
 * and the children cost more than anything else in Fastify's part of a small answer.
 */
export class LazyChildLogger {
  private made?: Logger;

  constructor(
    private readonly parent: Logger,
    private readonly bindings: Bindings,
    private readonly options: Record<string, unknown>,
  ) {}

  private get real(): Logger {
    return (this.made ??= this.parent.child(this.bindings, this.options));
  }

  get level(): string {
    return this.made?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.real.level = level;
  }

  fatal(...args: LogArgs): void {
    this.real.fatal(...args);
  }

  error(...args: LogArgs): void {
    this.real.error(...args);
  }

  warn(...args: LogArgs): void {
    this.real.warn(...args);
  }

  info(...args: LogArgs): void {
    this.real.info(...args);
  }

  debug(...args: LogArgs): void {
    this.real.debug(...args);
  }

  trace(...args: LogArgs): void {
    this.real.trace(...args);
  }

  silent(): void {}

  child(bindings: Bindings, options?: Record<string, unknown>): Logger {
    return this.real.child(bindings, options);
  }
}
