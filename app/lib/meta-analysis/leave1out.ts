import { checkEffects, rma, type RmaOptions } from "./rma.ts";
import type { EffectSize, LeaveOneOutRow } from "./types.ts";

/**
 * Leave-one-out sensitivity analysis (metafor leave1out.rma.uni): the model (same measure, method,
 * test, level) refitted k times, each time without one study. `labels[i]` names study i (default
 * "Study i+1"); each row's `omitted` is that label. Values on the analysis scale. GENQ/GENQM user
 * weights (opts.control.weights, one per study) stay with their studies (metafor: weights[-i]). Needs k ≥ 3.
 */
export function leave1out(effects: EffectSize[], opts: RmaOptions, labels?: string[]): LeaveOneOutRow[] {
  checkEffects(effects, 3);
  return effects.map((_, i) => {
    const w = opts.control?.weights;
    const fit = rma(
      effects.filter((__, j) => j !== i),
      w ? { ...opts, control: { ...opts.control, weights: Array.from(w).filter((__, j) => j !== i) } } : opts,
    );
    return {
      omitted: labels?.[i] ?? `Study ${i + 1}`,
      estimate: fit.estimate,
      se: fit.se,
      pval: fit.pval,
      ci_lb: fit.ci_lb,
      ci_ub: fit.ci_ub,
      QE: fit.QE,
      QEp: fit.QEp,
      tau2: fit.tau2,
      I2: fit.I2,
      H2: fit.H2,
    };
  });
}
