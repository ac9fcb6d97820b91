#!/usr/bin/env node
/**
 * First step of `npm test` (issue 27): finds or provisions what the tests need outside node_modules
 * — a Chromium for Playwright (CHROMIUM_PATH, Debian's /usr/bin/chromium, Playwright's own browser;
 * else Debian's `chromium` via apt-get when running as root, else Playwright's download) and R's
 * metafor (Rscript + library(metafor); Debian's `r-cran-metafor` via apt-get as root). When
 * something is missing and cannot be installed here it stops at once (exit 1) with one line saying
 * what to install. Quick and idempotent when everything is present (file checks and one Rscript).
 * The Playwright config finds the same Chromium (scripts/lib/provision.mjs findChromium).
 * Usage: node scripts/provision.mjs [--check]   (--check: report only, install nothing)
 */
import { spawnSync } from "node:child_process";
import { planProvision, findChromium, missingLine, provision, systemProbes } from "./lib/provision.mjs";

const probes = systemProbes(process.env);

if (process.argv.includes("--check")) {
  const state = {
    chromium: findChromium(probes),
    metafor: probes.hasMetafor(),
    root: probes.isRoot(),
    apt: probes.hasApt(),
  };
  const plan = planProvision(state);
  console.log(
    `provision --check: Chromium ${state.chromium.path ?? "missing"}; R metafor ${state.metafor ? "ok" : "missing"}`,
  );
  if (plan.apt.length) console.log(`would install (apt-get): ${plan.apt.join(", ")}`);
  if (plan.playwrightDownload) console.log("would download Playwright's chromium");
  if (plan.missing.length) console.error(missingLine(plan.missing));
  process.exit(plan.missing.length ? 1 : 0);
}

const result = provision({
  probes,
  run: (command, args, env) => spawnSync(command, args, { env, stdio: "inherit" }),
  log: (line) => console.log(line),
});
if (!result.ok) {
  console.error(result.line);
  process.exit(1);
}
console.log(`provision: Chromium ${result.chromium} (${result.via}); R metafor ok`);
