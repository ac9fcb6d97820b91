import { describe, expect, it } from "vitest";
import { ACTIVITY_RESOLUTION_MS, noteActivity } from "./activity";

/** A drizzle-shaped db that counts the activity upserts it is asked to run. */
function countingDb(fail = false) {
  const db = {
    upserts: 0,
    insert: () => ({
      values: () => ({
        onConflictDoUpdate: async () => {
          db.upserts++;
          if (fail) throw new Error("D1 down");
        },
      }),
    }),
  };
  return db;
}

describe("noteActivity", () => {
  it("upserts a user's activity at most once per resolution per isolate", async () => {
    const db = countingDb();
    const userId = crypto.randomUUID();
    const t0 = Date.now();
    await noteActivity({ db } as never, userId, t0);
    await noteActivity({ db } as never, userId, t0 + 60_000);
    expect(db.upserts).toBe(1);
    await noteActivity({ db } as never, userId, t0 + ACTIVITY_RESOLUTION_MS);
    expect(db.upserts).toBe(2);
    await noteActivity({ db } as never, crypto.randomUUID(), t0);
    expect(db.upserts).toBe(3);
  });

  it("a failed upsert is tried again on the next request", async () => {
    const userId = crypto.randomUUID();
    await expect(noteActivity({ db: countingDb(true) } as never, userId)).rejects.toThrow("D1 down");
    const db = countingDb();
    await noteActivity({ db } as never, userId);
    expect(db.upserts).toBe(1);
  });
});
