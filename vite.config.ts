import { vitePlugin as remix, cloudflareDevProxyVitePlugin as remixCloudflareDevProxy } from "@remix-run/dev";
import tailwindcss from "@tailwindcss/vite";
import path from "node:path";
import { defineConfig, type Rollup } from "vite";
import { VitePWA } from "vite-plugin-pwa";
import tsconfigPaths from "vite-tsconfig-paths";
import { pwaOptions } from "./pwa.config";
import remixConfig from "./remix.config.js";

declare module "@remix-run/cloudflare" {
  interface Future {
    v3_singleFetch: true;
  }
}

/** The modules every page loads: the client entry and the root route. */
const SHELL_ENTRIES = ["app/entry.client.tsx", "app/root.tsx"].map((file) => path.resolve(file));

/**
 * Rollup `manualChunks` for the browser build: every module statically imported (transitively) by
 * the client entry or the root route goes into one `shell` chunk. Each page loads all of them
 * anyway, so this adds no code to any page; it saves the per-file overhead of some 20 small
 * chunks (icons, ui, utils) in every page's initial JavaScript (issue 17 page budgets).
 */
function shellChunk(): (id: string, meta: Rollup.ManualChunkMeta) => string | undefined {
  let shell: Set<string> | undefined;
  return (id, { getModuleIds, getModuleInfo }) => {
    if (!shell) {
      const starts = [...getModuleIds()].filter((m) => SHELL_ENTRIES.includes(m.split("?")[0]));
      const seen = new Set<string>(starts);
      const stack = [...starts];
      while (stack.length) {
        for (const next of getModuleInfo(stack.pop()!)?.importedIds ?? []) {
          if (!seen.has(next)) {
            seen.add(next);
            stack.push(next);
          }
        }
      }
      for (const start of starts) seen.delete(start);
      shell = seen;
    }
    return shell.has(id) ? "shell" : undefined;
  };
}

export default defineConfig(({ isSsrBuild }) => ({
  plugins: [remixCloudflareDevProxy(), tailwindcss(), remix(remixConfig), tsconfigPaths(), VitePWA(pwaOptions)],
  ssr: {
    resolve: {
      conditions: ["workerd", "worker", "browser"],
    },
  },
  resolve: {
    mainFields: ["browser", "module", "main"],
  },
  build: {
    // The browser build is minified with terser: about 4 KB gzip less initial JavaScript per page
    // than esbuild's minifier (the page budgets of scripts/lib/page-budget.mjs); the Worker keeps
    // esbuild (its size limit is far away and terser would double the build time).
    minify: isSsrBuild ? true : "terser",
    // A dynamic import() fetches its chunk, whose static imports (Rollup hoists every transitive
    // one into the chunk's own import list) the browser then fetches in parallel: one more round
    // trip than Vite's helper, which appends a modulepreload link per dependency on the main
    // thread before the import — 16 links, 25–40 ms of a long task, when /search preloads its
    // results chunk during start-up (docs/performance.md, Lighthouse).
    modulePreload: { resolveDependencies: () => [] },
    rollupOptions: isSsrBuild ? {} : { output: { manualChunks: shellChunk() } },
  },
}));
