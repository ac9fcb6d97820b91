// Shared by the benches: a product module bundled with esbuild and imported (the exact code the product runs),
// and the product's seeded generator their simulations and folds draw from.
import { build } from "esbuild";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/**
 * Bundles `entry` (an absolute path to a TypeScript module of app/) into one ESM file with esbuild and imports it.
 * `platform` "node" (default, target node20) or "neutral". Resolves the module's exports; the bundle's temporary
 * directory is removed either way. Rejects on a build error.
 */
export async function importBundled(entry, { platform = "node" } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "bench-bundle-"));
  const outfile = join(dir, "module.mjs");
  try {
    await build({
      entryPoints: [entry],
      bundle: true,
      format: "esm",
      platform,
      ...(platform === "node" ? { target: "node20" } : {}),
      outfile,
      logLevel: "error",
    });
    return await import(pathToFileURL(outfile).href);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** mulberry32 (app/lib/random.ts, the product's seeded generator): the same draws on every run. */
export const { mulberry32 } = await importBundled(
  join(dirname(fileURLToPath(import.meta.url)), "../../app/lib/random.ts"),
);
