/**
 * A D1 database that records the columns every UPDATE of one table sets, in order, while passing
 * every statement to the real database. Workers tests use it to watch a queue job write its
 * stages (e.g. `{stage: "extracting", progress: 27}`) as the work happens.
 */

/** The `"column" = ?` assignments of an UPDATE's SET clause, in order. */
function setColumns(query: string): string[] {
  const set = /\bset\s+(.*?)\s+where\b/is.exec(query)?.[1] ?? "";
  return [...set.matchAll(/"(\w+)"\s*=\s*\?/g)].map((m) => m[1]!);
}

/**
 * Wraps `db` so that every `UPDATE "<table>"` statement pushes an object of the columns it sets
 * (SQL column names → bound values) onto `log`.
 */
export function recordingD1(db: D1Database, table: string, log: Record<string, unknown>[]): D1Database {
  const prefix = new RegExp(`^\\s*update\\s+"${table}"`, "i");
  return new Proxy(db, {
    get(target, prop) {
      if (prop === "prepare") {
        return (query: string) => {
          const statement = target.prepare(query);
          if (!prefix.test(query)) return statement;
          const columns = setColumns(query);
          return new Proxy(statement, {
            get(s, p) {
              if (p === "bind") {
                return (...values: unknown[]) => {
                  log.push(Object.fromEntries(columns.map((c, i) => [c, values[i]])));
                  return s.bind(...values);
                };
              }
              const value = Reflect.get(s, p) as unknown;
              return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(s) : value;
            },
          });
        };
      }
      const value = Reflect.get(target, prop) as unknown;
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
