import type { Clock } from "../../lib/clock.js";
import type { ServiceStorage } from "../../lib/storage.js";

/**
 * What the hiring service's resources are built from: its storage (changes with their events)
 * and the clock. The caller's workspace is not among them: the access interceptor resolves the
 * API key and the handlers read it with `hiringWorkspace(ctx)`. A resource folder exports
 * `<resource>Handlers(kit)`, which `routes.ts` composes.
 */
export interface HiringKit {
  storage: ServiceStorage;
  clock: Clock;
}
