/**
 * The next layer's answer to a call, always as a promise: a layer that throws instead of
 * rejecting is rejected. For interceptors that chain on the answer (`.then`) instead of awaiting
 * it, which costs every call an async function's promise and ticks.
 */
export function answerOf<Req, Res>(next: (req: Req) => Promise<Res>, req: Req): Promise<Res> {
  try {
    return next(req);
  } catch (err) {
    return Promise.reject(err);
  }
}
