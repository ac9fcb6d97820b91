import { drizzle } from "drizzle-orm/d1";
import * as schema from "../../../db/schema";

/** A drizzle client over the request's D1 binding (made per request, never at module scope). */
export function createDb(d1: D1Database) {
  return drizzle(d1, { schema });
}

export type Database = ReturnType<typeof createDb>;
export { schema };
