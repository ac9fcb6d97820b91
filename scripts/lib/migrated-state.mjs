/**
 * A fresh local state with every D1 migration applied, made once and copied after that.
 * `wrangler d1 migrations apply --local` runs each migration file on its own local D1 (20 s of
 * CPU for 25 files on this project's 2-core machine); the browser suite starts one server per
 * Playwright worker, each from a fresh state (scripts/start-offline.mjs with FRESH_STATE=1).
 * The first fresh start applies the migrations and keeps a copy of the result under
 * `.wrangler/migrated-state/<key>`, where the key is a hash of every migration file's name and
 * text; later fresh starts copy it. A changed, added or removed migration changes the key, so a
 * stale copy is never used (older copies are removed when a new one is saved).
 */
import { createHash } from "node:crypto";
import { cpSync, existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

const COMPLETE = ".complete";

/**
 * The key of a migrations folder: sha256 (hex, first 16 characters) over each `.sql` file's name
 * and bytes, in name order. Throws when the folder does not exist.
 * @param {string} migrationsDir e.g. `<root>/db/migrations`
 * @returns {string}
 */
export function migrationsKey(migrationsDir) {
  const hash = createHash("sha256");
  for (const name of readdirSync(migrationsDir)
    .filter((f) => f.endsWith(".sql"))
    .sort()) {
    hash.update(name);
    hash.update("\0");
    hash.update(readFileSync(path.join(migrationsDir, name)));
    hash.update("\0");
  }
  return hash.digest("hex").slice(0, 16);
}

/**
 * Fills `persistDir` (which must not exist yet) with migrated state: a copy of the saved template
 * when one for these migrations is complete; otherwise runs `applyMigrations()` (which must write
 * into `persistDir` and throw on failure) and saves a copy as the template. Two processes that both
 * miss the template both apply the migrations; each saves its copy under a name of its own and
 * renames it into place, so a reader never sees a half-written template.
 * @param {{ templatesDir: string, key: string, persistDir: string, applyMigrations: () => void }} options
 * @returns {"copied" | "applied"} what was done
 */
export function provideMigratedState({ templatesDir, key, persistDir, applyMigrations }) {
  const template = path.join(templatesDir, key);
  if (existsSync(path.join(template, COMPLETE))) {
    cpSync(template, persistDir, { recursive: true, filter: (src) => path.basename(src) !== COMPLETE });
    return "copied";
  }
  applyMigrations();
  const staging = `${template}.${process.pid}-${Date.now()}`;
  cpSync(persistDir, staging, { recursive: true });
  writeFileSync(path.join(staging, COMPLETE), `${new Date().toISOString()}\n`);
  try {
    renameSync(staging, template);
  } catch {
    // Another process saved the same template first: it is complete, keep it.
    rmSync(staging, { recursive: true, force: true });
  }
  for (const entry of readdirSync(templatesDir)) {
    if (entry !== key && !entry.startsWith(`${key}.`))
      rmSync(path.join(templatesDir, entry), { recursive: true, force: true });
  }
  return "applied";
}
