#!/usr/bin/env node
/**
 * Differential check against metafor (issue 29 contract).
 *
 *   node bench/meta-analysis-diff.mjs IN.json OUT.json
 *
 * IN:  {cases: [{id, yi: [...], vi: [...], method: 'REML'|'DL'|'PM'|'ML'|'HE'|'SJ'|'HS'|'EB', test: 'z'|'knha',
 *        subgroup?: [level per study], mods?: [[numeric moderators per study]],
 *        analyses: ['rma','subgroup','metareg','leave1out','influence','cumul']}]}
 *      method also takes metafor's HSk, PMM, GENQ, GENQM (every analysis; pooled with the weights a as metafor's
 *      rma(weights = a) does, refits keeping each study's weight), DL2, CA2, SJ2; an optional piType
 *      ('default'|'riley'|'t'|'simple', metafor pi.type) sets the prediction interval of 'rma'; an optional
 *      weights: [a per study] (> 0) sets the GENQ/GENQM weights (default 1/vi).
 * OUT: {results: [{id, rma?, subgroup?, metareg?, leave1out?, influence?, cumul?}]}, each value as metafor 3.8 gives
 *      it for rma(yi, vi, method, test) and the function named (arrays in study order, `inf` booleans).
 *
 * `mods` is read as one row per study: mods[i] = [x_i1, x_i2, …], the moderator values of study i
 * (metafor mods = cbind(x1, x2, …); an intercept is added). A flat array of numbers (one moderator,
 * one value per study) is accepted too. A case whose analysis cannot be computed gets
 * {error: message} in place of that analysis. Non-finite numbers are written as null.
 * The TypeScript engine (app/lib/meta-analysis, the one the product uses) is bundled with esbuild at start.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { importBundled } from "./lib/bundled.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** The meta-analysis engine (app/lib/meta-analysis) bundled with esbuild and imported: its exports. */
export function loadEngine() {
  return importBundled(join(root, "app/lib/meta-analysis/index.ts"));
}

/** mods as given (rows per study, or one flat column) → list of moderator columns. */
function modColumns(mods, k) {
  if (!Array.isArray(mods) || mods.length !== k) throw new Error(`mods must have one row per study (${k} rows).`);
  if (mods.every((v) => typeof v === "number")) return [mods];
  const p = mods[0].length;
  if (!mods.every((r) => Array.isArray(r) && r.length === p))
    throw new Error("Every row of mods must have the same number of moderators.");
  return Array.from({ length: p }, (_, j) => mods.map((r) => r[j]));
}

export function runCase(E, c) {
  const { id, yi, vi } = c;
  const opts = { method: c.method, test: c.test ?? "z" };
  if (Array.isArray(c.weights)) opts.control = { weights: c.weights };
  const analyses = c.analyses ?? ["rma"];
  const out = { id };
  const guard = (name, fn) => {
    try {
      out[name] = fn();
    } catch (e) {
      out[name] = { error: e instanceof Error ? e.message : String(e) };
    }
  };
  for (const a of analyses) {
    if (a === "rma")
      guard("rma", () => {
        const r = E.rma(
          yi.map((y, i) => ({ yi: y, vi: vi[i] })),
          { measure: "GEN", method: c.method, test: opts.test, piType: c.piType, control: opts.control },
        );
        return {
          b: r.estimate,
          se: r.se,
          ci_lb: r.ci_lb,
          ci_ub: r.ci_ub,
          pval: r.pval,
          tau2: r.tau2,
          tau2_ci_lb: r.tau2_ci?.[0] ?? null,
          tau2_ci_ub: r.tau2_ci?.[1] ?? null,
          I2: r.I2,
          I2_ci_lb: r.I2_ci?.[0] ?? null,
          I2_ci_ub: r.I2_ci?.[1] ?? null,
          H2: r.H2,
          QE: r.QE,
          QEp: r.QEp,
          pi_lb: r.pi_lb,
          pi_ub: r.pi_ub,
        };
      });
    else if (a === "subgroup")
      guard("subgroup", () => {
        if (!c.subgroup) throw new Error("No subgroup column given.");
        const s = E.subgroupAnalysis(yi, vi, c.subgroup.map(String), opts);
        return {
          groups: s.groups.map((g) => ({
            level: g.level,
            k: g.k,
            b: g.b,
            se: g.se,
            ci_lb: g.ci_lb,
            ci_ub: g.ci_ub,
            tau2: g.tau2,
            I2: g.I2,
          })),
          Q: s.Q,
          df: s.df,
          p: s.p,
          I2: s.I2,
          mixed: s.mixed ? { QM: s.mixed.QM, QMp: s.mixed.QMp, tau2: s.mixed.tau2 } : null,
        };
      });
    else if (a === "metareg")
      guard("metareg", () => {
        if (!c.mods) throw new Error("No moderators given.");
        const m = E.metaRegression(yi, vi, modColumns(c.mods, yi.length), opts);
        return {
          b: m.b,
          se: m.se,
          ci_lb: m.ci_lb,
          ci_ub: m.ci_ub,
          pval: m.pval,
          QM: m.QM,
          QMp: m.QMp,
          QE: m.QE,
          QEp: m.QEp,
          tau2: m.tau2,
          R2: m.R2,
        };
      });
    else if (a === "leave1out")
      guard("leave1out", () => {
        const l = E.leaveOneOut(yi, vi, opts);
        return { estimate: l.estimate, se: l.se, ci_lb: l.ci_lb, ci_ub: l.ci_ub, tau2: l.tau2, I2: l.I2, QE: l.QE };
      });
    else if (a === "influence")
      guard("influence", () => {
        const f = E.influence(yi, vi, null, opts);
        return {
          rstudent: f.rstudent,
          dffits: f.dffits,
          cook_d: f.cook_d,
          cov_r: f.cov_r,
          tau2_del: f.tau2_del,
          QE_del: f.QE_del,
          hat: f.hat,
          weight: f.weight,
          inf: f.inf,
        };
      });
    else if (a === "cumul")
      guard("cumul", () => {
        const f = E.cumulative(yi, vi, opts);
        return { estimate: f.estimate, se: f.se, ci_lb: f.ci_lb, ci_ub: f.ci_ub, tau2: f.tau2, I2: f.I2 };
      });
    else out[a] = { error: `Unknown analysis "${a}".` };
  }
  return out;
}

const finite = (_key, v) => (typeof v === "number" && !Number.isFinite(v) ? null : v);

async function main() {
  const [inFile, outFile] = process.argv.slice(2);
  if (!inFile || !outFile) {
    console.error("Usage: node bench/meta-analysis-diff.mjs IN.json OUT.json");
    process.exit(2);
  }
  const input = JSON.parse(readFileSync(inFile, "utf8"));
  if (!Array.isArray(input.cases)) {
    console.error("IN.json must hold {cases: [...]}");
    process.exit(2);
  }
  const E = await loadEngine();
  const t0 = performance.now();
  const results = input.cases.map((c) => runCase(E, c));
  const ms = performance.now() - t0;
  writeFileSync(outFile, JSON.stringify({ results }, finite));
  console.error(`${results.length} case(s) in ${ms.toFixed(1)} ms → ${outFile}`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
