/** Rows per statement in bulk reads and writes: well below the placeholder limits of both engines. */
export const ROWS_PER_STATEMENT = 500;

/** The items in slices of at most `size`, in order (one statement each). */
export function chunks<T>(items: T[], size = ROWS_PER_STATEMENT): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
