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
