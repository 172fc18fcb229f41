import { connect, AckPolicy, DeliverPolicy, RetentionPolicy, StorageType, headers as natsHeaders, type NatsConnection, type JetStreamClient, type JetStreamManager, type StreamConfig, type ConsumerMessages, type JsMsg } from "nats";
import type { Logger } from "./logger.js";
import { Turns } from "./turns.js";

export interface BusMessage {
  subject: string;
  /** Event id; JetStream deduplicates on it. */
  id: string;
  data: Uint8Array;
}

export interface Consumer {
  stop(): Promise<void>;
}

/** A message with its position in a stream that keeps messages. */
export interface StreamMessage extends BusMessage {
  seq: number;
}

/**
 * EventBus is the stream every service publishes its events to. `publish` resolves once the
 * stream has stored every message, in their order; when it fails, a prefix of them may be stored
 * (published again, JetStream drops them by their ids; an in-process consumer gets them again).
 * `consume` hands the handler a batch at a time (what arrived while the last batch was handled),
 * in stream order, and acknowledges a batch's messages only after the handler resolved.
 */
export interface EventBus {
  publish(messages: readonly BusMessage[]): Promise<void>;
  consume(durable: string, handler: (batch: BusMessage[]) => Promise<void>): Promise<Consumer>;
  /**
   * Only on a bus that keeps messages (JetStream), for a consumer that stores its position in its
   * own database, in the same transaction as what it does with the messages (exactly once, in
   * order, whichever replica reads). Hands the messages after the position `from()` answers to
   * `handler` in stream order, in batches of what has arrived; `from()` is asked again whenever
   * reading restarts (start, a handler failure). Positions are stream sequence numbers.
   */
  follow?(from: () => Promise<number>, handler: (batch: StreamMessage[]) => Promise<void>): Promise<Consumer>;
  ready(): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * InProcessBus is the embedded default: publishing runs the consumers' handlers directly, each
 * with the whole batch published, so a publish succeeds only when every consumer has stored the
 * messages. With no consumer it fails, and the outbox keeps the events until one is there.
 */
export class InProcessBus implements EventBus {
  private readonly consumers = new Map<string, (batch: BusMessage[]) => Promise<void>>();
  /** One batch at a time, as a stream hands them out. */
  private readonly turns = new Turns();

  async publish(messages: readonly BusMessage[]): Promise<void> {
    if (this.consumers.size === 0) throw new Error("no consumer on the in-process bus");
    if (messages.length === 0) return;
    await this.turns.run(async () => {
      for (const handler of this.consumers.values()) await handler([...messages]);
    });
  }

  async consume(durable: string, handler: (batch: BusMessage[]) => Promise<void>): Promise<Consumer> {
    this.consumers.set(durable, handler);
    return { stop: async () => void this.consumers.delete(durable) };
  }

  async ready(): Promise<boolean> {
    return true;
  }

  async close(): Promise<void> {
    this.consumers.clear();
  }
}

/** Messages a consumer or a follower takes at once. */
const FOLLOW_BATCH = 256;

/** A message as the stream handed it, with what acknowledges it. */
type ReceivedMessage = StreamMessage & { raw: JsMsg };

/** How often the stream's creation is tried before a process's start fails, and how long it waits between tries. */
export const STREAM_ATTEMPTS = 5;
const STREAM_RETRY_MS = 200;

/**
 * Makes the stream unless it is there. The server may refuse a creation for a moment: NATS 2.9
 * removes an account's store directory when its last stream goes, and a stream created at that
 * instant fails with "error creating store for stream" (seen when a test's stream was deleted as
 * another's was made); a cluster answers errors while it elects a leader. Those are tried again;
 * the last try's error is thrown.
 */
export async function ensureStream(jsm: Pick<JetStreamManager, "streams">, config: Partial<StreamConfig> & { name: string }, retryMs = STREAM_RETRY_MS): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await jsm.streams.info(config.name);
      return;
    } catch {
      // Not there (or not answered): make it.
    }
    try {
      await jsm.streams.add(config);
      return;
    } catch (err) {
      if (attempt >= STREAM_ATTEMPTS) throw err;
      await new Promise((resolve) => setTimeout(resolve, retryMs * attempt));
    }
  }
}

/** JetStreamBus publishes to and consumes from the JetStream stream EVENTS. */
export class JetStreamBus implements EventBus {
  private constructor(
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    readonly streamName: string,
    readonly subjectPrefix: string,
    private readonly log: Logger,
  ) {}

  static async connect(url: string, prefix: string, log: Logger): Promise<JetStreamBus> {
    const nc = await connect({ servers: url, maxReconnectAttempts: -1, reconnectTimeWait: 500, name: "workhub" });
    const streamName = `${prefix.replace(/[^A-Za-z0-9_-]/g, "_")}EVENTS`;
    const subjectPrefix = `${prefix}events`;
    const jsm = await nc.jetstreamManager();
    const config = {
      name: streamName,
      subjects: [`${subjectPrefix}.>`],
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      duplicate_window: 2 * 60 * 1_000_000_000,
      max_age: 7 * 24 * 3600 * 1_000_000_000,
    };
    await ensureStream(jsm, config);
    return new JetStreamBus(nc, nc.jetstream(), streamName, subjectPrefix, log);
  }

  async publish(messages: readonly BusMessage[]): Promise<void> {
    // One at a time: a message the stream refused must not let a later one be stored before it.
    for (const msg of messages) {
      const h = natsHeaders();
      h.set("Nats-Msg-Id", msg.id);
      await this.js.publish(`${this.subjectPrefix}.${msg.subject}`, msg.data, { msgID: msg.id, headers: h });
    }
  }

  async consume(durable: string, handler: (batch: BusMessage[]) => Promise<void>): Promise<Consumer> {
    const jsm = await this.nc.jetstreamManager();
    await jsm.consumers.add(this.streamName, {
      durable_name: durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: 30_000_000_000,
      max_ack_pending: 1000,
    });
    const consumer = await this.js.consumers.get(this.streamName, durable);
    const messages = await consumer.consume({ max_messages: FOLLOW_BATCH });
    const done = this.pump(messages, async (batch) => {
      try {
        await handler(batch);
        for (const m of batch) m.raw.ack();
      } catch (err) {
        this.log.warn({ err, subjects: batch.map((m) => m.subject) }, "event handler failed; redelivery later");
        for (const m of batch) m.raw.nak(1000);
      }
    });
    return {
      stop: async () => {
        await messages.close();
        await done;
      },
    };
  }

  async follow(from: () => Promise<number>, handler: (batch: StreamMessage[]) => Promise<void>): Promise<Consumer> {
    let stopped = false;
    let current: ConsumerMessages | undefined;
    let wakeUp: (() => void) | undefined;
    const loop = (async () => {
      while (!stopped) {
        try {
          const after = await from();
          // An ordered consumer: ephemeral, strictly in stream order, and it recreates itself
          // where it left off when the server restarts; our position lives in the caller's database.
          const consumer = await this.js.consumers.get(this.streamName, after > 0 ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: after + 1 } : {});
          current = await consumer.consume({ max_messages: FOLLOW_BATCH });
          if (stopped) await current.close();
          await this.pump(current, handler);
        } catch (err) {
          if (!stopped) this.log.warn({ err }, "following the stream failed; reading again from the stored position");
        }
        if (!stopped) await new Promise<void>((resolve) => ((wakeUp = resolve), setTimeout(resolve, 1000)));
      }
    })();
    return {
      stop: async () => {
        stopped = true;
        wakeUp?.();
        await current?.close().catch(() => undefined);
        await loop;
      },
    };
  }

  /**
   * Feeds what arrives to the handler in batches: while one batch is handled, the next gathers.
   * A handler that fails ends the reading (and rejects); one that handles its failures goes on.
   */
  private async pump(messages: ConsumerMessages, handler: (batch: ReceivedMessage[]) => Promise<void>): Promise<void> {
    const prefixLength = this.subjectPrefix.length + 1;
    const buffer: ReceivedMessage[] = [];
    let arrived: (() => void) | undefined;
    let drained: (() => void) | undefined;
    let ended = false;
    let failure: unknown;
    const work = (async () => {
      for (;;) {
        while (buffer.length === 0 && !ended) await new Promise<void>((resolve) => (arrived = resolve));
        if (buffer.length === 0) return;
        const batch = buffer.splice(0, FOLLOW_BATCH);
        drained?.();
        await handler(batch);
      }
    })().catch(async (err: unknown) => {
      // A failed handler ends reading, so that it restarts from the stored position.
      failure = err ?? new Error("handler failed");
      drained?.();
      await messages.close().catch(() => undefined);
    });
    for await (const m of messages) {
      if (failure) break;
      buffer.push({ subject: m.subject.slice(prefixLength), id: m.headers?.get("Nats-Msg-Id") ?? `${m.seq}`, data: m.data, seq: m.seq, raw: m });
      arrived?.();
      if (buffer.length >= 4 * FOLLOW_BATCH) await new Promise<void>((resolve) => (drained = resolve));
    }
    ended = true;
    arrived?.();
    await work;
    if (failure) throw failure;
  }

  async ready(): Promise<boolean> {
    if (this.nc.isClosed()) return false;
    try {
      await this.nc.flush();
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    await this.nc.drain().catch(() => this.nc.close());
  }
}
