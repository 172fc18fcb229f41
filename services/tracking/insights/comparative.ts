import type { Knex } from "../../../lib/db.js";
import type { ReportContext } from "../reports/context.js";
import type { Periods } from "./rules.js";
import { insightSums } from "./store.js";

/** The comparative report: the range's tracked seconds per period, every period of the range (zeros too). */
export async function comparativeSeconds(db: Knex, ctx: ReportContext, periods: Periods): Promise<number[]> {
  const seconds = Array<number>(periods.count).fill(0);
  for (const sum of await insightSums(db, ctx, { keys: [] })) seconds[periods.indexOf(sum.day)] += sum.seconds;
  return seconds;
}
