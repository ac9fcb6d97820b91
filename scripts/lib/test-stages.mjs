/**
 * The stages of `npm test` (scripts/test.mjs), in order; the commands of one stage run at the same
 * time. Provisioning (which may install Chromium and R through apt-get on a fresh machine: mostly
 * download and unpacking) runs beside lint, format check, type check and build + deploy check, which
 * need neither; vitest needs the build (the Workers project loads build/server) and R (the metafor
 * differential tests); Playwright needs Chromium and runs last, alone, because Lighthouse measures
 * timings.
 * @type {string[][]}
 */
export const stages = [
  [
    "node scripts/provision.mjs",
    "eslint .",
    "prettier --check .",
    "tsc --noEmit",
    "npm run build && npm run check:deploy",
  ],
  ["vitest run"],
  ["playwright test"],
];
