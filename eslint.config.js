import js from "@eslint/js";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";
import noServerInRouteUi from "./eslint/no-server-in-route-ui.js";

/** Import paths into server-only code (`~/.server/…`, `../.server/…`, `foo.server.ts`). */
const SERVER_ONLY = {
  regex: "(^|/)[^/]*\\.server(/|$)",
  message:
    "Client code never imports from .server, not even types: a type both sides need lives in app/lib (STYLE.md).",
};
/** Import paths into the product components. */
const COMPONENTS = {
  regex: "^(~|\\.{1,2}(/\\.\\.)*)/components(/|$)",
  message: "app/lib is below the UI: it never imports components (rendering lives in app/components or app/.server).",
};
/** Import paths into the browser-only code (stores, fetch clients, hooks: app/browser; ADR 0043). */
const BROWSER = {
  regex: "^(~|\\.{1,2}(/\\.\\.)*)/browser(/|$)",
  message:
    "app/browser is browser-only (localStorage stores, fetch clients, hooks): app/lib and server code never import it (ADR 0043).",
};
/** Browser globals a pure core never touches (it takes plain data and returns plain data; ADR 0043). */
const BROWSER_GLOBALS = [
  "window",
  "document",
  "navigator",
  "location",
  "localStorage",
  "sessionStorage",
  "indexedDB",
  "fetch",
  "XMLHttpRequest",
].map((name) => ({
  name,
  message: `app/lib holds pure code: browser I/O (${name}) belongs in app/browser (ADR 0043).`,
}));
/** React in the pure cores' folder (rule 3 of docs/architecture.md: pure cores do no rendering). */
const REACT = ["react", "react-dom", "react-dom/server", "@remix-run/react"].map((name) => ({
  name,
  message: "app/lib holds pure code: React belongs in app/components or app/browser (hooks; ADR 0043).",
}));
const TESTS = ["**/*.test.ts", "**/*.test.tsx"];
/** Radix Dialog, which only the one dialog primitive wraps (issue 32 item 3). */
const RADIX_DIALOG = {
  name: "@radix-ui/react-dialog",
  message: "Dialogs use the one primitive ~/components/ui/dialog (loaded on demand), never Radix Dialog directly.",
};

export default tseslint.config(
  { ignores: ["build/**", ".wrangler/**", "node_modules/**", "test-results/**", "playwright-report/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.browser, ...globals.node, ...globals.serviceworker } },
    plugins: { "react-hooks": reactHooks },
    rules: {
      "react-hooks/rules-of-hooks": "error",
      "react-hooks/exhaustive-deps": "warn",
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" },
      ],
      "@typescript-eslint/ban-ts-comment": ["error", { "ts-ignore": "allow-with-description" }],
      "no-console": ["error", { allow: ["warn", "error", "info"] }],
    },
  },
  {
    // Boundaries (issue 32 item 2; docs/decisions/0037, 0043): app/lib holds the pure code both sides
    // use, so it imports neither server-only code, components nor browser-only code (app/browser), and
    // uses no browser globals; server code never imports app/browser; components never import server-only code;
    // a route's browser code (its component, meta, links…) uses nothing from a .server module.
    files: ["app/lib/**"],
    ignores: TESTS,
    rules: {
      "no-restricted-imports": [
        "error",
        { paths: [...REACT, RADIX_DIALOG], patterns: [SERVER_ONLY, COMPONENTS, BROWSER] },
      ],
      "no-restricted-globals": ["error", ...BROWSER_GLOBALS],
    },
  },
  {
    files: ["app/.server/**", "workers/**"],
    ignores: TESTS,
    rules: { "no-restricted-imports": ["error", { patterns: [BROWSER], paths: [RADIX_DIALOG] }] },
  },
  {
    files: ["app/components/**", "app/entry.client.tsx", "app/sw/**", "app/types/**"],
    ignores: TESTS,
    rules: { "no-restricted-imports": ["error", { patterns: [SERVER_ONLY], paths: [RADIX_DIALOG] }] },
  },
  {
    // The one module that wraps Radix Dialog (app/components/ui/dialog.tsx).
    files: ["app/components/ui/dialog.tsx"],
    rules: { "no-restricted-imports": ["error", { patterns: [SERVER_ONLY] }] },
  },
  {
    files: ["app/routes/**", "app/root.tsx"],
    ignores: TESTS,
    rules: { "no-restricted-imports": ["error", { paths: [RADIX_DIALOG] }] },
  },
  {
    files: ["app/routes/**/*.tsx", "app/root.tsx"],
    ignores: TESTS,
    plugins: { metamind: { rules: { "no-server-in-route-ui": noServerInRouteUi } } },
    rules: { "metamind/no-server-in-route-ui": "error" },
  },
  {
    files: ["tests/**", "scripts/**", "bench/**", "**/*.test.ts", "**/*.test.tsx"],
    rules: { "no-console": "off" },
  },
);
