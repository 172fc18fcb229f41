import { setFlagsFromString } from "node:v8";

/**
 * The V8 settings of a server's process: imported first by every entry point that serves
 * requests, before anything else is evaluated.
 *
 * Allocation-site pretenuring off. V8 watches which places in the code allocate objects that
 * survive a young-generation collection, and once a place's survival rate has been high (as
 * during start-up, or any burst), it allocates that place's objects straight in the old
 * generation from then on, and never learns otherwise. A request's objects made at such a place
 * then live in the old generation, and every young object they point to survives the young
 * collections through them, and is promoted: a whole request's graph is carried into the old
 * generation, and stays there until the next full collection. In the system that made each young
 * collection copy 0.2 to 1.4 MB and take 2 to 8 ms (0.3 ms without), and a full collection every
 * few seconds. Without pretenuring what a request leaves is collected young, as in a bare server.
 * docs/gateway-cost.md has the measurements.
 *
 * The flag is read by the collector each time it weighs the feedback (not only at start-up), so
 * setting it here, before the first collection of the code that serves, is enough.
 */
setFlagsFromString("--no-allocation-site-pretenuring");
