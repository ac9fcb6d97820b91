import type { VitePWAOptions } from "vite-plugin-pwa";
import tsconfigPaths from "vite-tsconfig-paths";

/**
 * Installable app (SPEC §2/§4/§9), passed to vite-plugin-pwa by vite.config.ts. The plugin runs in
 * Remix's client build only (it skips SSR builds) and writes into build/client, which Cloudflare
 * serves as static assets: /manifest.webmanifest and /sw.js, the service worker bundled from
 * app/sw/sw.ts with Workbox's precache manifest injected (strategy injectManifest). Registration is
 * ours (app/browser/pwa-client.ts, after the load event), so the plugin injects no script and adds no
 * bytes to the page bundles. The <link rel="manifest"> is in app/root.tsx.
 */
export const pwaOptions: Partial<VitePWAOptions> = {
  strategies: "injectManifest",
  srcDir: "app/sw",
  filename: "sw.ts",
  injectRegister: false,
  manifestFilename: "manifest.webmanifest",
  includeManifestIcons: true,
  manifest: {
    id: "/",
    name: "MetaMind — research search, AI summaries and meta-analysis",
    short_name: "MetaMind",
    description:
      "Search PubMed, Crossref, Europe PMC, CORE, Semantic Scholar and DOAJ at once, read AI summaries and build meta-analysis reports.",
    lang: "en",
    start_url: "/",
    scope: "/",
    display: "standalone",
    orientation: "any",
    background_color: "#ffffff",
    theme_color: "#1f58d6",
    categories: ["education", "medical", "productivity"],
    icons: [
      { src: "/icons/icon-192.png", sizes: "192x192", type: "image/png", purpose: "any" },
      { src: "/icons/icon-512.png", sizes: "512x512", type: "image/png", purpose: "any" },
      { src: "/icons/maskable-512.png", sizes: "512x512", type: "image/png", purpose: "maskable" },
    ],
    shortcuts: [
      { name: "Search studies", url: "/search", icons: [{ src: "/icons/icon-192.png", sizes: "192x192" }] },
      { name: "Upload PDFs", url: "/upload", icons: [{ src: "/icons/icon-192.png", sizes: "192x192" }] },
    ],
  },
  injectManifest: {
    // The app shell: hashed bundles and styles, icons, the offline page (manifest.webmanifest is added by the plugin).
    globPatterns: ["assets/**/*.{js,css}", "icons/*.png", "favicon.svg", "offline.html"],
    // Vite's hashed file names are their revision already.
    dontCacheBustURLsMatching: /^assets\//,
    maximumFileSizeToCacheInBytes: 1024 * 1024,
    // A classic script: every browser with service workers runs it (module workers are newer).
    rollupFormat: "iife",
    buildPlugins: { vite: [tsconfigPaths()] },
  },
  devOptions: { enabled: false },
};
