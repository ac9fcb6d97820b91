/**
 * Shapes of the review's risk-of-bias routes (/api/reviews/{id}/risk-of-bias…), shared by the
 * server and the review page.
 */
import type { Rob2Answer, Rob2DomainId, Rob2Variant, RobJudgement } from "./rob2";
import type { ApiRobDualStudy } from "./dual";
import type { Rob2Suggestion } from "./suggestions";

/** Domain judgements and the overall one. */
export type RobJudgementSet = Record<Rob2DomainId, RobJudgement> & { overall: RobJudgement };

/** One stored RoB 2 assessment of an included study × outcome. */
export interface ApiRobAssessment {
  id: number;
  recordId: number;
  outcomeId: number;
  variant: Rob2Variant;
  answers: Record<string, Rob2Answer>;
  /** Per question: the reviewer's support text and quotes from the study. */
  support: Record<string, { text: string; quotes: string[] }>;
  /** The algorithm's proposal. */
  proposed: RobJudgementSet;
  /** The reviewer's changes, each with its justification. */
  overrides: Partial<Record<Rob2DomainId | "overall", { judgement: RobJudgement; justification: string }>>;
  /** The judgements that count: overrides where given, else the proposal. */
  final: RobJudgementSet;
  assessedBy: string;
  createdAt: string;
  updatedAt: string;
}

/** A study the review can assess: a record included at full text. */
export interface ApiRobStudy {
  recordId: number;
  /** robvis "Study" label: first author's surname and year, else the title. */
  label: string;
  title: string;
  year: number | null;
}

/** GET /api/reviews/{id}/risk-of-bias. */
export interface ApiRobOverview {
  outcomes: { id: number; name: string }[];
  studies: ApiRobStudy[];
  assessments: ApiRobAssessment[];
  /** RoB assessment mode (issue 30): dual = two independent assessments and a consensus (then `assessments` are the consensus ones). */
  mode?: "single" | "dual";
  /** Dual mode: each study × outcome with a submission, blind until both are in; [] in single mode. */
  dual?: ApiRobDualStudy[];
}

/** GET /api/reviews/{id}/risk-of-bias/{recordId}/suggestions. */
export interface ApiRobSuggestions {
  recordId: number;
  variant: Rob2Variant;
  source: { kind: string; note: string | null };
  /** The plain text the offsets point into. */
  text: string;
  suggestions: Record<string, Rob2Suggestion[]>;
}

/** GRADE domains a reviewer may re-rate. */
export type GradeDomainName = "risk of bias" | "inconsistency" | "indirectness" | "imprecision" | "publication bias";

/** The reviewer's GRADE rating changes and rated-up levels for one outcome. */
export interface ApiGradeRating {
  overrides: Partial<Record<GradeDomainName, { downgrade: 0 | -1 | -2; justification: string }>>;
  rateUp: {
    reason: "large effect" | "dose response" | "plausible confounding";
    levels: 1 | 2;
    justification: string;
  }[];
}

/** GET /api/reviews/{id}/grade → settings[]: one outcome's GRADE settings. */
export interface ApiGradeSettings {
  outcomeId: number;
  outcome: string;
  rating: ApiGradeRating;
  /** Summary of Findings' assumed control risk (proportion), null = pooled control-group risk. */
  assumedControlRisk: number | null;
  /** Imprecision decision threshold on the measure's natural scale (a ratio for RR/OR), or null. */
  decisionThreshold: number | null;
  updatedBy: string;
  updatedAt: string;
}
