import type { Clock } from "../../../lib/clock.js";
import { parseApiKey, secretMatches } from "./rules.js";
import type { ApiKeyRow } from "./store.js";

interface KnownKey {
  workspaceId: string;
  secretHash: string;
  /** When the row was read (ms since the epoch). */
  at: number;
}

/**
 * Checks API keys, remembering each stored key row for `ttlMs`: every request carries a key,
 * and reading its row cost as much as a small page of candidates. The secret is still hashed
 * and compared on every request; only the row is remembered. Revoking through this service
 * forgets the row at once; another replica of the service notices within `ttlMs`.
 */
export class KeyVerifier {
  private readonly known = new Map<string, KnownKey>();
  /** Counts `forget` calls: a row read before one is not remembered (it may be the forgotten key's). */
  private forgets = 0;

  constructor(
    private readonly load: (id: string) => Promise<ApiKeyRow | undefined>,
    private readonly clock: Clock,
    private readonly ttlMs = 2_000,
  ) {}

  private now(): number {
    return this.clock.now().getTime();
  }

  /** The key's workspace, or undefined for a malformed, unknown, revoked or wrong key. */
  async verify(apiKey: string): Promise<string | undefined> {
    const parsed = parseApiKey(apiKey);
    if (!parsed) return undefined;
    let entry = this.known.get(parsed.id);
    if (!entry || this.now() - entry.at > this.ttlMs) {
      this.known.delete(parsed.id);
      const forgets = this.forgets;
      const row = await this.load(parsed.id);
      if (!row) return undefined;
      entry = { workspaceId: row.workspace_id, secretHash: row.secret_hash, at: this.now() };
      // Bounded: only stored keys get here, but a workspace may have many.
      if (this.known.size >= 10_000) this.known.clear();
      if (forgets === this.forgets) this.known.set(parsed.id, entry);
    }
    return secretMatches(parsed.secret, entry.secretHash) ? entry.workspaceId : undefined;
  }

  /** Drops a key's row, also one being read now (a revocation racing with a request). */
  forget(id: string): void {
    this.forgets++;
    this.known.delete(id);
  }
}
