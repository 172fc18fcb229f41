import { dbDate, selectArrays, type Knex } from "./db.js";
import { idBinding, jsonIds, readId, readIdOrNull, rowId } from "./ids.js";

/** How a column is read back from either engine; `?` allows NULL. */
export type ColumnKind = "id" | "integer" | "number" | "string" | "boolean" | "date" | "json";
export type Column = ColumnKind | `${ColumnKind}?`;

/** A resource's table: its name, the column that scopes it (a workspace, an organization), its columns. */
export interface TableDeclaration<Row extends { id: bigint }> {
  table: string;
  scope: keyof Row & string;
  columns: { [K in keyof Row]-?: Column };
  /** The order of `list`: columns, each ascending; `lower(<column>)` sorts ignoring case. */
  order: string[];
  /** How a JSON column's parsed value becomes the row's (the ids in it into the declared form). */
  json?: { [K in keyof Row]?: (parsed: unknown) => Row[K] };
  /** The column a soft-deleted row has set (its deletion time), for `getLive`. */
  deletedAt?: keyof Row & string;
}

/** What `list` can narrow by: equal values, case-insensitive substrings. */
export interface ListFilter<Row> {
  where?: Partial<Row>;
  contains?: Partial<Record<keyof Row & string, string>>;
}

/** Reads one stored value of a column kind (NULL as null, whatever the kind). */
type ColumnReader = (value: unknown) => unknown;

const orNull = (read: (value: unknown) => unknown): ColumnReader => (value) => (value === null || value === undefined ? null : read(value));

/** Each engine returns some kinds its own way: how a value of each kind is read back. */
const COLUMN_READERS: Record<ColumnKind, ColumnReader> = {
  id: readIdOrNull,
  integer: orNull(Number),
  number: orNull(Number),
  string: orNull(String),
  boolean: orNull(Boolean),
  date: orNull((value) => dbDate(value as Date)),
  json: orNull((value) => (typeof value === "string" ? JSON.parse(value) : value)),
};

const readerOf = (kind: Column): ColumnReader => COLUMN_READERS[(kind.endsWith("?") ? kind.slice(0, -1) : kind) as ColumnKind];

/** A stored value as a row holds it (each engine returns some kinds its own way; an id as the contract's bigint). */
export function readColumn(kind: Column, value: unknown): unknown {
  return readerOf(kind)(value);
}

/** Escapes LIKE's wildcards so a user's `%` or `_` is a literal. */
export function likePattern(text: string): string {
  return `%${text.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`)}%`;
}

/**
 * ScopedTable gives a resource its typed rows and the queries every resource needs, each
 * limited to one scope (a workspace): a row of another workspace is never read, changed or
 * deleted through it. Rows hold their ids as the contract's bigint, and ids come as the request's
 * int64: one that no row can have (see `rowId`) finds nothing, never a neighbouring row. Special
 * queries start from `query()`.
 */
export class ScopedTable<Row extends { id: bigint }> {
  /** The columns' names and readers, worked out once: lists read thousands of rows. */
  private readonly names: string[];
  private readonly readers: ColumnReader[];

  constructor(readonly declaration: TableDeclaration<Row>) {
    const columns = Object.entries(declaration.columns) as [string, Column][];
    this.names = columns.map(([name]) => name);
    this.readers = columns.map(([name, kind]) => {
      const read = readerOf(kind);
      const fromJson = declaration.json?.[name as keyof Row];
      return fromJson ? (value: unknown) => (value === null || value === undefined ? null : fromJson(read(value))) : read;
    });
  }

  get table(): string {
    return this.declaration.table;
  }

  /** A row as stored, typed. */
  read(raw: Record<string, unknown>): Row {
    const { names, readers } = this;
    const row: Record<string, unknown> = {};
    for (let i = 0; i < names.length; i++) row[names[i]] = readers[i](raw[names[i]]);
    return row as Row;
  }

  /**
   * The rows a query of this table selects, every declared column read, as `read` reads them:
   * for long lists (a month of time entries), read as arrays (see selectArrays).
   */
  async readAll(db: Knex, query: Knex.QueryBuilder): Promise<Row[]> {
    const { names, readers } = this;
    const values = await selectArrays(db, query.clearSelect().select(names));
    return values.map((v) => {
      const row: Record<string, unknown> = {};
      for (let i = 0; i < names.length; i++) row[names[i]] = readers[i](v[i]);
      return row as Row;
    });
  }

  /** The scope's rows, for a special query. */
  query(db: Knex, scope: bigint): Knex.QueryBuilder {
    return db(this.table).where(this.declaration.scope, idBinding(scope));
  }

  private one(db: Knex, scope: bigint, id: bigint): Knex.QueryBuilder | undefined {
    const n = rowId(id);
    return n === undefined ? undefined : this.query(db, scope).andWhere("id", idBinding(n)).first();
  }

  async get(db: Knex, scope: bigint, id: bigint): Promise<Row | undefined> {
    const raw = await this.one(db, scope, id);
    return raw ? this.read(raw) : undefined;
  }

  /** A row that is not soft-deleted (what other resources check before they refer to one), or undefined. */
  async getLive(db: Knex, scope: bigint, id: bigint): Promise<Row | undefined> {
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
  async getForChange(trx: Knex.Transaction, scope: bigint, id: bigint): Promise<Row | undefined> {
    const raw = await this.one(trx, scope, id)?.forUpdate();
    return raw ? this.read(raw) : undefined;
  }

  async list(db: Knex, scope: bigint, filter: ListFilter<Row> = {}): Promise<Row[]> {
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
    return { ...row, id: readId(id) } as Row;
  }

  /** Changes a row read with getForChange; answers it as it stands after the change. */
  async update(trx: Knex.Transaction, existing: Row, changes: Partial<Row>): Promise<Row> {
    await trx(this.table).where({ [this.declaration.scope]: existing[this.declaration.scope], id: existing.id }).update(this.write(changes));
    return { ...existing, ...changes };
  }

  async delete(trx: Knex.Transaction, existing: Row): Promise<void> {
    await trx(this.table).where({ [this.declaration.scope]: existing[this.declaration.scope], id: existing.id }).delete();
  }

  /** Values as the engines take them: JSON columns as text, the ids in them as JSON numbers (as they were stored before rows held bigints). */
  private write(values: Partial<Row>): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(values)) {
      const kind = this.declaration.columns[name as keyof Row];
      out[name] = kind?.startsWith("json") && value !== null && value !== undefined ? JSON.stringify(value, jsonIds) : value;
    }
    return out;
  }
}
