/**
 * Headings of the combined research summary, shared by the server (plain-text rendering) and the
 * combined-summary dialog.
 */

/** Display headings for the sections and their fields (SPEC §3 names in human words). */
export const COMBINED_HEADINGS = {
  executiveSummary: "Executive summary",
  quantitativeFindings: "Quantitative findings",
  pooledEffectSize: "Pooled effect size",
  statisticalHeterogeneity: "Statistical heterogeneity",
  sampleSizeTotal: "Total sample size",
  keyOutcomes: "Key outcomes",
  studyCharacteristics: "Study characteristics",
  designQuality: "Design and quality",
  populationSummary: "Populations",
  interventionDetails: "Interventions",
  followUpPeriods: "Follow-up periods",
  commonThemes: "Common themes",
  clinicalRecommendations: "Clinical recommendations",
  evidenceBasedGuidance: "Evidence-based guidance",
  implementationConsiderations: "Implementation considerations",
  patientSelection: "Patient selection",
  dosageAndTiming: "Dosage and timing",
  safetyProfile: "Safety profile",
  adverseEvents: "Adverse events",
  riskBenefitRatio: "Risk–benefit balance",
  contraindications: "Contraindications",
  conflictsAndHeterogeneity: "Conflicts and heterogeneity",
  gradeAssessment: "GRADE assessment",
  studyQuality: "Study quality",
  clinicalImplications: "Clinical implications",
  limitationsAndBiases: "Limitations and biases",
  futureResearchPriorities: "Future research priorities",
  strengthOfEvidence: "Strength of evidence",
} as const;
