#!/usr/bin/env node
/**
 * Rewrites the route index of docs/api.md from the route registry (app/.server/http/api-routes.ts):
 * one row per method and path. The prose around the index is left as it is.
 * tests/docs/api-reference.test.ts fails until this has been run after a route was added or removed.
 * Usage: node scripts/api-docs.mjs
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { indexBlock, renderRouteIndex, routesFromSource } from "./lib/api-reference.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const docPath = path.join(root, "docs/api.md");
const routes = routesFromSource(readFileSync(path.join(root, "app/.server/http/api-routes.ts"), "utf8"));
const doc = readFileSync(docPath, "utf8");
const block = indexBlock(doc);
if (block === null) {
  console.error("docs/api.md has no route index block (see scripts/lib/api-reference.mjs for its markers).");
  process.exit(1);
}
const next = doc.replace(block, renderRouteIndex(routes));
if (next === doc) console.log(`docs/api.md: route index already up to date (${routes.length} routes).`);
else {
  writeFileSync(docPath, next);
  console.log(`docs/api.md: route index rewritten (${routes.length} routes).`);
}
