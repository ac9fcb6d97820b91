/**
 * docs/api.md cannot drift from the routes (issue 32): its generated index must list exactly the
 * method + path pairs of the route registry the API fuzz suite walks (app/.server/http/api-routes.ts),
 * and every `/api/…` path the page's prose names must be a registered route answering the methods
 * written before it. Fix a failure with `node scripts/api-docs.mjs` (the index) or by correcting the prose.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { API_ROUTES, matchApiRoute } from "~/.server/http/api-routes";
import {
  documentedRoutes,
  indexBlock,
  indexedRoutes,
  renderRouteIndex,
  routesFromSource,
} from "../../scripts/lib/api-reference.mjs";

const DOC = readFileSync(new URL("../../docs/api.md", import.meta.url), "utf8");
const REGISTRY_SOURCE = readFileSync(new URL("../../app/.server/http/api-routes.ts", import.meta.url), "utf8");

const registered = API_ROUTES.flatMap((r) => r.methods.map((m) => `${m} ${r.pattern}`)).sort();

describe("docs/api.md against the route registry", () => {
  it("the generator reads the registry's source as the registry itself does", () => {
    const parsed = routesFromSource(REGISTRY_SOURCE);
    expect(parsed.map((r) => ({ file: r.file, pattern: r.pattern, methods: r.methods }))).toEqual(
      API_ROUTES.map((r) => ({ file: r.file, pattern: r.pattern, methods: [...r.methods] })),
    );
  });

  it("lists every registered method and path in its index, and nothing else", () => {
    const listed = indexedRoutes(DOC);
    expect(listed, "docs/api.md has lost its route index block").not.toBeNull();
    const missing = registered.filter((r) => !listed!.includes(r));
    const unknown = listed!.filter((r) => !registered.includes(r));
    expect({ missing, unknown }, "run `node scripts/api-docs.mjs`").toEqual({ missing: [], unknown: [] });
    expect(new Set(listed).size).toBe(listed!.length);
  });

  it("keeps the index exactly as the generator writes it", () => {
    expect(indexBlock(DOC), "run `node scripts/api-docs.mjs`").toBe(renderRouteIndex(API_ROUTES));
  });

  it("names only routes that exist, with methods they answer", () => {
    const documented = documentedRoutes(DOC);
    expect(documented.length).toBeGreaterThan(100);
    const problems: string[] = [];
    for (const { path, methods, span } of documented) {
      const concrete = path.replace(/\{[^}/]*\}?|:\w+/g, "x");
      const route = matchApiRoute(concrete);
      if (!route) {
        problems.push(`no route for ${path} (in \`${span}\`)`);
        continue;
      }
      for (const m of methods) {
        if (!(route.methods as readonly string[]).includes(m))
          problems.push(`${route.pattern} does not answer ${m} (in \`${span}\`)`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("the prose describes every registered route family", () => {
    const named = new Set(
      documentedRoutes(DOC)
        .map(({ path }) => matchApiRoute(path.replace(/\{[^}/]*\}?|:\w+/g, "x"))?.pattern)
        .filter(Boolean),
    );
    const undescribed = API_ROUTES.map((r) => r.pattern).filter((p) => !named.has(p));
    expect(undescribed).toEqual([]);
  });
});

describe("the checker itself", () => {
  it("reads methods and paths from code spans and skips the index", () => {
    const md = [
      "`GET/POST/DELETE /api/reviews/{id}/records/{recordId}/fulltext` and `PUT\\|DELETE /api/reviews/{id}/grade/{outcomeId}`",
      "`GET /api/reviews/{id}/characteristics[?format=csv\\|json]`, `GET /api/search?q=` and plain /api/ignored",
      renderRouteIndex([{ file: "api.health.ts", pattern: "/api/health", methods: ["GET"] }]),
    ].join("\n");
    expect(documentedRoutes(md).map(({ path, methods }) => ({ path, methods }))).toEqual([
      { path: "/api/reviews/{id}/records/{recordId}/fulltext", methods: ["GET", "POST", "DELETE"] },
      { path: "/api/reviews/{id}/grade/{outcomeId}", methods: ["PUT", "DELETE"] },
      { path: "/api/reviews/{id}/characteristics", methods: ["GET"] },
      { path: "/api/search", methods: ["GET"] },
    ]);
    expect(indexedRoutes(md)).toEqual(["GET /api/health"]);
  });

  it("finds a documented route that does not exist", () => {
    const bad = documentedRoutes("`POST /api/no-such-thing` and `PATCH /api/health`");
    expect(matchApiRoute(bad[0]!.path)).toBeNull();
    expect(matchApiRoute(bad[1]!.path)?.methods).not.toContain("PATCH");
  });
});
