/**
 * The browser suite's servers start from a saved copy of the migrated local state
 * (scripts/lib/migrated-state.mjs): applied once per set of migrations, copied after that, never
 * used when a migration changed.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { migrationsKey, provideMigratedState } from "../../scripts/lib/migrated-state.mjs";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "migrated-state-"));
  dirs.push(dir);
  return dir;
}

/** A migrations folder holding `files` (name → SQL). */
function migrations(files: Record<string, string>): string {
  const dir = tempDir();
  for (const [name, sql] of Object.entries(files)) writeFileSync(join(dir, name), sql);
  return dir;
}

/** An `applyMigrations` that writes a database file into `persistDir` and counts its calls. */
function fakeApply(persistDir: string, content: string) {
  const calls = { count: 0 };
  const apply = () => {
    calls.count++;
    mkdirSync(join(persistDir, "v3", "d1"), { recursive: true });
    writeFileSync(join(persistDir, "v3", "d1", "db.sqlite"), content);
  };
  return { calls, apply };
}

describe("migrationsKey", () => {
  it("changes when a migration's text changes, one is added or renamed, and ignores other files", () => {
    const base = { "0000_init.sql": "CREATE TABLE a (id);", "0001_b.sql": "CREATE TABLE b (id);" };
    const key = migrationsKey(migrations(base));
    expect(key).toMatch(/^[0-9a-f]{16}$/);
    expect(migrationsKey(migrations({ ...base, "notes.txt": "not a migration" }))).toBe(key);
    expect(migrationsKey(migrations({ ...base, "0001_b.sql": "CREATE TABLE b (id, x);" }))).not.toBe(key);
    expect(migrationsKey(migrations({ ...base, "0002_c.sql": "CREATE TABLE c (id);" }))).not.toBe(key);
    expect(
      migrationsKey(migrations({ "0000_init.sql": base["0000_init.sql"], "0001_renamed.sql": base["0001_b.sql"] })),
    ).not.toBe(key);
  });
});

describe("provideMigratedState", () => {
  it("applies the migrations once, saves the result, and copies it into the next fresh state", () => {
    const root = tempDir();
    const templatesDir = join(root, "templates");
    mkdirSync(templatesDir);
    const first = join(root, "state-0");
    const one = fakeApply(first, "migrated");
    expect(provideMigratedState({ templatesDir, key: "k1", persistDir: first, applyMigrations: one.apply })).toBe(
      "applied",
    );
    expect(one.calls.count).toBe(1);
    expect(readdirSync(templatesDir)).toEqual(["k1"]);

    const second = join(root, "state-1");
    const two = fakeApply(second, "applied again");
    expect(provideMigratedState({ templatesDir, key: "k1", persistDir: second, applyMigrations: two.apply })).toBe(
      "copied",
    );
    expect(two.calls.count).toBe(0);
    expect(readFileSync(join(second, "v3", "d1", "db.sqlite"), "utf8")).toBe("migrated");
    expect(existsSync(join(second, ".complete")), "the template's marker is not copied").toBe(false);
  });

  it("applies again for other migrations, and keeps only the newest template", () => {
    const root = tempDir();
    const templatesDir = join(root, "templates");
    mkdirSync(templatesDir);
    const old = fakeApply(join(root, "a"), "old schema");
    provideMigratedState({ templatesDir, key: "old", persistDir: join(root, "a"), applyMigrations: old.apply });
    const next = fakeApply(join(root, "b"), "new schema");
    expect(
      provideMigratedState({ templatesDir, key: "new", persistDir: join(root, "b"), applyMigrations: next.apply }),
    ).toBe("applied");
    expect(next.calls.count).toBe(1);
    expect(readdirSync(templatesDir)).toEqual(["new"]);
    expect(readFileSync(join(templatesDir, "new", "v3", "d1", "db.sqlite"), "utf8")).toBe("new schema");
  });

  it("never copies a template that was not saved whole (no completion marker)", () => {
    const root = tempDir();
    const templatesDir = join(root, "templates");
    mkdirSync(join(templatesDir, "k1", "v3"), { recursive: true });
    writeFileSync(join(templatesDir, "k1", "v3", "partial"), "half");
    const state = join(root, "state");
    const apply = fakeApply(state, "migrated");
    expect(provideMigratedState({ templatesDir, key: "k1", persistDir: state, applyMigrations: apply.apply })).toBe(
      "applied",
    );
    expect(apply.calls.count).toBe(1);
    expect(existsSync(join(state, "v3", "partial"))).toBe(false);
  });

  it("passes on a failure to apply and saves nothing", () => {
    const root = tempDir();
    const templatesDir = join(root, "templates");
    mkdirSync(templatesDir);
    const failing = () => {
      throw new Error("migration 0003 failed");
    };
    expect(() =>
      provideMigratedState({ templatesDir, key: "k1", persistDir: join(root, "s"), applyMigrations: failing }),
    ).toThrow("migration 0003 failed");
    expect(readdirSync(templatesDir)).toEqual([]);
  });
});
