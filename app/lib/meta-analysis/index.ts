/**
 * Public API of the meta-analysis statistics engine (pure TypeScript, no I/O; server and browser).
 * Numbers follow R's metafor (Viechtbauer 2010); see each function for its formula source.
 */
export * from "./types.ts";
export { MetaInputError } from "./errors.ts";
export { escalc, escalcPeto, hedgesJ, isRatioMeasure, Z_975 } from "./escalc.ts";
export { rma, heterogeneity, tau2ConfidenceInterval, tau2ProfileLikelihoodCI, type RmaOptions } from "./rma.ts";
export { estimateTau2, type Tau2Method, type Tau2Control, type Tau2Estimate } from "./tau2.ts";
export { pnorm, qnorm, pt, qt, pchisq, qchisq, pf } from "./distributions.ts";
export { rmaReg, checkEffects, type MetaRegression, type RegCoefficient } from "./rma.ts";
export { rmaMH, rmaPeto, type CountsTable, type MhOptions } from "./mh.ts";
export {
  regtest,
  ranktest,
  trimfill,
  type TrimFillOptions,
  type RegtestOptions,
  type RegtestPredictor,
} from "./bias.ts";
export { leave1out } from "./leave1out.ts";
export { moderatorColumns, type Moderators } from "./linear.ts";
export {
  fitModel,
  metaRegression,
  permutest,
  dummyColumns,
  type ModelFit,
  type ModelOptions,
  type MetaRegressionResult,
  type MetaRegressionOptions,
  type PermutationResult,
} from "./metareg.ts";
export { subgroupAnalysis, type SubgroupResult, type SubgroupRow } from "./subgroup.ts";
export { influence, leaveOneOut, cumulative, type InfluenceResult, type LeaveOneOutResult } from "./influence.ts";
