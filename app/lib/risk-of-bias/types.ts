/**
 * Shapes of the review's risk-of-bias routes (/api/reviews/{id}/risk-of-bias…), shared by the
 * server and the review page.
 */
import type { Rob2Answer, Rob2DomainId, Rob2Variant, RobJudgement } from "./rob2";
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
