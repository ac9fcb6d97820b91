import { describe, expect, it } from "vitest";
import { createDb } from "./client";

describe("createDb", () => {
  it("keeps one client per D1 binding object and makes another for another binding", () => {
    const binding = {} as D1Database;
    const other = {} as D1Database;
    const db = createDb(binding);
    expect(createDb(binding)).toBe(db);
    expect(createDb(other)).not.toBe(db);
    expect(db.$client).toBe(binding);
  });
});
