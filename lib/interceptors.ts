import { Code, ConnectError, type StreamRequest, type StreamResponse } from "@connectrpc/connect";

/**
 * What `next(req, context)` answers, always as a promise: a layer or handler that throws instead
 * of rejecting is rejected, and a plain value is resolved. For layers that chain on the answer
 * (`.then`) instead of awaiting it, which costs every call an async function's promise and ticks.
 */
export function answerOf<Req, Res, Ctx = undefined>(next: (req: Req, context: Ctx) => Res | Promise<Res>, req: Req, context?: Ctx): Promise<Res> {
  try {
    return Promise.resolve(next(req, context as Ctx));
  } catch (err) {
    return Promise.reject(err);
  }
}

/** How a streaming answer ended: its last message read, failed, or left unread (the caller went away). */
export type StreamEnd = { completed: true } | { completed: false; error?: unknown };

/**
 * A streaming answer whose failure goes through `fail` (which answers the error to throw on)
 * and whose end is told to `end`. A stream's answer arrives before its handler has run: what the
 * handler throws, and when it ends, show only while its messages are read. Leaving the stream
 * early leaves the handler's (its finally blocks run).
 */
export function watchStream<R extends StreamResponse>(res: R, fail: (err: unknown) => unknown, end?: (how: StreamEnd) => void): R {
  const source = res.message;
  async function* watched() {
    let how: StreamEnd = { completed: false };
    try {
      yield* source;
      how = { completed: true };
    } catch (err) {
      how = { completed: false, error: err };
      throw fail(err);
    } finally {
      end?.(how);
    }
  }
  return { ...res, message: watched() };
}

/** A streaming call's request messages, each checked by `check` (which throws to refuse) as the handler reads it. */
export function checkEachRequest<R extends StreamRequest>(req: R, check: (message: object) => void): R {
  const source = req.message;
  async function* checked() {
    for await (const message of source) {
      check(message);
      yield message;
    }
  }
  return { ...req, message: checked() };
}

/**
 * The first request message of a streaming call, read before the handler runs (a server-streaming
 * call has exactly one: what it acts on), and the call that still hands it to the handler.
 */
export async function firstRequest<R extends StreamRequest>(req: R): Promise<[object, R]> {
  const it = req.message[Symbol.asyncIterator]();
  const first = await it.next();
  if (first.done) throw new ConnectError(`${req.method.name}: missing input message`, Code.InvalidArgument);
  async function* replayed() {
    yield first.value;
    for (let next = await it.next(); !next.done; next = await it.next()) yield next.value;
  }
  return [first.value, { ...req, message: replayed() }];
}
