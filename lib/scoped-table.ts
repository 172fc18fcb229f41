import { dbDate, type Knex } from "./db.js";
import { storageId } from "./ids.js";

/** How a column is read back from either engine; `?` allows NULL. */
export type ColumnKind = "id" | "integer" | "number" | "string" | "boolean" | "date" | "json";
export type Column = ColumnKind | `${ColumnKind}?`;

/** A resource's table: its name, the column that scopes it (a workspace, an organization), its columns. */
export interface TableDeclaration<Row extends { id: number }> {
  table: string;
  scope: keyof Row & string;
  columns: { [K in keyof Row]-?: Column };
  /** The order of `list`: columns, each ascending; `lower(<column>)` sorts ignoring case. */
  order: string[];
  /** The column a soft-deleted row has set (its deletion time), for `getLive`. */
  deletedAt?: keyof Row & string;
}

/** What `list` can narrow by: equal values, case-insensitive substrings. */
export interface ListFilter<Row> {
  where?: Partial<Row>;
  contains?: Partial<Record<keyof Row & string, string>>;
}

/** A stored value as a row holds it (each engine returns some kinds its own way). */
export function readColumn(kind: Column, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (kind.replace("?", "") as ColumnKind) {
    case "id":
    case "integer":
    case "number":
      return Number(value);
    case "string":
      return String(value);
    case "boolean":
      return Boolean(value);
    case "date":
      return dbDate(value as Date);
    case "json":
      return typeof value === "string" ? JSON.parse(value) : value;
  }
}

/** Escapes LIKE's wildcards so a user's `%` or `_` is a literal. */
export function likePattern(text: string): string {
  return `%${text.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`)}%`;
}

/**
 * ScopedTable gives a resource its typed rows and the queries every resource needs, each
 * limited to one scope (a workspace): a row of another workspace is never read, changed or
 * deleted through it. Ids come as the request's int64: one that no row can have (0, negative,
 * beyond 2^53) finds nothing, never a neighbouring row. Special queries start from `query()`.
 */
export class ScopedTable<Row extends { id: number }> {
  constructor(readonly declaration: TableDeclaration<Row>) {}

  get table(): string {
    return this.declaration.table;
  }

  /** A row as stored, typed. */
  read(raw: Record<string, unknown>): Row {
    const row: Record<string, unknown> = {};
    for (const [name, kind] of Object.entries(this.declaration.columns) as [string, Column][]) row[name] = readColumn(kind, raw[name]);
    return row as Row;
  }

  /** The scope's rows, for a special query. */
  query(db: Knex, scope: number): Knex.QueryBuilder {
    return db(this.table).where(this.declaration.scope, scope);
  }

  private one(db: Knex, scope: number, id: bigint): Knex.QueryBuilder | undefined {
    const n = storageId(id);
    return n === undefined ? undefined : this.query(db, scope).andWhere("id", n).first();
  }

  async get(db: Knex, scope: number, id: bigint): Promise<Row | undefined> {
    const raw = await this.one(db, scope, id);
    return raw ? this.read(raw) : undefined;
  }

  /** A row that is not soft-deleted (what other resources check before they refer to one), or undefined. */
  async getLive(db: Knex, scope: number, id: bigint): Promise<Row | undefined> {
    const { deletedAt } = this.declaration;
    if (!deletedAt) throw new Error(`${this.table} declares no deletedAt column`);
    const row = await this.get(db, scope, id);
    return row && row[deletedAt] === null ? row : undefined;
  }

  /**
   * The row as it stands now, in a change's transaction, locked until it commits (SELECT ...
   * FOR UPDATE; knex leaves it out on SQLite, which runs one transaction at a time). A plain
   * read in a MySQL transaction answers from the snapshot of its first read: a change that
   * waited for a concurrent one would see the row as it was before that one.
   */
  async getForChange(trx: Knex.Transaction, scope: number, id: bigint): Promise<Row | undefined> {
    const raw = await this.one(trx, scope, id)?.forUpdate();
    return raw ? this.read(raw) : undefined;
  }

  async list(db: Knex, scope: number, filter: ListFilter<Row> = {}): Promise<Row[]> {
    const q = this.query(db, scope);
    if (filter.where) q.andWhere(this.write(filter.where));
    for (const [column, text] of Object.entries(filter.contains ?? {}) as [string, string][]) {
      if (text) q.andWhereRaw(`LOWER(??) LIKE ? ESCAPE '!'`, [column, likePattern(text)]);
    }
    for (const key of this.declaration.order) {
      const lower = /^lower\((\w+)\)$/.exec(key);
      if (lower) q.orderByRaw("LOWER(??)", [lower[1]]);
      else q.orderBy(key);
    }
    return (await q).map((raw: Record<string, unknown>) => this.read(raw));
  }

  async insert(trx: Knex.Transaction, row: Omit<Row, "id">): Promise<Row> {
    const [id] = await trx(this.table).insert(this.write(row as Partial<Row>));
    return { ...row, id: Number(id) } as Row;
  }

  /** Changes a row read with getForChange; answers it as it stands after the change. */
  async update(trx: Knex.Transaction, existing: Row, changes: Partial<Row>): Promise<Row> {
    await trx(this.table).where({ [this.declaration.scope]: existing[this.declaration.scope], id: existing.id }).update(this.write(changes));
    return { ...existing, ...changes };
  }

  async delete(trx: Knex.Transaction, existing: Row): Promise<void> {
    await trx(this.table).where({ [this.declaration.scope]: existing[this.declaration.scope], id: existing.id }).delete();
  }

  /** Values as the engines take them: JSON columns as text. */
  private write(values: Partial<Row>): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(values)) {
      const kind = this.declaration.columns[name as keyof Row];
      out[name] = kind?.startsWith("json") && value !== null && value !== undefined ? JSON.stringify(value) : value;
    }
    return out;
  }
}
