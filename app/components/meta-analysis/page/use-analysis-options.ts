import { useState } from "react";
import { DEFAULT_OPTIONS, type AnalysisOptions } from "~/lib/meta-analysis/page-logic";

/**
 * The model choice of the /meta-analysis page (τ² estimator and test; REML with Hartung–Knapp by
 * default) and the Summary of Findings' assumed control risk per 1,000 the reviewer types ("" = the
 * pooled control-group risk; `assumedRiskValue` null then). `assumedRiskInvalid`: typed but not
 * strictly between 0 and 1,000.
 */
export function useAnalysisOptions() {
  const [options, setOptions] = useState<AnalysisOptions>(DEFAULT_OPTIONS);
  const [assumedRisk, setAssumedRisk] = useState("");
  const assumedRiskValue = assumedRisk.trim() === "" ? null : Number(assumedRisk);
  const assumedRiskInvalid = assumedRiskValue !== null && !(assumedRiskValue > 0 && assumedRiskValue < 1000);
  return { options, setOptions, assumedRisk, setAssumedRisk, assumedRiskValue, assumedRiskInvalid };
}
