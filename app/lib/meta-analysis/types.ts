/**
 * Shared shapes of the meta-analysis feature: the statistics engine (app/lib/meta-analysis/*, pure
 * TypeScript, usable on the server and in the browser), the extraction step, the queued job and the
 * page. All effect sizes are on the analysis scale: log scale for ratio measures (RR, OR, ROM, and
 * Peto OR), raw scale for differences (RD, MD, SMD).
 */

/** Effect-size measures, named as metafor's escalc(measure=...). GEN = generic yi/vi supplied directly. */
export type Measure = "RR" | "OR" | "RD" | "MD" | "SMD" | "ROM" | "GEN";

/** Ratio measures are analysed on the log scale and back-transformed with exp(). */
export const RATIO_MEASURES: readonly Measure[] = ["RR", "OR", "ROM"];

/** tau² estimators (metafor rma(method=...)); EE/FE are equal-/fixed-effects models. */
export type Method =
  | "EE"
  | "FE"
  | "DL"
  | "REML"
  | "ML"
  | "PM"
  | "HS"
  | "SJ"
  | "HE"
  | "EB"
  /** Hunter–Schmidt with small-sample factor k/(k−p) (metafor "HSk"). */
  | "HSk"
  /** Median-unbiased Paule–Mandel (metafor "PMM"). */
  | "PMM"
  /** Two-step DerSimonian–Laird / Cochran ANOVA (GENQ with weights 1/(v + τ²_DL|HE)) and SJ from τ²_HE (DerSimonian & Kacker 2007). */
  | "DL2"
  | "CA2"
  | "SJ2"
  /**
   * Generalised Q estimator with weights a (DerSimonian & Kacker 2007) and its median-unbiased version
   * (Jackson et al. 2014); metafor rma(method = "GENQ" | "GENQM", weights). Default a = 1/v.
   */
  | "GENQ"
  | "GENQM";

/**
 * The weights a_i of the generalised Q estimators GENQ/GENQM, as a rule on the sampling variances
 * (scale does not matter: τ² and the pooled estimate are unchanged when every a_i is multiplied by a constant):
 * - "inverse-variance": a = 1/v, the DerSimonian–Laird weights (GENQ = DL; DerSimonian & Kacker 2007);
 * - "inverse-se": a = 1/√v, the reciprocal within-study standard errors Jackson (2013) proposes as a
 *   compromise between the two;
 * - "equal": a = 1, the unweighted Cochran ANOVA / Hedges weights (GENQ = HE; DerSimonian & Kacker 2007;
 *   metafor's rma.uni documentation names both special cases).
 */
export type GenqWeights = "inverse-variance" | "inverse-se" | "equal";

/**
 * Prediction-interval critical value, as metafor predict.rma(pi.type) 3.8 (predtype from 5.0): "default"
 * = the CI's (z, or t(k−p) under knha); "riley" = t(k−p−1) (Riley et al. 2011; Higgins et al. 2009);
 * "t" = t(k−p); "simple" = z and without SE(μ̂)².
 */
export type PiType = "default" | "riley" | "t" | "simple";

/** Pooling families beyond inverse variance (metafor rma.mh / rma.peto). */
export type PoolingFamily = "IV" | "MH" | "PETO";

/** z = normal-based tests and CIs; knha = Hartung–Knapp(–Sidik–Jonkman) t-based adjustment. */
export type TestType = "z" | "knha";

/** Raw data for one study, in one of the forms escalc accepts. */
export type EffectData =
  /** 2×2 table: events and group sizes per arm (treatment = 1, control = 2). */
  | { kind: "counts"; events1: number; n1: number; events2: number; n2: number }
  /** Continuous outcome per arm. */
  | { kind: "means"; mean1: number; sd1: number; n1: number; mean2: number; sd2: number; n2: number }
  /** A reported estimate with its 95% CI, on the natural scale (ratio, e.g. RR 0.75, or difference). */
  | { kind: "estimate-ci"; estimate: number; lower: number; upper: number }
  /** Effect size and sampling variance already on the analysis scale. */
  | { kind: "yi-vi"; yi: number; vi: number }
  /**
   * Generic inverse variance with a standard error (RevMan "estimate and SE"): the estimate on the
   * natural scale (a ratio such as an adjusted HR or OR, or a difference) and the SE of the effect
   * on the analysis scale (of log(ratio) for ratio measures, as RevMan and papers report it).
   * `scale: "log"`: the estimate itself is given on the log scale ("log HR −0.22 (SE 0.09)"), so it
   * is used as written (yi = estimate); absent, a ratio's estimate is on the natural scale.
   */
  | { kind: "estimate-se"; estimate: number; se: number; scale?: "log" }
  /** Rates (RevMan "events and person-time"): events and person-time per arm → incidence rate ratio. */
  | { kind: "rates"; events1: number; time1: number; events2: number; time2: number }
  /** RevMan "O − E and variance": observed minus expected events and its variance V (Peto log hazard ratio). */
  | { kind: "oe-var"; oe: number; v: number };

/** The kinds of study data, in the order the data table offers them. */
export const DATA_KINDS: readonly EffectData["kind"][] = [
  "counts",
  "means",
  "estimate-ci",
  "estimate-se",
  "rates",
  "oe-var",
  "yi-vi",
];

/** One computed effect size (escalc output) for one study. */
export interface EffectSize {
  /** Effect size on the analysis scale (log for ratio measures). */
  yi: number;
  /** Sampling variance of yi (> 0). */
  vi: number;
}

/** Pooled result of one model, every number on the analysis scale unless named otherwise. */
export interface PooledResult {
  measure: Measure;
  family: PoolingFamily;
  method: Method;
  test: TestType;
  /** GENQ/GENQM only: the rule of the weights a (absent for other estimators and for explicit weight arrays). */
  genqWeights?: GenqWeights;
  k: number;
  estimate: number;
  se: number;
  /** z or t statistic of the pooled estimate. */
  statistic: number;
  pval: number;
  ci_lb: number;
  ci_ub: number;
  /** Prediction interval (equals the CI when tau² = 0 or for EE/FE models, as metafor prints). */
  pi_lb: number;
  pi_ub: number;
  tau2: number;
  tau2_se: number | null;
  /** Q-profile CI for tau² (null when not defined, e.g. k < 2 or EE). */
  tau2_ci: [number, number] | null;
  /** Profile-likelihood CI for tau² (metafor confint(type = "PL")); ML and REML fits only. */
  tau2_ci_pl?: [number, number] | null;
  I2: number;
  H2: number;
  QE: number;
  QEp: number;
  /** Per-study weights in percent (sum 100). */
  weights: number[];
  /** Back-transformed values for ratio measures (exp of estimate/CI/PI), else null. */
  ratio: { estimate: number; ci_lb: number; ci_ub: number; pi_lb: number; pi_ub: number } | null;
  /** Degrees of freedom of the t statistic (test "knha": k − 1); null for z tests. */
  df?: number | null;
  /** I² (percent) and H² bounds from the Q-profile τ² CI (random-effects models only). */
  I2_ci?: [number, number] | null;
  H2_ci?: [number, number] | null;
  /**
   * Mantel–Haenszel OR only: Cochran–Mantel–Haenszel test (continuity-corrected), Breslow–Day and
   * Tarone's tests of homogeneity of the ORs (metafor rma.mh MH/MHp, BD/BDp, TA/TAp).
   */
  mhTests?: {
    CMH: number;
    CMHp: number;
    BD: number | null;
    BDp: number | null;
    TA: number | null;
    TAp: number | null;
  } | null;
  /** Notes on degenerate situations the numbers reflect (e.g. zero-width Hartung–Knapp CI). */
  warnings?: string[];
}

/** Egger's regression test (metafor regtest, model rma, predictor sei). */
export interface EggerTest {
  statistic: number;
  df: number | null;
  pval: number;
  /** Intercept/slope of the regression line drawn on the funnel plot (standard error on the y axis). */
  intercept: number;
  slope: number;
  /** CI of the intercept (the "limit estimate" as the standard error → 0), analysis scale. */
  intercept_ci?: [number, number];
}

/** Begg and Mazumdar's rank correlation test (metafor ranktest). */
export interface BeggTest {
  tau: number;
  pval: number;
}

/** Trim and fill (metafor trimfill). */
export interface TrimFillResult {
  estimator: "L0" | "R0";
  k0: number;
  side: "left" | "right";
  /** Filled (imputed) studies on the analysis scale. */
  filled: EffectSize[];
  adjusted: PooledResult;
  /** Standard error of k0 (metafor se.k0). */
  se_k0?: number;
  /** R0 only: p-value of the test of k0 = 0 (metafor p.k0); null for L0. */
  p_k0?: number | null;
}

/** Leave-one-out row (metafor leave1out). */
export interface LeaveOneOutRow {
  omitted: string;
  estimate: number;
  ci_lb: number;
  ci_ub: number;
  tau2: number;
  I2: number;
  se?: number;
  pval?: number;
  QE?: number;
  QEp?: number;
  H2?: number;
}

/** A value extracted from a study text, with the quote that supports it. */
export interface SupportingQuote {
  quote: string;
  /** Character offsets [start, end) of the quote in the source text. */
  start: number;
  end: number;
  source: "abstract" | "fullText";
}

/** One row of the data table the user reviews before pooling. */
export interface ExtractedStudyData {
  studyId: string;
  title: string;
  outcome: string;
  measure: Measure;
  data: EffectData;
  quotes: SupportingQuote[];
  /** Who extracted it: "offline-rules" or the model name; "user" once edited. */
  extractedBy: string;
  /** Study design as classified (RCT, cohort, case-control, …) for GRADE's risk of bias. */
  design: string | null;
  totalN: number | null;
  /**
   * The ratio the study reported when it is not the pooled measure's own name: "HR" (hazard
   * ratio) or "IRR" (rate ratio). Such rows carry measure "RR" and an estimate-ci, so they are
   * pooled as log ratios (yi = log(estimate), vi from the CI) — the standard generic
   * inverse-variance treatment of time-to-event data (Cochrane Handbook 6.3.2 / 10.3) — and are
   * grouped only with rows of the same reported ratio.
   */
  reportedMeasure?: "HR" | "IRR";
  /** The comparison the effect is about, as the text words it ("aspirin vs placebo"); null when unstated. */
  comparison?: string | null;
  /** When the outcome was measured ("12 weeks", "0-30 days"); null when unstated. */
  timepoint?: string | null;
  /**
   * True when the text reports this effect as its own pooled result (a meta-analysis abstract):
   * it is listed, never pooled again with primary studies.
   */
  isPooledEstimate?: boolean;
  /**
   * The user's pooling group: rows with the same label pool together (merge), rows with different
   * labels never do (split). Empty or absent: grouped automatically by outcome, measure and
   * timepoint (app/.server/meta-analysis/group.ts).
   */
  poolGroup?: string;
  /**
   * Why the row's outcome phrase is uncertain, when it is (the sentence names no outcome of its
   * own, or another effect of the study is worded alike): the
   * reviewer should name the outcome. Such rows are listed, not pooled automatically, until the
   * reviewer names the outcome or gives a pool group. Absent when the phrase is the effect's own.
   */
  outcomeUncertain?: string;
}

/** A study left out of pooling, with the reason shown to the user. */
export interface ExcludedStudy {
  studyId: string;
  title: string;
  reason: string;
}

export type GradeLevel = "high" | "moderate" | "low" | "very low";

export interface GradeJudgement {
  domain: "risk of bias" | "inconsistency" | "indirectness" | "imprecision" | "publication bias";
  /** 0 = not serious, -1 = serious, -2 = very serious. */
  downgrade: 0 | -1 | -2;
  reason: string;
  /** When the reviewer changed the rating: the computed rating and its reason, kept beside the reviewer's. */
  computed?: { downgrade: 0 | -1 | -2; reason: string };
}

export interface GradeAssessment {
  certainty: GradeLevel;
  judgements: GradeJudgement[];
  /** The starting level (high: randomised trials; low: observational); absent in older results. */
  start?: GradeLevel;
  /** Levels the reviewer rated up (large effect, dose response, plausible confounding), each with a justification. */
  ratedUp?: { reason: GradeRateUpReason; levels: 1 | 2; justification: string }[];
}

/** GRADE's reasons to rate up observational evidence (only ever by the reviewer). */
export type GradeRateUpReason = "large effect" | "dose response" | "plausible confounding";

/** GRADE certainty as the Summary of Findings contract spells it. */
export type SofCertainty = "high" | "moderate" | "low" | "very_low";

/**
 * One row of a Summary of Findings table (GRADEpro layout), unrounded: the relative effect
 * (back-transformed for ratios; the mean difference etc. for continuous outcomes), the assumed
 * control risk and the corresponding risk per 1,000 (null for continuous outcomes or when no
 * control risk is known), the risk difference per 1,000 with its 95% CI, the certainty and the
 * domains rated down with their reasons.
 */
export interface SummaryOfFindings {
  relativeEffect: { measure: string; estimate: number; ci_lb: number; ci_ub: number };
  assumedRiskPer1000: number | null;
  correspondingRiskPer1000: number | null;
  riskDifferencePer1000: { estimate: number; ci_lb: number; ci_ub: number } | null;
  certainty: SofCertainty;
  downgrades: { domain: GradeJudgement["domain"]; levels: 1 | 2; reason: string }[];
  /** Participants and studies in the analysis (the table's "No of participants (studies)"). */
  participants: number | null;
  studies: number;
  /** Where the assumed control risk comes from. */
  assumedRiskSource: "reviewer" | "pooled control groups" | null;
  /** Levels the reviewer rated up, with their justifications (GRADE; absent when none). */
  ratedUp?: { reason: GradeRateUpReason; levels: 1 | 2; justification: string }[];
}

/**
 * One analysis per compatible (outcome, measure) group: the pooled numbers are flat on the object
 * (measure, method, k, estimate, se, ci_lb, ci_ub, pi_lb, pi_ub, tau2, I2, H2, QE, QEp, ratio …).
 */
/** One named sensitivity re-run of a pooled analysis (see sensitivity.ts); numbers on the analysis scale, null when not computable. */
export interface SensitivityRun {
  key: "main" | "model" | "estimator" | "influential";
  label: string;
  method: Method;
  test: TestType;
  /** Studies pooled. */
  studies: number;
  /** Labels of the studies left out. */
  left_out: string[];
  estimate: number | null;
  ci_lb: number | null;
  ci_ub: number | null;
  tau2: number | null;
  I2: number | null;
  note: string | null;
}

export interface OutcomeAnalysis extends PooledResult {
  outcome: string;
  studyIds: string[];
  effects: (EffectSize & { studyId: string; label: string })[];
  egger: EggerTest | null;
  begg: BeggTest | null;
  trimfill: TrimFillResult | null;
  leaveOneOut: LeaveOneOutRow[];
  grade: GradeAssessment;
  /** Summary of Findings row for this analysis (absent in results stored before issue 28). */
  summaryOfFindings?: SummaryOfFindings;
  /** Each study's RoB 2 overall judgement, parallel to `effects` (null = not assessed); only when judgements were sent. */
  riskOfBias?: (RobOverall | null)[];
  /** Each study's RoB 2 domain and overall judgements, parallel to `effects`, when they were sent (report's traffic-light plot). */
  riskOfBiasDomains?: ({
    D1: RobOverall;
    D2: RobOverall;
    D3: RobOverall;
    D4: RobOverall;
    D5: RobOverall;
    overall: RobOverall;
  } | null)[];
  /** The analysis without High, and without High + Some concerns studies (only when judgements were sent). */
  riskOfBiasSensitivity?: RobSensitivityRow[];
  /** "HR" / "IRR" when the group pools hazard or rate ratios (see ExtractedStudyData). */
  reportedMeasure?: "HR" | "IRR";
  /** Why a test is missing or a study was left out of this analysis, in plain words. */
  notes?: string[];
  /** Named sensitivity re-runs (issue 29; absent in results stored before it). */
  sensitivity?: SensitivityRun[];
}

/** A RoB 2 overall judgement as the meta-analysis carries it. */
export type RobOverall = "low" | "some_concerns" | "high";

/**
 * One row of the sensitivity analysis by risk of bias: the studies kept, and the model refitted
 * with the main analysis' estimator and test (null numbers with `note` when fewer than 2 remain).
 */
export interface RobSensitivityRow {
  scenario: "all" | "without_high" | "low_only";
  /** In words: "All studies", "Without high risk of bias", "Low risk of bias only". */
  label: string;
  k: number;
  studyIds: string[];
  estimate: number | null;
  ci_lb: number | null;
  ci_ub: number | null;
  pval: number | null;
  I2: number | null;
  tau2: number | null;
  note?: string;
}

/** An outcome with fewer than 2 usable studies: reported, not pooled. */
export interface UnpooledOutcome {
  outcome: string;
  measure: Measure;
  reportedMeasure?: "HR" | "IRR";
  studyIds: string[];
  reason: string;
}

/** PRISMA 2020 flow counts, fed by the search's per-database counts. */
export interface PrismaCounts {
  identified: Record<string, number>;
  duplicatesRemoved: number;
  screened: number;
  excluded: number;
  /** Records not screened yet (a review in progress); absent = 0. */
  awaitingScreening?: number;
  /** Records marked 'maybe' at screening: screened, neither excluded nor sought; absent = 0. */
  maybe?: number;
  /** Reports sought for retrieval; absent = screened − excluded − maybe. */
  sought?: number;
  /** Reports not retrieved; absent = sought − assessed. */
  notRetrieved?: number;
  reportsAssessed: number;
  /** Reports retrieved but without a full-text decision yet; absent = 0. */
  awaitingFullText?: number;
  /** Reports marked 'maybe' at full text: assessed, neither excluded nor included; absent = 0. */
  fullTextMaybe?: number;
  reportsExcluded: { reason: string; count: number }[];
  included: number;
  /**
   * A living review's counts for PRISMA 2020's flow diagram for updated reviews (absent for a
   * review without updates and for hand-picked studies); the counts above stay the whole review's.
   */
  updated?: UpdatedPrismaCounts;
}

/** The updated-review template's counts: studies included before the updates, the updates' own flow, the total. */
export interface UpdatedPrismaCounts {
  /** Living updates run. */
  updates: number;
  /** ISO time of the last one. */
  lastUpdateAt: string | null;
  previousStudies: number;
  /** The flow of the records the updates identified. */
  newFlow: Omit<PrismaCounts, "updated">;
  totalStudies: number;
}

/** Result of a finished meta-analysis job (GET /api/meta-analysis/jobs/{jobId} → result). */
export interface MetaAnalysisJobResult {
  extracted: ExtractedStudyData[];
  excluded: ExcludedStudy[];
  analyses: OutcomeAnalysis[];
  /** Outcomes reported by a single study (or left with one usable study): listed, not pooled. */
  unpooled?: UnpooledOutcome[];
  prisma: PrismaCounts | null;
  /** Narrative in the combined-summary fields, written from the computed numbers. */
  narrative: Record<string, unknown>;
  model: string;
}

export type JobStatus = "queued" | "running" | "done" | "failed";

/**
 * Where a meta-analysis job is (issue 16): written by the queue consumer as the work happens.
 * queued (waiting for the queue, or for a retry) → extracting (effect data, study by study) →
 * pooling (the statistics engine) → writing (the narrative report) → done | failed.
 */
export const JOB_STAGES = ["queued", "extracting", "pooling", "writing", "done", "failed"] as const;
export type JobStage = (typeof JOB_STAGES)[number];

/**
 * PRISMA counts sent with a job; `review` (a systematic review's whole flow) is used by the report
 * as it is; `updated` (a living review's updated-review counts) makes the report draw PRISMA 2020's
 * template for updated reviews.
 */
export interface ReviewPrismaInput {
  identified: Record<string, number>;
  duplicatesRemoved: number;
  screened: number;
  review?: ReviewFlowInput;
  updated?: {
    updates: number;
    lastUpdateAt: string | null;
    previousStudies: number;
    totalStudies: number;
    newFlow: {
      identified: Record<string, number>;
      duplicatesRemoved: number;
      screened: number;
      review: ReviewFlowInput;
    };
  };
}

/** The review's decisions past identification, as a job carries them. */
export interface ReviewFlowInput {
  excluded: number;
  awaitingScreening?: number;
  maybe?: number;
  soughtForRetrieval: number;
  notRetrieved: number;
  assessed: number;
  awaitingFullText?: number;
  fullTextMaybe?: number;
  excludedWithReasons: Record<string, number>;
  included: number;
}
