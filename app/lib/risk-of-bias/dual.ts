/**
 * Dual independent RoB 2 assessment (issue 30 item 5): two reviewers assess a study × outcome on
 * their own, the differences are listed item by item (effect of interest, signalling-question
 * answers, domain and overall judgements), the owner or a resolver records the consensus
 * assessment, and the pair's agreement is Cohen's κ per domain and overall. Cochrane Handbook
 * ch. 7.3 / 8: risk of bias assessed by two reviewers independently, disagreements resolved by
 * discussion or a third person. Pure: no I/O; shared by the server and the Risk of bias tab.
 */
import { cohensKappa, type KappaResult } from "../agreement";
import {
  askedQuestions,
  ROB2_DOMAINS,
  ROB_JUDGEMENTS,
  type Rob2Answer,
  type Rob2DomainId,
  type Rob2Variant,
  type RobJudgement,
} from "./rob2";
import type { ApiRobAssessment, RobJudgementSet } from "./types";

/** Two assessors per study × outcome, as for screening and extraction. */
export const ASSESSORS_PER_STUDY = 2;

/** The part of an assessment a reviewer fills in, and its judgements. */
export type RobAssessmentContent = Pick<
  ApiRobAssessment,
  "variant" | "answers" | "support" | "proposed" | "overrides" | "final"
>;

/** A judgement item: a domain or the overall judgement. */
export type RobJudgementKey = Rob2DomainId | "overall";
export const ROB_JUDGEMENT_KEYS: readonly RobJudgementKey[] = [...ROB2_DOMAINS, "overall"];

/** What differs between two assessments of one study × outcome. */
export interface RobDifferences {
  /** The effect of interest (assignment / adhering) differs. */
  variant: boolean;
  /** Signalling questions asked in either assessment whose answers differ (a question one of them was not asked counts as differing), in the tool's order. */
  questions: string[];
  /** Domains (and 'overall') whose final judgements differ. */
  judgements: RobJudgementKey[];
}

/** One reviewer's submission as the reader may see it: `assessment` is null while blind. */
export interface ApiRobSubmission {
  userId: string;
  email: string;
  submittedAt: string;
  assessment: RobAssessmentContent | null;
}

/** One recorded consensus assessment (who, when). */
export interface ApiRobConsensus {
  userId: string;
  email: string;
  at: string;
  assessment: RobAssessmentContent;
}

/** The dual-assessment state of one study × outcome (GET /api/reviews/{id}/risk-of-bias → dual[]). */
export interface ApiRobDualStudy {
  recordId: number;
  outcomeId: number;
  /** In submission order; another's assessment is null until both are in. */
  submissions: ApiRobSubmission[];
  /** The reader has submitted their own assessment. */
  mine: boolean;
  /** Both assessments are in: every member sees both. */
  revealed: boolean;
  /** Null until both are in. */
  differing: RobDifferences | null;
  /** The latest consensus (what the analysis uses), null before one is recorded (or while blind). */
  consensus: ApiRobConsensus | null;
  /** Earlier consensus assessments, oldest first. */
  history: ApiRobConsensus[];
}

/** The tool's question order (1.1 < 1.2 < … < 2.10). */
function byQuestionId(a: string, b: string): number {
  const [a1, a2] = a.split(".").map(Number);
  const [b1, b2] = b.split(".").map(Number);
  return a1! - b1! || a2! - b2!;
}

/**
 * What differs between two assessments: the effect of interest, the answers to the signalling
 * questions asked in either (only asked questions count: answers the algorithm ignores are not
 * compared; exact equality, Y ≠ PY), and the final judgement of each domain and overall.
 */
export function robDifferences(
  a: Pick<RobAssessmentContent, "variant" | "answers" | "final">,
  b: Pick<RobAssessmentContent, "variant" | "answers" | "final">,
): RobDifferences {
  const asked = new Set([...askedQuestions(a.variant, a.answers), ...askedQuestions(b.variant, b.answers)]);
  const answerOf = (x: typeof a, id: string): Rob2Answer | null =>
    askedQuestions(x.variant, x.answers).includes(id) ? (x.answers[id] ?? null) : null;
  return {
    variant: a.variant !== b.variant,
    questions: [...asked].filter((id) => answerOf(a, id) !== answerOf(b, id)).sort(byQuestionId),
    judgements: ROB_JUDGEMENT_KEYS.filter((k) => a.final[k] !== b.final[k]),
  };
}

/** One pair of assessments of a study × outcome, first submitted first. */
export interface RobAssessmentPair {
  first: { userId: string; final: RobJudgementSet };
  second: { userId: string; final: RobJudgementSet };
}

/** Agreement of one judgement item: Cohen's κ of the 3×3 table (rows: the first assessment submitted; Low, Some concerns, High). */
export type RobItemAgreement = KappaResult;

/** GET /api/reviews/{id}/agreement → riskOfBias. */
export interface RobAgreement {
  /** Study × outcome pairs both reviewers assessed. */
  n: number;
  /** The order of the tables' rows and columns. */
  categories: readonly RobJudgement[];
  /** Unweighted κ: the three judgements are treated as nominal categories. */
  weighting: "unweighted";
  domains: Record<Rob2DomainId, RobItemAgreement>;
  overall: RobItemAgreement;
}

/**
 * Agreement of dual RoB 2 assessment per domain and overall over every study × outcome with two
 * assessments: percent agreement and unweighted Cohen's κ (with the Fleiss, Cohen & Everitt 1969
 * SE and 95% CI, {@link cohensKappa}) of the 3×3 table Low / Some concerns / High, rows = the
 * assessment submitted first.
 */
export function robAgreement(pairs: readonly RobAssessmentPair[]): RobAgreement {
  const tableOf = (key: RobJudgementKey) => {
    const table = ROB_JUDGEMENTS.map(() => ROB_JUDGEMENTS.map(() => 0));
    for (const p of pairs)
      table[ROB_JUDGEMENTS.indexOf(p.first.final[key])]![ROB_JUDGEMENTS.indexOf(p.second.final[key])]! += 1;
    return cohensKappa(table);
  };
  return {
    n: pairs.length,
    categories: ROB_JUDGEMENTS,
    weighting: "unweighted",
    domains: Object.fromEntries(ROB2_DOMAINS.map((d) => [d, tableOf(d)])) as Record<Rob2DomainId, RobItemAgreement>,
    overall: tableOf("overall"),
  };
}

/** The variant words used by the audit CSV. */
export const VARIANT_LABEL: Readonly<Record<Rob2Variant, string>> = {
  assignment: "effect of assignment",
  adhering: "effect of adhering",
};
