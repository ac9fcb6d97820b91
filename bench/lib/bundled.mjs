// Shared by the benches: a product module bundled with esbuild and imported (the exact code the product runs),
// and the seeded generator their simulations and folds draw from.
import { build } from "esbuild";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

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

/** mulberry32: a seeded uniform generator in [0, 1) (the same draws on every run). */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
