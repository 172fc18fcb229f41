import { sha256Hex } from "../../../lib/digest.js";
import { dbDate, type Knex } from "../../../lib/db.js";
import { secretsEqual } from "../../../lib/identity.js";
import type { SecretBox } from "../../../lib/secret-box.js";
import type { ChangeOptions, ServiceStorage } from "../../../lib/storage.js";
import { removeQueueAndLog } from "../notifications/cascade.js";
import { readId } from "../../../lib/ids.js";

/** Which services' events a subscription receives: the hiring service's, or the time-tracking family's. */
export type Family = "hiring" | "tracking";

export interface Filter {
  entity: string;
  action: string;
}

export interface SubscriptionRow {
  id: bigint;
  family: Family;
  workspace_id: string;
  /** Time-tracking user who made it; 0 for subscriptions made over the internal RPCs. */
  user_id: bigint;
  description: string;
  url: string;
  /** The signing secret in clear; sealed at rest (`secret_sealed`). */
  secret: string;
  event_filters: Filter[];
  enabled: boolean;
  /**
   * The validation code in clear, only where it was just issued: at rest is its SHA-256 alone
   * (`validation_code_sha256`), so a row read back carries null.
   */
  validation_code: string | null;
  validated_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export type NewSubscription = Omit<SubscriptionRow, "id">;

/** How a validation code is kept: its SHA-256 in hex (codes are random, 192 bits: no salt needed). */
function validationCodeHash(code: string): string {
  return sha256Hex(code);
}

/** A subscription as the ingest reads it, to learn who receives an event: the secret stays sealed. */
export type SubscriptionReceiver = Omit<SubscriptionRow, "secret">;

function receiverRow(row: Record<string, unknown>): SubscriptionReceiver {
  return {
    id: readId(row.id),
    family: row.family as Family,
    workspace_id: String(row.workspace_id),
    user_id: readId(row.user_id),
    description: String(row.description),
    url: String(row.url),
    event_filters: JSON.parse(String(row.event_filters)) as Filter[],
    enabled: Boolean(row.enabled),
    validation_code: null,
    validated_at: row.validated_at == null ? null : dbDate(row.validated_at as Date),
    created_at: dbDate(row.created_at as Date),
    updated_at: dbDate(row.updated_at as Date),
  };
}

/**
 * The `subscriptions` table (and `workspace_locks`, which orders creations in a workspace).
 * Signing secrets are sealed with the box (AES-256-GCM, ENCRYPTION_KEY) and validation codes
 * hashed as they are written; secrets are opened as they are read. Writes that may meet a
 * unique key (a description taken in the workspace) run as changes of the storage kit, which
 * turns the violation into the error the call declares (`onDuplicate`).
 */
export class SubscriptionStore {
  constructor(
    private readonly storage: ServiceStorage,
    private readonly box: SecretBox,
  ) {}

  get db(): Knex {
    return this.storage.db;
  }

  /**
   * Columns of a subscription as written: the secret sealed, the validation code hashed.
   * Descriptions are unique in a time-tracking workspace; hiring subscriptions and undescribed
   * internal ones have no unique key (null never collides).
   */
  private columns(row: Partial<NewSubscription>): Record<string, unknown> {
    const { secret, validation_code, ...plain } = row;
    const out: Record<string, unknown> = { ...plain };
    if (row.event_filters) out.event_filters = JSON.stringify(row.event_filters);
    if (row.description !== undefined) out.unique_description = row.family === "hiring" ? null : row.description || null;
    if (secret !== undefined) out.secret_sealed = this.box.seal(secret);
    if (validation_code !== undefined) out.validation_code_sha256 = validation_code === null ? null : validationCodeHash(validation_code);
    return out;
  }

  private read(row: Record<string, unknown>): SubscriptionRow {
    return { ...receiverRow(row), secret: this.box.open(String(row.secret_sealed)) };
  }

  /**
   * Seals the secrets and hashes the validation codes of subscriptions written in clear before
   * they were kept so (migration 0005), and empties their plain columns; answers how many. Runs
   * when the notifier opens; each row changes only while it is still plain, so replicas opening
   * at once convert each row once.
   */
  async sealPlain(): Promise<number> {
    const rows: { id: number | string; secret: string; validation_code: string | null }[] = await this.db("subscriptions").whereNotNull("secret").select("id", "secret", "validation_code");
    let sealed = 0;
    for (const r of rows) {
      sealed += await this.db("subscriptions")
        .where({ id: r.id, secret: r.secret })
        .update({ secret_sealed: this.box.seal(r.secret), validation_code_sha256: r.validation_code === null ? null : validationCodeHash(r.validation_code), secret: null, validation_code: null });
    }
    return sealed;
  }

  async insert(row: NewSubscription, options: ChangeOptions = {}): Promise<SubscriptionRow> {
    return this.storage.change(async (trx) => {
      const [id] = await trx("subscriptions").insert(this.columns(row));
      return { ...row, id: readId(id) };
    }, options);
  }

  /**
   * Inserts a subscription unless its workspace has `max` of them already; undefined then. The
   * workspace's lock row, taken for the count and the insert, makes concurrent creations wait
   * for each other, so two cannot both pass the count. (SQLite runs one transaction at a time.)
   */
  async insertWithin(row: NewSubscription, max: number, options: ChangeOptions = {}): Promise<SubscriptionRow | undefined> {
    const workspace = { family: row.family, workspace_id: row.workspace_id };
    // Made outside the transaction: taking the lock after inserting it in the same transaction
    // would deadlock two creators that both met the row already there (shared, then exclusive).
    await this.db("workspace_locks").insert(workspace).onConflict(["family", "workspace_id"]).ignore();
    return this.storage.change(async (trx) => {
      // FOR UPDATE on MySQL; knex leaves it out on SQLite, which runs one transaction at a time.
      await trx("workspace_locks").where(workspace).first("family").forUpdate();
      const [{ n }] = await trx("subscriptions").where(workspace).count({ n: "*" });
      if (Number(n) >= max) return undefined;
      const [id] = await trx("subscriptions").insert(this.columns(row));
      return { ...row, id: readId(id) };
    }, options);
  }

  async get(id: bigint): Promise<SubscriptionRow | undefined> {
    const row = await this.db("subscriptions").where({ id }).first();
    return row ? this.read(row) : undefined;
  }

  async ofWorkspace(family: Family, workspaceId: string): Promise<SubscriptionRow[]> {
    const rows = await this.db("subscriptions").where({ family, workspace_id: workspaceId }).orderBy("id");
    return rows.map((r) => this.read(r));
  }

  /** Every subscription of the given workspaces, for turning a batch of events into notifications. */
  async ofWorkspaces(keys: { family: Family; workspaceId: string }[]): Promise<SubscriptionReceiver[]> {
    if (keys.length === 0) return [];
    const rows = await this.db("subscriptions").whereIn(
      ["family", "workspace_id"],
      keys.map((k) => [k.family, k.workspaceId]),
    );
    return rows.map(receiverRow);
  }

  /**
   * Changes a subscription; answers it as it stands after the change (with the validation code
   * in clear when the change issued one), or undefined when it is gone.
   */
  async update(id: bigint, changes: Partial<NewSubscription>, options: ChangeOptions = {}): Promise<SubscriptionRow | undefined> {
    const updated = await this.storage.change((trx) => trx("subscriptions").where({ id }).update(this.columns(changes)), options);
    if (updated === 0) return undefined;
    const row = await this.get(id);
    return row && changes.validation_code !== undefined ? { ...row, validation_code: changes.validation_code } : row;
  }

  /**
   * Replaces the validation code of a subscription that is not validated (only the code's hash is
   * kept, so a ping cannot send the old one again); answers the subscription with the new code in
   * clear, without one when it was validated meanwhile, or undefined when it is gone.
   */
  async reissueValidationCode(id: bigint, code: string): Promise<SubscriptionRow | undefined> {
    const updated = await this.db("subscriptions").where({ id }).whereNull("validated_at").update({ validation_code_sha256: validationCodeHash(code) });
    const row = await this.get(id);
    return row && updated > 0 ? { ...row, validation_code: code } : row;
  }

  /**
   * Validates when the code is the subscription's (hashes compared in constant time); true when
   * it is (or already was) validated.
   */
  async validate(id: bigint, code: string, now: Date): Promise<boolean> {
    const row = await this.db("subscriptions").where({ id }).first("validation_code_sha256");
    const stored: string | null | undefined = row?.validation_code_sha256;
    if (!stored || !secretsEqual(stored, validationCodeHash(code))) return false;
    // Only while the code is still the one compared: a PUT or a ping may have replaced it meanwhile.
    const updated = await this.db("subscriptions").where({ id, validation_code_sha256: stored }).whereNull("validated_at").update({ validated_at: now });
    if (updated > 0) return true;
    const after = await this.db("subscriptions").where({ id, validation_code_sha256: stored }).first("validated_at");
    return Boolean(after?.validated_at);
  }

  /** Removes a subscription with its queue and its delivery log; false when it was gone. */
  async delete(id: bigint): Promise<boolean> {
    return this.db.transaction(async (trx) => {
      await removeQueueAndLog(trx, id);
      return (await trx("subscriptions").where({ id }).delete()) > 0;
    });
  }
}
