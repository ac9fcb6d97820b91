/**
 * The meta-analysis narrative, in the combined-summary fields (SPEC §3 "Combined summary";
 * app/lib/combined-summary.ts), written FROM the computed numbers so it cannot contradict
 * them.
 *
 * - Offline (and as the fallback): {@link buildTemplateNarrative} fills every field from the
 *   result with fixed sentences.
 * - With a language model: {@link phraseNarrative} gives the model the template and asks it only
 *   to rephrase; the model's text is kept only when every number in it occurs in the template
 *   (which holds exactly the computed numbers), otherwise the template is used.
 */
import type { z } from "zod";
import {
  COMBINED_SECTIONS,
  CombinedSummaryModelSchema,
  type CombinedCitations,
  type CombinedSummary,
  type StrengthOfEvidence,
} from "~/lib/combined-summary";
import type { GradeLevel, MetaAnalysisJobResult, OutcomeAnalysis } from "~/lib/meta-analysis/types";
import { formatP } from "~/lib/meta-analysis/grade";
import { GENQ_WEIGHT_SHORT } from "~/lib/meta-analysis/display";
import { measureLabel, measureName } from "./group";
import { generateStructured, type StructuredModel } from "../ai/model-call";
import { agree, counted, withArticle } from "~/lib/wording";

/** Who wrote a template narrative. */
export const TEMPLATE_GENERATED_BY =
  "MetaMind meta-analysis template: every number is copied from the computed analysis; no language model wrote this text.";

const RATIO_MEASURES = new Set(["RR", "OR", "ROM"]);
const n2 = (x: number) => x.toFixed(2);

/** "RR 0.78 (95% CI 0.65 to 0.93)" (ratio scale for ratios) for a pooled analysis. */
export function formatPooled(
  a: Pick<OutcomeAnalysis, "measure" | "reportedMeasure" | "estimate" | "ci_lb" | "ci_ub" | "ratio">,
): string {
  const label = measureLabel(a);
  if (a.ratio) return `${label} ${n2(a.ratio.estimate)} (95% CI ${n2(a.ratio.ci_lb)} to ${n2(a.ratio.ci_ub)})`;
  return `${label} ${n2(a.estimate)} (95% CI ${n2(a.ci_lb)} to ${n2(a.ci_ub)})`;
}

function formatPi(a: OutcomeAnalysis): string {
  const [lo, hi] = a.ratio ? [a.ratio.pi_lb, a.ratio.pi_ub] : [a.pi_lb, a.pi_ub];
  return `95% prediction interval ${n2(lo)} to ${n2(hi)}`;
}

function direction(a: OutcomeAnalysis): string {
  const crosses = a.ci_lb <= 0 && a.ci_ub >= 0;
  if (crosses) return "the confidence interval includes no effect";
  const ratio = RATIO_MEASURES.has(a.measure);
  const lower = a.estimate < 0;
  return ratio
    ? `the pooled ratio is ${lower ? "below" : "above"} 1`
    : `the pooled difference is ${lower ? "below" : "above"} 0`;
}

function heterogeneityText(a: OutcomeAnalysis): string {
  return `I² = ${a.I2.toFixed(1)}%, tau² = ${a.tau2.toFixed(4)}, Q = ${a.QE.toFixed(2)} (df = ${a.k - 1}, p = ${formatP(a.QEp)})`;
}

function strength(level: GradeLevel): StrengthOfEvidence {
  return level === "high" ? "high" : level === "moderate" ? "moderate" : "low";
}

function methodText(a: OutcomeAnalysis): string {
  const estimator =
    a.method === "EE" || a.method === "FE"
      ? "an equal-effects model"
      : `a random-effects model (${a.method} estimate of tau²${a.genqWeights ? ` with ${GENQ_WEIGHT_SHORT[a.genqWeights]}` : ""})`;
  return `${estimator}${a.test === "knha" ? " with the Hartung–Knapp adjustment" : ""}`;
}

function analysisSentence(a: OutcomeAnalysis): string {
  return `${capitalise(a.outcome)}: ${counted(a.k, "study")} pooled with ${methodText(a)} gave ${formatPooled(a)}, p = ${formatP(a.pval)}; ${direction(a)}.`;
}

const emptyCitations = (): CombinedCitations =>
  Object.fromEntries(COMBINED_SECTIONS.map((s) => [s, [] as string[]])) as unknown as CombinedCitations;

/**
 * The narrative from the computed numbers alone (combined-summary fields, plus `generatedBy` and
 * an empty `unsupportedNumbers`). The main analysis is the one with most studies; strength of
 * evidence maps its GRADE certainty (high → high, moderate → moderate, low/very low → low).
 */
export function buildTemplateNarrative(result: MetaAnalysisJobResult): CombinedSummary {
  const analyses = [...result.analyses].sort((a, b) => b.k - a.k);
  const main = analyses[0] ?? null;
  const studyIds = new Set(result.extracted.map((r) => r.studyId));
  const totalN = sumKnownN(result);
  const designs = countDesigns(result);
  const unpooled = result.unpooled ?? [];

  const usable = `${capitalise(counted(studyIds.size, "study"))} had usable effect data and ${result.excluded.length} ${agree(result.excluded.length, "was")} left out.`;
  const executive = main
    ? `${usable} ${counted(analyses.length, "outcome")} ${agree(analyses.length, "was")} pooled. ${analysisSentence(main)} Certainty of evidence (GRADE): ${main.grade.certainty}.`
    : `${usable} No outcome was reported by at least 2 studies with usable numbers, so nothing was pooled.`;
  const pooledEffectSize = analyses.length
    ? analyses.map(analysisSentence).join(" ")
    : "Not pooled: no outcome had at least 2 studies with usable numbers.";
  const heterogeneity = analyses.length
    ? analyses.map((a) => `${capitalise(a.outcome)}: ${heterogeneityText(a)}; ${formatPi(a)}.`).join(" ")
    : "Not estimable: nothing was pooled.";
  const gradeText = analyses.length
    ? analyses
        .map(
          (a) =>
            `${capitalise(a.outcome)}: ${a.grade.certainty} certainty. ${
              a.grade.judgements
                .filter((j) => j.downgrade !== 0)
                .map((j) => `${capitalise(j.domain)} (${j.downgrade}): ${j.reason}`)
                .join(" ") || "No domain was downgraded."
            }`,
        )
        .join(" ")
    : "No GRADE assessment: nothing was pooled.";
  const smallStudy = analyses.map((a) =>
    a.egger
      ? `${capitalise(a.outcome)}: Egger's test p = ${formatP(a.egger.pval)}${a.begg ? `, Begg's test p = ${formatP(a.begg.pval)}` : ""}${a.trimfill ? `; trim and fill imputed ${counted(a.trimfill.k0, "study")}` : ""}${a.k < 10 ? " (fewer than 10 studies: low power)" : ""}.`
      : `${capitalise(a.outcome)}: small-study tests not run (k = ${a.k}).`,
  );
  const sensitivity = analyses
    .filter((a) => a.leaveOneOut.length > 0)
    .map((a) => {
      const ests = a.leaveOneOut.map((r) => (a.ratio ? Math.exp(r.estimate) : r.estimate));
      return `${capitalise(a.outcome)}: leaving one study out gives ${measureLabel(a)} from ${n2(Math.min(...ests))} to ${n2(Math.max(...ests))}.`;
    });

  const summary: CombinedSummary = {
    executiveSummary: executive,
    quantitativeFindings: {
      pooledEffectSize,
      statisticalHeterogeneity: heterogeneity,
      sampleSizeTotal: `${counted(totalN.total, "participant")} in the ${totalN.known} of ${counted(studyIds.size, "study")} that ${agree(totalN.known, "reports", "report")} a sample size.`,
      keyOutcomes: [
        ...analyses.map((a) => `${capitalise(a.outcome)} (${measureName(a)}, k = ${a.k}): ${formatPooled(a)}.`),
        ...unpooled.map((u) => `${capitalise(u.outcome)}: not pooled. ${u.reason}`),
      ],
    },
    studyCharacteristics: {
      designQuality: designs || "Designs not stated in the texts.",
      populationSummary: "Not summarised: the analysis uses the extracted numbers only.",
      interventionDetails: "Not summarised: the analysis uses the extracted numbers only.",
      followUpPeriods: "Not reported",
    },
    commonThemes: analyses.map(
      (a) =>
        `${capitalise(counted(a.k, "study"))} ${agree(a.k, "reports", "report")} ${a.outcome} as ${withArticle(measureName(a))}.`,
    ),
    clinicalRecommendations: {
      evidenceBasedGuidance: main
        ? `${analysisSentence(main)} The certainty of this evidence is ${main.grade.certainty}.`
        : "No pooled evidence to base guidance on.",
      implementationConsiderations: main
        ? `The ${formatPi(main)} shows the range of effects a new setting could expect.`
        : "Not applicable.",
      patientSelection: "Not assessed from the numbers; see each study's population.",
      dosageAndTiming: "Not reported",
    },
    safetyProfile: {
      adverseEvents: analyses.some((a) => /adverse|harm|side effect|safety/i.test(a.outcome))
        ? analyses
            .filter((a) => /adverse|harm|side effect|safety/i.test(a.outcome))
            .map(analysisSentence)
            .join(" ")
        : "Not pooled: no adverse-event outcome was reported by at least 2 studies.",
      riskBenefitRatio: "Not assessed: weigh the pooled benefits against harms in the individual studies.",
      contraindications: "None reported",
    },
    conflictsAndHeterogeneity: heterogeneity,
    gradeAssessment: gradeText,
    studyQuality: designs
      ? `Study designs: ${designs}. Risk-of-bias domains are not assessable from abstracts.`
      : "Designs not stated.",
    clinicalImplications: main
      ? `${capitalise(direction(main))} for ${main.outcome} (${formatPooled(main)}), with ${main.grade.certainty} certainty.`
      : "None: nothing was pooled.",
    limitationsAndBiases: [
      ...smallStudy,
      ...sensitivity,
      ...analyses.flatMap((a) => a.notes ?? []),
      `${capitalise(counted(result.excluded.length, "study"))} ${agree(result.excluded.length, "was")} left out for lack of usable data.`,
      "Numbers were extracted from abstracts or full texts and should be checked against the quotes.",
    ].join(" "),
    futureResearchPriorities: [
      ...(main && main.ci_lb <= 0 && main.ci_ub >= 0 ? [`Larger trials to settle the effect on ${main.outcome}.`] : []),
      ...unpooled.map((u) => `More studies reporting ${u.outcome} to allow pooling.`),
    ],
    strengthOfEvidence: main ? strength(main.grade.certainty) : "low",
    citations: emptyCitations(),
    generatedBy: TEMPLATE_GENERATED_BY,
    unsupportedNumbers: [],
  };
  return summary;
}

function sumKnownN(result: MetaAnalysisJobResult): { total: number; known: number } {
  const byStudy = new Map<string, number>();
  for (const r of result.extracted) if (r.totalN !== null && !byStudy.has(r.studyId)) byStudy.set(r.studyId, r.totalN);
  return { total: [...byStudy.values()].reduce((a, b) => a + b, 0), known: byStudy.size };
}

function countDesigns(result: MetaAnalysisJobResult): string {
  const byStudy = new Map<string, string>();
  for (const r of result.extracted)
    if (!byStudy.has(r.studyId)) byStudy.set(r.studyId, r.design ?? "design not stated");
  const counts = new Map<string, number>();
  for (const d of byStudy.values()) counts.set(d, (counts.get(d) ?? 0) + 1);
  return [...counts].map(([d, n]) => `${n} ${d}`).join(", ");
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

const NUMBER = /\d+(?:[.,·]\d+)?/g;

/** Every number written in a value (strings, arrays and objects walked), as absolute values. */
export function numbersInValue(value: unknown): number[] {
  const out: number[] = [];
  const walk = (v: unknown) => {
    if (typeof v === "string") {
      for (const m of v.matchAll(NUMBER)) out.push(Number(m[0].replace(/[,·]/g, ".")));
    } else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === "object") Object.values(v).forEach(walk);
  };
  walk(value);
  return out;
}

/** The numbers in `text` that do not occur in `allowed` (compared as values). */
export function foreignNumbers(text: unknown, allowed: readonly number[]): number[] {
  const set = new Set(allowed.map((n) => n.toString()));
  return numbersInValue(text).filter((n) => !set.has(n.toString()));
}

const PhraseSchema = CombinedSummaryModelSchema.omit({ citations: true, strengthOfEvidence: true });
type Phrased = z.infer<typeof PhraseSchema>;

/** Dependencies of {@link phraseNarrative}. */
export interface PhraseDeps extends StructuredModel {
  modelName: string;
  abortSignal?: AbortSignal;
}

/**
 * Asks a language model to rephrase the template narrative in plainer prose (structured output
 * with the combined-summary schema, citations and strength of evidence fixed). The model may not
 * add or change numbers: when its text holds any number that the template does not, or the call
 * fails, the template is returned with `usedModel: false`.
 */
export async function phraseNarrative(
  deps: PhraseDeps,
  template: CombinedSummary,
): Promise<{ narrative: CombinedSummary; usedModel: boolean; reason?: string }> {
  const { citations: _c, generatedBy: _g, unsupportedNumbers: _u, strengthOfEvidence: _s, ...fields } = template;
  try {
    const phrased: Phrased = await generateStructured(deps, {
      abortSignal: deps.abortSignal,
      schema: PhraseSchema,
      name: "meta_analysis_narrative",
      instructions:
        "You rewrite a meta-analysis report for clinicians. The numbers are computed and final: copy every number exactly as given, add no numbers, change no judgement, and keep each field's meaning. Improve only the wording.",
      prompt: `Rewrite each field of this JSON object in clear prose, keeping the same fields:\n${JSON.stringify(fields, null, 2)}`,
    });
    const foreign = foreignNumbers(phrased, numbersInValue(fields));
    if (foreign.length > 0) {
      return {
        narrative: template,
        usedModel: false,
        reason: `the model's text had numbers not in the analysis (${foreign.slice(0, 5).join(", ")})`,
      };
    }
    return {
      narrative: {
        ...phrased,
        strengthOfEvidence: template.strengthOfEvidence,
        citations: template.citations,
        generatedBy: `${deps.modelName}, rephrasing the computed analysis; every number was checked against it.`,
        unsupportedNumbers: [],
      },
      usedModel: true,
    };
  } catch (error) {
    return { narrative: template, usedModel: false, reason: error instanceof Error ? error.message : String(error) };
  }
}
