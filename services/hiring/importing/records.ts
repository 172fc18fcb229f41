import { badRequest } from "../../../lib/errors.js";

/**
 * Reading the hiring application's export-shaped records (imports). Every problem names
 * the record's position, e.g. `openings[3].created_at: expected a date-time`.
 */
export class RecordReader {
  constructor(
    private readonly value: Record<string, unknown>,
    readonly at: string,
  ) {}

  static of(value: unknown, at: string): RecordReader {
    if (typeof value !== "object" || value === null || Array.isArray(value)) throw badRequest(`${at}: expected an object`);
    return new RecordReader(value as Record<string, unknown>, at);
  }

  fail(field: string, expected: string): never {
    throw badRequest(`${this.at}.${field}: expected ${expected}`);
  }

  id(field = "id"): string {
    return this.idAt(this.value[field], field);
  }

  /** Ids are strings; integer ids are accepted and read as strings. */
  private idAt(v: unknown, field: string): string {
    if (typeof v === "number" && Number.isInteger(v)) return String(v);
    if (typeof v !== "string" || v.trim() === "" || v.length > 64) this.fail(field, "a non-empty string id of at most 64 characters");
    return v;
  }

  idList(field: string): string[] {
    const v = this.value[field];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) this.fail(field, "an array of ids");
    return v.map((item, i) => this.idAt(item, `${field}[${i}]`));
  }

  optionalId(field: string): string | null {
    const v = this.value[field];
    return v === undefined || v === null || v === "" ? null : this.id(field);
  }

  /** A string of at most `max` characters (columns have limits; an over-long value is bad input, not a 500). */
  string(field: string, fallback?: string, max = 2048): string {
    const v = this.value[field];
    if ((v === undefined || v === null) && fallback !== undefined) return fallback;
    if (typeof v !== "string") this.fail(field, "a string");
    if (v.length > max) this.fail(field, `a string of at most ${max} characters`);
    return v;
  }

  number(field: string, fallback?: number): number {
    const v = this.value[field];
    if ((v === undefined || v === null) && fallback !== undefined) return fallback;
    if (typeof v !== "number" || !Number.isFinite(v)) this.fail(field, "a number");
    return v;
  }

  boolean(field: string, fallback: boolean): boolean {
    const v = this.value[field];
    if (v === undefined || v === null) return fallback;
    if (typeof v !== "boolean") this.fail(field, "a boolean");
    return v;
  }

  date(field: string): Date {
    const d = this.optionalDate(field);
    if (!d) this.fail(field, "a date-time");
    return d;
  }

  /** Export timestamps have no zone; they are UTC. */
  optionalDate(field: string): Date | null {
    const v = this.value[field];
    if (v === undefined || v === null) return null;
    if (typeof v !== "string" || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/.test(v)) this.fail(field, "a date-time");
    const d = new Date(/(Z|[+-]\d{2}:?\d{2})$/.test(v) ? v : `${v}Z`);
    // MySQL DATETIME starts at year 1000; nothing in a hiring export predates 1970.
    if (Number.isNaN(d.getTime()) || d.getUTCFullYear() < 1970) this.fail(field, "a date-time");
    return d;
  }

  list(field: string): RecordReader[] {
    const v = this.value[field];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) this.fail(field, "an array");
    return v.map((item, i) => RecordReader.of(item, `${this.at}.${field}[${i}]`));
  }

  raw(field: string): unknown {
    return this.value[field];
  }
}

/** The top-level lists of an import file. */
export function importLists(data: Record<string, unknown>, names: string[]): Record<string, RecordReader[]> {
  const out: Record<string, RecordReader[]> = {};
  for (const name of names) {
    const v = data[name];
    if (v === undefined || v === null) {
      out[name] = [];
      continue;
    }
    if (!Array.isArray(v)) throw badRequest(`${name}: expected an array`);
    out[name] = v.map((item, i) => RecordReader.of(item, `${name}[${i}]`));
  }
  return out;
}
