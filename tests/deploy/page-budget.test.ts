import { describe, expect, it } from "vitest";
import { gzipTotal, initialScriptUrls, manifestInitialScripts } from "../../scripts/lib/page-budget.mjs";

describe("initialScriptUrls", () => {
  it("takes script src, modulepreload href and the inline module imports, same-origin and once each", () => {
    const html = `<!DOCTYPE html><html><head>
      <link rel="stylesheet" href="/assets/tailwind-X.css"/>
      <link rel="modulepreload" href="/assets/entry.client-A.js"/>
      <link rel="modulepreload" href="/assets/shell-B.js"/>
      <link rel="preload" href="/assets/font.woff2"/>
      <script src="https://cdn.example.org/analytics.js"></script>
      <script nonce="n" src="/assets/legacy-C.js"></script>
      </head><body>
      <script nonce="n">window.__remixContext = {"url":"/assets/not-a-script.js"};</script>
      <script nonce="n" type="module" async="">import "/assets/manifest-D.js";
      import * as route0 from "/assets/root-E.js";
      import * as route1 from "/assets/shell-B.js";
      import("/assets/entry.client-A.js");</script></body></html>`;
    expect(initialScriptUrls(html, "http://127.0.0.1:8787")).toEqual([
      "/assets/entry.client-A.js",
      "/assets/shell-B.js",
      "/assets/legacy-C.js",
      "/assets/manifest-D.js",
      "/assets/root-E.js",
    ]);
  });
});

describe("manifestInitialScripts", () => {
  const manifest = {
    entry: { module: "/assets/entry.js", imports: ["/assets/shell.js"] },
    routes: {
      root: { module: "/assets/root.js", imports: ["/assets/shell.js"] },
      "routes/search": { module: "/assets/search.js", imports: ["/assets/shell.js", "/assets/params.js"] },
    },
  };

  it("lists the entry, then each route module and its imports, without repeats", () => {
    expect(manifestInitialScripts(manifest, ["root", "routes/search"])).toEqual([
      "/assets/entry.js",
      "/assets/shell.js",
      "/assets/root.js",
      "/assets/search.js",
      "/assets/params.js",
    ]);
  });

  it("throws on a route the manifest does not have", () => {
    expect(() => manifestInitialScripts(manifest, ["root", "routes/nope"])).toThrow(/routes\/nope/);
  });
});

describe("gzipTotal", () => {
  it("sums gzip sizes, smaller than raw for repetitive code, and names the largest first", () => {
    const files: Record<string, string> = { "/a.js": "export const a = 1;\n".repeat(500), "/b.js": "b" };
    const total = gzipTotal(Object.keys(files), (f: string) => files[f]);
    expect(total.files).toBe(2);
    expect(total.rawBytes).toBe(files["/a.js"].length + 1);
    expect(total.gzipBytes).toBeLessThan(total.rawBytes / 10);
    expect(total.largest[0].file).toBe("/a.js");
    expect(total.gzipBytes).toBe(total.largest.reduce((sum: number, f: { gzipBytes: number }) => sum + f.gzipBytes, 0));
  });
});
