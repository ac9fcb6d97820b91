export {
  ABSTAIN_BELOW,
  CORRECTIONS_ON,
  type CorrectionName,
  DEFINITIONAL_CORRECTIONS,
  DEFINITIONAL_GATES,
  HARD_GATES,
  HARD_GATES_ON,
  type HardGateName,
  RECALL_RULES,
  RECALL_RULES_ON,
  extractArms,
  diagnoseNoReading,
  type NoReadingDiagnosis,
  proseValues,
  READING_CHECKS,
  reportAbbreviations,
  sentenceStatesSe,
  reportNotation,
  declaredNotation,
  type DeclaredNotation,
  type ProseValue,
  type ReadingCheckName,
} from "./extract.ts";
export { hintsOf } from "./notation.ts";
export { CONSISTENCY_CHECKS, consistencyChecks, type ConsistencyCheckName } from "./consistency.ts";
export { PROVENANCE_CHECKS, type ProvenanceCheckName } from "./provenance.ts";
// The document model is the extraction core's (app/lib/extraction/core/document): re-exported for the arm path's callers.
export { columnLabel, parseReport, REPORT_FORMATS } from "../extraction/core/document/index.ts";
export type { ReportFormat, ReportTable, TrialReport } from "../extraction/core/document/index.ts";
export * from "./types.ts";

export { groundProposedValue } from "./verify.ts";
export {
  CALIBRATION_FEATURES,
  calibratedProbability,
  featureVector,
  roundedConfidence,
  type CalibrationModel,
  type ValueFeatures,
} from "./calibration.ts";
export { CALIBRATION_MODEL } from "./calibration-model.ts";
