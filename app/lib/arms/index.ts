export { ABSTAIN_BELOW, extractArms, proseValues, reportAbbreviations, type ProseValue } from "./extract.ts";
export { hintsOf } from "./notation.ts";
export { CONSISTENCY_CHECKS, consistencyChecks, type ConsistencyCheckName } from "./consistency.ts";
// The document model is the extraction core's (app/lib/extraction/core/document): re-exported for the arm path's callers.
export { columnLabel, parseReport, REPORT_FORMATS } from "../extraction/core/document/index.ts";
export type { ReportFormat, ReportTable, TrialReport } from "../extraction/core/document/index.ts";
export * from "./types.ts";

export { groundProposedValue } from "./verify.ts";
