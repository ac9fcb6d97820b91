// Page budgets (issue 17): the initial JavaScript of a page, i.e. every script a browser fetches
// before it can hydrate, counted in gzip bytes. Shared by scripts/check-deploy.mjs (from the build's
// Remix manifest, no server, no browser) and bench/lighthouse.mjs (from the server-rendered HTML).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";

/** Budget for the initial JavaScript of a page: 120 KB (120,000 bytes) after gzip. */
export const INITIAL_JS_BUDGET_BYTES = 120_000;

/**
 * The pages under budget: the URL the bench loads, the Remix route ids it renders (root first, as
 * Remix matches them) and `ceilingBytes`, the most initial JavaScript CI accepts for the page
 * (check:deploy, tests/e2e/lighthouse.spec.ts): the 120 KB target where the page meets it, else a
 * ratchet a little above today's size so that no change makes it heavier (bench:lighthouse fails
 * on the target itself). The bench fills in the query and the shared answer's id.
 */
export const BUDGET_PAGES = [
  { name: "/", routes: ["root", "routes/_index"], ceilingBytes: INITIAL_JS_BUDGET_BYTES },
  { name: "/search", routes: ["root", "routes/search"], ceilingBytes: INITIAL_JS_BUDGET_BYTES },
  { name: "/answer/{id}", routes: ["root", "routes/answer.$id"], ceilingBytes: INITIAL_JS_BUDGET_BYTES },
];

/**
 * Same-origin script URLs referenced by server-rendered HTML: `<script src>`, `<link
 * rel="modulepreload" href>` and the static `import "…"` / `import(…)` statements of inline module
 * scripts (Remix imports the entry and route modules there). Returns unique paths in document
 * order (e.g. "/assets/entry.client-X.js"); absolute URLs on other origins are dropped.
 */
export function initialScriptUrls(html, origin = "http://localhost") {
  const found = [];
  const tag = /<(script|link)\b([^>]*)>/gi;
  for (const [, name, attrs] of html.matchAll(tag)) {
    const attr = (key) => new RegExp(`\\b${key}\\s*=\\s*["']([^"']+)["']`, "i").exec(attrs)?.[1];
    if (name.toLowerCase() === "script" && attr("src")) found.push(attr("src"));
    if (name.toLowerCase() === "link" && /^modulepreload$/i.test(attr("rel") ?? "") && attr("href"))
      found.push(attr("href"));
  }
  const inline = /<script\b[^>]*type=["']module["'][^>]*>([\s\S]*?)<\/script>/gi;
  for (const [, body] of html.matchAll(inline)) {
    for (const [, spec] of body.matchAll(/\bimport\s*(?:[^"'()]*?\bfrom\s*)?\(?\s*["']([^"']+\.m?js)["']/g))
      found.push(spec);
  }
  const paths = [];
  for (const ref of found) {
    const url = new URL(ref, origin);
    if (url.origin !== new URL(origin).origin) continue;
    if (!paths.includes(url.pathname)) paths.push(url.pathname);
  }
  return paths;
}

/**
 * Reads the Remix browser manifest of a client build (`{buildClientDir}/assets/manifest-*.js`,
 * `window.__remixManifest={entry,routes}`). Throws when the build has none.
 */
export function readRemixManifest(buildClientDir) {
  const assets = path.join(buildClientDir, "assets");
  const file = readdirSync(assets).find((name) => /^manifest-[\w-]+\.js$/.test(name));
  if (!file) throw new Error(`no Remix manifest in ${assets}: run \`npm run build\``);
  const source = readFileSync(path.join(assets, file), "utf8");
  return JSON.parse(source.slice(source.indexOf("{"), source.lastIndexOf("}") + 1));
}

/**
 * The scripts Remix server-renders for a page whose matched routes are `routeIds`: the entry and
 * its imports, then each route module and its static imports (as `<link rel="modulepreload">`);
 * with lazy route discovery the manifest itself is inlined, so it is no file. Throws on an unknown
 * route id.
 */
export function manifestInitialScripts(manifest, routeIds) {
  const files = new Set([manifest.entry.module, ...manifest.entry.imports]);
  for (const id of routeIds) {
    const route = manifest.routes[id];
    if (!route) throw new Error(`route ${id} is not in the Remix manifest`);
    files.add(route.module);
    for (const file of route.imports ?? []) files.add(file);
  }
  return [...files];
}

/**
 * Sums gzip sizes (zlib default level, as a CDN's on-the-fly gzip) of `files`, each read by
 * `read(file)` → Buffer|string. Returns `{ files, gzipBytes, rawBytes, largest }`, `largest` the five
 * biggest as `{ file, gzipBytes }`.
 */
export function gzipTotal(files, read) {
  const sizes = files.map((file) => {
    const bytes = Buffer.from(read(file));
    return { file, gzipBytes: gzipSync(bytes).length, rawBytes: bytes.length };
  });
  return {
    files: sizes.length,
    gzipBytes: sizes.reduce((sum, s) => sum + s.gzipBytes, 0),
    rawBytes: sizes.reduce((sum, s) => sum + s.rawBytes, 0),
    largest: [...sizes]
      .sort((a, b) => b.gzipBytes - a.gzipBytes)
      .slice(0, 5)
      .map(({ file, gzipBytes }) => ({ file, gzipBytes })),
  };
}

/** "123.4 KB" for a byte count (1 KB = 1000 bytes, the unit of the budget). */
export const kb = (bytes) => `${(bytes / 1000).toFixed(1)} KB`;

/**
 * The page-budget check of a client build directory (`build/client`): for each page of `pages`
 * logs its initial JavaScript (gzip) and returns one problem line per page over its
 * `ceilingBytes` (naming the five largest files), or one line when the build or its manifest is
 * missing. An empty array means every page is within budget. `log` receives the report lines.
 */
export function pageBudgetProblems(buildClientDir, { pages = BUDGET_PAGES, log = console.log } = {}) {
  if (!existsSync(buildClientDir))
    return [`${buildClientDir} is missing: run \`npm run build\` before the deploy check`];
  let manifest;
  try {
    manifest = readRemixManifest(buildClientDir);
  } catch (error) {
    return [error instanceof Error ? error.message : String(error)];
  }
  return pages.flatMap((page) => {
    const total = gzipTotal(manifestInitialScripts(manifest, page.routes), (file) =>
      readFileSync(path.join(buildClientDir, file)),
    );
    const over = total.gzipBytes > INITIAL_JS_BUDGET_BYTES ? `, over the ${kb(INITIAL_JS_BUDGET_BYTES)} target` : "";
    log(
      `initial JS ${page.name}: ${kb(total.gzipBytes)} gzip in ${total.files} files (CI ceiling ${kb(page.ceilingBytes)}${over})`,
    );
    if (total.gzipBytes <= page.ceilingBytes) return [];
    const largest = total.largest.map((f) => `${f.file} ${kb(f.gzipBytes)}`).join(", ");
    return [
      `the initial JavaScript of ${page.name} is ${kb(total.gzipBytes)} gzip, over its ${kb(page.ceilingBytes)} ceiling (largest: ${largest})`,
    ];
  });
}
