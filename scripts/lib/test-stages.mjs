/**
 * The stages of `npm test` (scripts/test.mjs), in order; the commands of one stage run at the same
 * time. Provisioning comes first (it may install Chromium and R); lint, format check, type check and
 * build + deploy check share a stage (none reads another's output); vitest needs the build (the
 * Workers project loads build/server); Playwright runs last, alone, because Lighthouse measures timings.
 * @type {string[][]}
 */
export const stages = [
  ["node scripts/provision.mjs"],
  ["eslint .", "prettier --check .", "tsc --noEmit", "npm run build && npm run check:deploy"],
  ["vitest run"],
  ["playwright test"],
];
