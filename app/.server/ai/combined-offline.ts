/**
 * Combined research summaries without a language model: the offline extractive composer
 * ({@link combineOffline}), deterministic, built from rule-based extraction
 * (app/lib/extraction/facts.ts). Every sentence is copied from a source or is a templated statement
 * about counts, and it never pools effects. {@link offlineSnapshots} replays the result as the
 * growing partial objects a model would stream.
 */
import {
  COMBINED_SECTIONS,
  type CombinedCitations,
  type CombinedSection,
  type CombinedSummary,
  type PartialCombinedSummary,
  type StrengthOfEvidence,
} from "~/lib/combined-summary";
import {
  DESIGN_LABELS,
  excludesNoEffect,
  type SentenceQuote,
  type StudyDesign,
  type StudyExtraction,
} from "~/lib/extraction/facts";
import { joinedTextFacts } from "~/lib/extraction/facts";
import { summarizeExtractive } from "./extractive";
import { capitalise, findThemes, type ThemePhrase, type ThemeRole } from "./themes";
import { OFFLINE_MODEL_NAME } from "./registry";
import {
  NoStudyContentError,
  sentenceId,
  studySources,
  type CombinedStudyInput,
  type StudySource,
} from "./combined-sources";
import { formatCount, plural } from "./combined-text";

/** Most reported effects listed in the offline pooled-effect statement. */
const MAX_LISTED_EFFECTS = 12;
/** Most sentences in the offline executive summary. */
const MAX_SUMMARY_SENTENCES = 8;

/** The offline model's statement of what it is (stored in `generatedBy`). */
export const OFFLINE_GENERATED_BY = `${OFFLINE_MODEL_NAME}: an offline extractive model, not a language model. Every sentence is copied verbatim from the study abstracts (in quotation marks or after "Study n:") or is a templated statement about counts; it pools no effects and gives no advice of its own.`;

/**
 * The offline strength-of-evidence rule, after the GRADE starting levels (randomised evidence
 * starts high, observational low; Guyatt et al., BMJ 2008;336:924) and the Oxford CEBM 2011
 * levels (syntheses above single trials).
 */
export const OFFLINE_STRENGTH_RULE =
  "MetaMind's offline rule: count each randomised controlled trial once and each meta-analysis or systematic review twice; high when the count is at least 4 and such studies are at least half of the set, moderate when it is at least 2, low otherwise.";

const RANDOMISED_OR_SYNTHESIS: readonly StudyDesign[] = ["rct", "meta-analysis", "systematic-review"];
const OBSERVATIONAL: readonly StudyDesign[] = ["cohort", "case-control", "cross-sectional"];

/** Applies {@link OFFLINE_STRENGTH_RULE} to the studies' designs. */
export function offlineStrengthOfEvidence(designs: readonly (StudyDesign | null)[]): StrengthOfEvidence {
  const strong = designs.filter((d): d is StudyDesign => d !== null && RANDOMISED_OR_SYNTHESIS.includes(d));
  const points = strong.reduce((sum, d) => sum + (d === "rct" ? 1 : 2), 0);
  if (points >= 4 && strong.length * 2 >= designs.length) return "high";
  if (points >= 2) return "moderate";
  return "low";
}

const quoted = (text: string) => `“${text}”`;

function listJoin(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? "";
  return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

/** Collects cited sentence ids per section, in first-cited order. */
class CitationCollector {
  private readonly ids = new Map<CombinedSection, string[]>();

  add(section: CombinedSection, source: StudySource, quote: { sentenceIndex: number }): void {
    const id = sentenceId(source, quote);
    const list = this.ids.get(section) ?? [];
    if (!list.includes(id)) list.push(id);
    this.ids.set(section, list);
  }

  result(): CombinedCitations {
    const out = {} as CombinedCitations;
    for (const section of COMBINED_SECTIONS) out[section] = this.ids.get(section) ?? [];
    return out;
  }
}

interface Analysed {
  source: StudySource;
  facts: StudyExtraction;
}

function designMix(analysed: readonly Analysed[]): string {
  const counts = new Map<StudyDesign | null, number>();
  for (const { facts } of analysed) counts.set(facts.design, (counts.get(facts.design) ?? 0) + 1);
  const parts: string[] = [];
  for (const design of [...Object.keys(DESIGN_LABELS), null] as (StudyDesign | null)[]) {
    const n = counts.get(design);
    if (!n) continue;
    parts.push(
      design
        ? plural(n, DESIGN_LABELS[design].one, DESIGN_LABELS[design].many)
        : plural(n, "study without a stated design", "studies without a stated design"),
    );
  }
  return listJoin(parts);
}

/** The abstract's most central sentences (LexRank), as quotes into the study text. */
function keySentences(source: StudySource, count: number): SentenceQuote[] {
  if (!source.hasAbstract) return [];
  const offset = source.text.indexOf("\n\n") + 2;
  const { sentences } = summarizeExtractive(source.text.slice(offset), { maxSentences: count });
  const out: SentenceQuote[] = [];
  for (const s of sentences) {
    const start = offset + s.start;
    const index = source.sentences.findIndex((n) => n.start <= start && start < n.end);
    if (index === -1 || out.some((q) => q.sentenceIndex === index)) continue;
    const n = source.sentences[index]!;
    out.push({ quote: n.text, start: n.start, end: n.end, sentenceIndex: index });
  }
  return out;
}

/** Per-study key sentences: 3 for one study, 2 each for two, else 1 each; at most 8, the most central across studies when more. */
function executiveSentences(analysed: readonly Analysed[]): { item: Analysed; quote: SentenceQuote }[] {
  const perStudy = analysed.length === 1 ? 3 : analysed.length === 2 ? 2 : 1;
  const candidates = analysed.flatMap((item) => keySentences(item.source, perStudy).map((quote) => ({ item, quote })));
  if (candidates.length <= MAX_SUMMARY_SENTENCES) return candidates;
  // Multi-document LexRank over the candidates (Erkan & Radev 2004), kept in input order.
  const joined: { from: number; to: number }[] = [];
  let text = "";
  for (const c of candidates) {
    if (text) text += "\n\n";
    joined.push({ from: text.length, to: text.length + c.quote.quote.length });
    text += c.quote.quote;
  }
  const chosen = new Set<number>();
  for (const s of summarizeExtractive(text, { maxSentences: MAX_SUMMARY_SENTENCES }).sentences) {
    const k = joined.findIndex((j) => j.from <= s.start && s.start < j.to);
    if (k !== -1) chosen.add(k);
  }
  return candidates.filter((_, k) => chosen.has(k));
}

/** Most study titles listed on one theme line; the rest are counted. */
const MAX_THEME_TITLES = 4;

const ROLE_WORDS: Record<ThemeRole, string> = { outcome: "outcome", intervention: "intervention or exposure" };

/**
 * The common-theme lines: each theme phrase ({@link findThemes}) with its role and the studies
 * that use it, named by title — "Smoking cessation (outcome): in 2 of 2 studies — “Physical
 * activity for smoking cessation…”; “…”". One study: how often it uses the phrase. No shared
 * phrase: each study's own main phrases, by title.
 */
function themeLines(analysed: readonly Analysed[], cite: CitationCollector): string[] {
  const n = analysed.length;
  const themeStudies = (list: readonly Analysed[]) =>
    list.map((a) => ({
      number: a.source.number,
      sentences: a.source.sentences.map((x) => x.text),
      outcomes: a.facts.outcomes.map((o) => o.outcome.quote),
      interventionSentences: new Set(a.facts.interventions.map((q) => q.sentenceIndex)),
    }));
  const describe = (t: ThemePhrase) => `${capitalise(t.phrase)}${t.role ? ` (${ROLE_WORDS[t.role]})` : ""}`;
  const themes = findThemes(themeStudies(analysed));
  const lines = themes.map((t) => {
    for (const [number, index] of t.studies)
      cite.add("commonThemes", analysed[number - 1]!.source, { sentenceIndex: index });
    if (n === 1) return `${describe(t)}: mentioned ${t.count} ${t.count === 1 ? "time" : "times"}`;
    const titles = [...t.studies.keys()].map((k) => quoted(analysed[k - 1]!.source.title));
    const more = titles.length > MAX_THEME_TITLES ? `; and ${titles.length - MAX_THEME_TITLES} more` : "";
    return `${describe(t)}: in ${t.studies.size} of ${plural(n, "study", "studies")} — ${titles.slice(0, MAX_THEME_TITLES).join("; ")}${more}`;
  });
  if (lines.length > 0 || n === 1) return lines;
  const own = analysed
    .map((a) => {
      const mine = findThemes(themeStudies([a])).slice(0, 3);
      for (const t of mine) cite.add("commonThemes", a.source, { sentenceIndex: t.studies.get(a.source.number)! });
      return mine.length > 0 ? `${quoted(a.source.title)}: ${mine.map(describe).join(", ")}` : null;
    })
    .filter((x): x is string => x !== null);
  return [`No outcome or intervention is shared by two or more of the ${plural(n, "study", "studies")}.`, ...own];
}

const RISK_BENEFIT =
  /\bnet\s+(?:clinical\s+)?benefit|\brisk[- ]benefit|\bbenefit[- ](?:risk|harm)|\bbenefits?\s+(?:outweigh|and\s+(?:risks|harms))|\bharms?\s+outweigh/i;
const CONTRAINDICATION =
  /\bcontraindicat\w*|\bshould\s+not\s+(?:be\s+)?(?:used|given|receive|offered)|\bnot\s+recommended\b/i;
const PATIENT_SELECTION =
  /\beligib\w*|\binclusion\s+criteria|\bexclusion\s+criteria|\b(?:patients|participants|adults|children|women|men|subjects|people|individuals)\s+(?:who\s+had|with\s+(?:a\s+)?(?:history|diagnosis)\s+of)\b/i;

/**
 * Builds the combined summary without a language model, deterministically, from
 * {@link joinedTextFacts} of each study's title + abstract (the extraction service's `studyFacts` for this input):
 *
 * - executiveSummary: a templated line on the design mix, then one line per study, "Study n:"
 *   and its most central abstract sentences (LexRank; 3 for one study, 2 each for two, else 1
 *   each, at most 8 — the most central across studies when more).
 * - quantitativeFindings: pooledEffectSize never pools ("Not pooled: MetaMind pools effects only in
 *   a meta-analysis; reported effects: …" with the quoted effects, up to 12); heterogeneity
 *   sentences quoted when a study reports I²/τ²/Q; sampleSizeTotal = the sum of each study's
 *   extracted sample size, with how many studies reported one and the quotes; keyOutcomes = each
 *   study's outcome statements and up to 2 quoted effects.
 * - studyCharacteristics, clinicalRecommendations, safetyProfile, clinicalImplications,
 *   limitationsAndBiases, futureResearchPriorities: quoted sentences of the matching class (see
 *   extraction.ts), or a templated "not reported in the n abstracts".
 * - commonThemes: outcome and intervention phrases shared by the most studies (themes.ts), each
 *   with the titles of the studies that use it.
 * - conflictsAndHeterogeneity: counts of effect intervals that exclude / include no effect.
 * - gradeAssessment and strengthOfEvidence: {@link OFFLINE_STRENGTH_RULE} on the designs.
 * - citations: the sentence ids of every quote; generatedBy: {@link OFFLINE_GENERATED_BY}.
 *
 * @throws NoStudyContentError when no study has an abstract.
 */
export function combineOffline(studies: readonly CombinedStudyInput[]): CombinedSummary {
  const sources = studySources(studies);
  if (!sources.some((s) => s.hasAbstract)) throw new NoStudyContentError();
  return combineOfflineFromSources(sources);
}

/** The composer on already numbered sources (see {@link combineOffline}). */
export function combineOfflineFromSources(sources: readonly StudySource[]): CombinedSummary {
  const analysed: Analysed[] = sources.map((source) => ({
    source,
    facts: joinedTextFacts(source),
  }));
  const n = analysed.length;
  const withAbstract = analysed.filter((a) => a.source.hasAbstract);
  const cite = new CitationCollector();
  const label = (a: Analysed) => `Study ${a.source.number}`;
  const studiesWord = plural(n, "study", "studies");
  const abstractsWord = n === 1 ? "the abstract" : `the ${n} abstracts`;

  /** "Study 1: “…”; Study 2: “…”" for the first `perStudy` quotes of a class, cited under `section`. */
  const quoteList = (
    section: CombinedSection,
    pick: (a: Analysed) => readonly SentenceQuote[],
    perStudy = 1,
    limit = MAX_SUMMARY_SENTENCES,
  ): string[] => {
    const out: string[] = [];
    for (const a of analysed) {
      const quotes = pick(a).slice(0, perStudy);
      if (quotes.length === 0 || out.length >= limit) continue;
      for (const q of quotes) cite.add(section, a.source, q);
      out.push(`${label(a)}: ${quotes.map((q) => quoted(q.quote)).join(" ")}`);
    }
    return out;
  };

  // Executive summary.
  const mix = designMix(analysed);
  const lead = `This offline summary quotes ${n === 1 ? "one study" : `${n} studies`}: ${mix}.`;
  const lines: string[] = [lead];
  let currentStudy = 0;
  for (const { item, quote } of executiveSentences(withAbstract)) {
    cite.add("executiveSummary", item.source, quote);
    if (item.source.number === currentStudy) lines[lines.length - 1] += ` ${quote.quote}`;
    else lines.push(`${label(item)}: ${quote.quote}`);
    currentStudy = item.source.number;
  }
  const executiveSummary = lines.join("\n");

  // Quantitative findings.
  const effects = analysed.flatMap((a) => a.facts.effects.map((e) => ({ a, e })));
  const listedEffects = effects.slice(0, MAX_LISTED_EFFECTS);
  for (const { a, e } of listedEffects) cite.add("quantitativeFindings", a.source, e);
  const effectGroups: string[] = [];
  for (const a of analysed) {
    const mine = listedEffects.filter((x) => x.a === a).map(({ e }) => quoted(e.quote));
    if (mine.length > 0)
      effectGroups.push(
        `${label(a)}${a.facts.design === "meta-analysis" ? " (a meta-analysis)" : ""}: ${mine.join(", ")}`,
      );
  }
  const effectText = effectGroups.join("; ");
  const pooledEffectSize =
    effects.length === 0
      ? `Not pooled: MetaMind pools effects only in a meta-analysis, and none of ${abstractsWord} reports an effect estimate (risk, odds, hazard or rate ratio, mean or risk difference).`
      : `Not pooled: MetaMind pools effects only in a meta-analysis; reported effects: ${effectText}${effects.length > listedEffects.length ? `; and ${effects.length - listedEffects.length} more` : ""}.`;

  const heterogeneityQuotes = quoteList("quantitativeFindings", (a) => a.facts.heterogeneity, 2);
  const statisticalHeterogeneity =
    heterogeneityQuotes.length > 0
      ? `Reported within the studies (not across them): ${heterogeneityQuotes.join("; ")}.`
      : `Not assessed: none of ${abstractsWord} reports a heterogeneity statistic (I², τ² or Q), and heterogeneity across studies needs a meta-analysis of one comparable outcome.`;

  const sized = analysed.filter((a) => a.facts.sampleSize);
  for (const a of sized) cite.add("quantitativeFindings", a.source, a.facts.sampleSize!);
  const total = sized.reduce((sum, a) => sum + a.facts.sampleSize!.value, 0);
  const includesSynthesis = sized.some(
    (a) => a.facts.design === "meta-analysis" || a.facts.design === "systematic-review",
  );
  const sampleSizeTotal =
    sized.length === 0
      ? `Not reported: none of ${abstractsWord} states a sample size.`
      : `${formatCount(total)}: the sum of the sample sizes reported by ${sized.length} of ${studiesWord} (${sized
          .map((a) => `${label(a)}: ${quoted(a.facts.sampleSize!.quote)}`)
          .join(
            "; ",
          )})${includesSynthesis ? "; a review's total may include participants of other studies listed here" : ""}.`;

  const keyOutcomes: string[] = [];
  for (const a of analysed) {
    for (const o of a.facts.outcomes.slice(0, 2)) {
      cite.add("quantitativeFindings", a.source, o);
      keyOutcomes.push(
        `${label(a)}, ${o.kind === "outcome" ? "outcomes" : `${o.kind} outcome`}: ${quoted(o.outcome.quote)}`,
      );
    }
    const effectSentences = [...new Set(a.facts.effects.map((e) => e.sentenceIndex))].slice(0, 2);
    for (const index of effectSentences) {
      cite.add("quantitativeFindings", a.source, { sentenceIndex: index });
      keyOutcomes.push(`${label(a)}: ${quoted(a.facts.sentences[index]!.text)}`);
    }
  }
  if (keyOutcomes.length === 0)
    keyOutcomes.push(`No outcome statement or effect estimate was found in ${abstractsWord}.`);

  // Study characteristics.
  const designed = analysed.filter((a) => a.facts.design);
  for (const a of designed) {
    const mention = a.facts.designMentions.find((m) => m.design === a.facts.design && m.weight > 0);
    if (mention) cite.add("studyCharacteristics", a.source, mention);
  }
  const byDesign = new Map<StudyDesign, Analysed[]>();
  for (const a of designed) byDesign.set(a.facts.design!, [...(byDesign.get(a.facts.design!) ?? []), a]);
  const designParts = [...byDesign.entries()].map(
    ([design, list]) =>
      `${plural(list.length, DESIGN_LABELS[design].one, DESIGN_LABELS[design].many)} (${list.map(label).join(", ")})`,
  );
  const undesigned = analysed.filter((a) => !a.facts.design);
  const designQuality = [
    designParts.length > 0
      ? `Designs named in the abstracts: ${listJoin(designParts)}.`
      : `None of ${abstractsWord} names a recognised study design.`,
    undesigned.length > 0 && designParts.length > 0 ? `No design is named for ${listJoin(undesigned.map(label))}.` : "",
    "Ranked by the Oxford CEBM 2011 levels, syntheses of trials come first, then randomised trials, then cohort, case-control and cross-sectional studies.",
  ]
    .filter(Boolean)
    .join(" ");

  const populationQuotes = quoteList("studyCharacteristics", (a) => {
    const s = a.facts.sampleSize;
    if (!s) return [];
    const sentence = a.facts.sentences[s.sentenceIndex]!;
    return [{ quote: sentence.text, start: sentence.start, end: sentence.end, sentenceIndex: s.sentenceIndex }];
  });
  const populationSummary =
    populationQuotes.length > 0
      ? `${populationQuotes.join(" ")}${populationQuotes.length < n ? ` No population size is stated for ${listJoin(analysed.filter((a) => !a.facts.sampleSize).map(label))}.` : ""}`
      : `Not reported: none of ${abstractsWord} states how many people were studied.`;

  const interventionQuotes = quoteList("studyCharacteristics", (a) => a.facts.interventions);
  const interventionDetails =
    interventionQuotes.length > 0
      ? interventionQuotes.join(" ")
      : `Not reported: no intervention or comparison is described in a methods sentence of ${abstractsWord}.`;

  const followParts: string[] = [];
  for (const a of analysed) {
    const f = a.facts.followUps.slice(0, 3);
    if (f.length === 0) continue;
    for (const q of f) cite.add("studyCharacteristics", a.source, q);
    followParts.push(`${label(a)}: ${f.map((q) => quoted(q.quote)).join(", ")}`);
  }
  const followUpPeriods =
    followParts.length > 0
      ? `${followParts.join("; ")}.${followParts.length < n ? ` Not reported by ${n - followParts.length} of ${studiesWord}.` : ""}`
      : `Not reported in ${abstractsWord}.`;

  // Common themes.
  const commonThemes = themeLines(analysed, cite);
  if (commonThemes.length === 0)
    commonThemes.push(`No outcome or intervention is named often enough in ${abstractsWord} to be a theme.`);

  // Clinical recommendations.
  const recommendationQuotes = quoteList("clinicalRecommendations", (a) => a.facts.recommendations, 2);
  const evidenceBasedGuidance =
    recommendationQuotes.length > 0
      ? `The offline model gives no guidance of its own; recommendations stated in the abstracts: ${recommendationQuotes.join(" ")}`
      : `The offline model gives no guidance of its own, and none of ${abstractsWord} states a recommendation; see the authors' conclusions under clinical implications.`;
  const implementationConsiderations =
    "Not generated: the offline extractive model only quotes the abstracts and does not write implementation advice.";
  const selectionQuotes = quoteList("clinicalRecommendations", (a) =>
    a.facts.sentences
      .map((s, sentenceIndex) => ({ quote: s.text, start: s.start, end: s.end, sentenceIndex }))
      .filter((q) => q.start >= a.source.titleEnd && PATIENT_SELECTION.test(q.quote)),
  );
  const patientSelection =
    selectionQuotes.length > 0
      ? `Eligibility as described in the abstracts: ${selectionQuotes.join(" ")}`
      : `Not reported: none of ${abstractsWord} states eligibility criteria.`;
  const doseQuotes = quoteList("clinicalRecommendations", (a) => a.facts.doses);
  const dosageAndTiming =
    doseQuotes.length > 0 ? doseQuotes.join(" ") : `Not reported: no dose or schedule is stated in ${abstractsWord}.`;

  // Safety.
  const adverseQuotes = quoteList("safetyProfile", (a) => a.facts.adverseEvents, 2);
  const adverseEvents =
    adverseQuotes.length > 0
      ? adverseQuotes.join(" ")
      : `Not reported: none of ${abstractsWord} mentions adverse events or safety.`;
  const riskBenefitQuotes = quoteList("safetyProfile", (a) =>
    a.facts.sentences
      .map((s, sentenceIndex) => ({ quote: s.text, start: s.start, end: s.end, sentenceIndex }))
      .filter((q) => q.start >= a.source.titleEnd && RISK_BENEFIT.test(q.quote)),
  );
  const riskBenefitRatio =
    riskBenefitQuotes.length > 0
      ? `Stated in the abstracts: ${riskBenefitQuotes.join(" ")}`
      : `Not assessed: the offline model does not weigh benefits against harms, and none of ${abstractsWord} states a benefit–risk judgement.`;
  const contraQuotes = quoteList("safetyProfile", (a) =>
    a.facts.sentences
      .map((s, sentenceIndex) => ({ quote: s.text, start: s.start, end: s.end, sentenceIndex }))
      .filter((q) => q.start >= a.source.titleEnd && CONTRAINDICATION.test(q.quote)),
  );
  const contraindications = contraQuotes.length > 0 ? contraQuotes.join(" ") : `None stated in ${abstractsWord}.`;

  // Conflicts.
  const withCi = effects.filter(({ e }) => e.ci);
  const excluding = withCi.filter(({ e }) => excludesNoEffect(e));
  const studiesExcluding = new Set(excluding.map(({ a }) => a.source.number));
  const studiesIncluding = new Set(withCi.filter(({ e }) => !excludesNoEffect(e)).map(({ a }) => a.source.number));
  for (const { a, e } of withCi) cite.add("conflictsAndHeterogeneity", a.source, e);
  const conflictParts: string[] = [];
  if (withCi.length === 0) {
    conflictParts.push(
      `No effect estimate with a confidence interval was found in ${abstractsWord}, so agreement between the studies cannot be checked from the numbers.`,
    );
  } else {
    conflictParts.push(
      `Of ${plural(withCi.length, "effect estimate", "effect estimates")} with a confidence interval, ${excluding.length} exclude no effect (1 for ratios, 0 for differences) and ${withCi.length - excluding.length} include it.`,
    );
    const mixed =
      [...studiesExcluding].some((s) => !studiesIncluding.has(s)) &&
      [...studiesIncluding].some((s) => !studiesExcluding.has(s));
    if (mixed)
      conflictParts.push(
        "Some studies report only effects that exclude no effect and others only effects that include it, so their findings differ in statistical significance.",
      );
    conflictParts.push(
      "The estimates concern different outcomes and measures unless the quotes say otherwise, so they are not directly comparable.",
    );
  }
  const heterogeneityConflict = quoteList("conflictsAndHeterogeneity", (a) => a.facts.heterogeneity);
  if (heterogeneityConflict.length > 0)
    conflictParts.push(`Heterogeneity reported within studies: ${heterogeneityConflict.join(" ")}`);
  const conflictsAndHeterogeneity = conflictParts.join(" ");

  // Certainty.
  const designs = analysed.map((a) => a.facts.design);
  const strengthOfEvidence = offlineStrengthOfEvidence(designs);
  const randomised = designs.filter((d) => d !== null && RANDOMISED_OR_SYNTHESIS.includes(d)).length;
  const observational = designs.filter((d) => d !== null && OBSERVATIONAL.includes(d)).length;
  for (const a of analysed) {
    if (!a.facts.design || !RANDOMISED_OR_SYNTHESIS.includes(a.facts.design)) continue;
    const mention = a.facts.designMentions.find((m) => m.design === a.facts.design && m.weight > 0);
    if (mention) {
      cite.add("gradeAssessment", a.source, mention);
      cite.add("strengthOfEvidence", a.source, mention);
    }
  }
  const gradeAssessment = [
    "Not a formal GRADE rating.",
    `GRADE starts randomised evidence at high and observational evidence at low certainty (Guyatt et al., BMJ 2008): ${randomised} of ${studiesWord} ${randomised === 1 ? "is a randomised trial or a synthesis" : "are randomised trials or syntheses"}, ${observational} ${observational === 1 ? "is" : "are"} observational and ${n - randomised - observational} ${n - randomised - observational === 1 ? "has" : "have"} no recognised design.`,
    "Risk of bias, inconsistency, indirectness, imprecision and publication bias were not assessed.",
    `Strength of evidence: ${strengthOfEvidence}, by ${OFFLINE_STRENGTH_RULE}`,
  ].join(" ");

  const count = (test: (a: Analysed) => boolean) => analysed.filter(test).length;
  const studyQuality = [
    `How many of ${abstractsWord} report: a sample size, ${count((a) => a.facts.sampleSize !== null)}; an effect estimate with a confidence interval, ${count((a) => a.facts.effects.some((e) => e.ci !== null))}; p-values, ${count((a) => a.facts.pValues.length > 0)}; a named primary outcome, ${count((a) => a.facts.outcomes.some((o) => o.kind === "primary"))}; a follow-up or treatment duration, ${count((a) => a.facts.followUps.length > 0)}.`,
    "No risk-of-bias tool was applied: only abstracts were read.",
  ].join(" ");

  const conclusionQuotes = quoteList("clinicalImplications", (a) => a.facts.conclusions);
  const clinicalImplications =
    conclusionQuotes.length > 0
      ? `The authors conclude: ${conclusionQuotes.join(" ")}`
      : `None of ${abstractsWord} states a conclusion in a recognisable form.`;

  const limitationQuotes = quoteList("limitationsAndBiases", (a) => a.facts.limitations);
  const noAbstract = analysed.filter((a) => !a.source.hasAbstract);
  const limitationsAndBiases = [
    "This summary rests on abstracts only; full texts, protocols and risk of bias were not examined.",
    noAbstract.length > 0
      ? `${listJoin(noAbstract.map(label))} ${noAbstract.length === 1 ? "has" : "have"} no abstract, so only ${noAbstract.length === 1 ? "its title was" : "their titles were"} used.`
      : "",
    observational > 0
      ? `${plural(observational, "study is", "studies are")} observational and open to confounding.`
      : "",
    limitationQuotes.length > 0 ? `Limitations stated by the authors: ${limitationQuotes.join(" ")}` : "",
  ]
    .filter(Boolean)
    .join(" ");

  const futureResearchPriorities = quoteList("futureResearchPriorities", (a) => a.facts.futureResearch);
  if (futureResearchPriorities.length === 0)
    futureResearchPriorities.push(`None of ${abstractsWord} states a need for further research.`);

  return {
    executiveSummary,
    quantitativeFindings: { pooledEffectSize, statisticalHeterogeneity, sampleSizeTotal, keyOutcomes },
    studyCharacteristics: { designQuality, populationSummary, interventionDetails, followUpPeriods },
    commonThemes,
    clinicalRecommendations: { evidenceBasedGuidance, implementationConsiderations, patientSelection, dosageAndTiming },
    safetyProfile: { adverseEvents, riskBenefitRatio, contraindications },
    conflictsAndHeterogeneity,
    gradeAssessment,
    studyQuality,
    clinicalImplications,
    limitationsAndBiases,
    futureResearchPriorities,
    strengthOfEvidence,
    citations: cite.result(),
    generatedBy: OFFLINE_GENERATED_BY,
    unsupportedNumbers: [],
  };
}

/**
 * The offline summary as a growing object, the way a model's partial output grows: generatedBy
 * first, the executive summary one sentence at a time, then each section with its citations.
 */
export function offlineSnapshots(summary: CombinedSummary): PartialCombinedSummary[] {
  const snapshots: PartialCombinedSummary[] = [];
  const current: Record<string, unknown> = { generatedBy: summary.generatedBy };
  const citations: Partial<CombinedCitations> = {};
  const push = () =>
    snapshots.push(structuredClone({ ...current, citations: { ...citations } }) as PartialCombinedSummary);
  push();
  const pieces = summary.executiveSummary.match(
    /[^]*?(?:[.!?…]["”’)\]]*(?=\s+(?:Study \d+:\s)?[\p{Lu}\d“"(])|$)/gu,
  ) ?? [summary.executiveSummary];
  let text = "";
  for (const piece of pieces.filter((p) => p.length > 0)) {
    text += piece;
    current.executiveSummary = text.trimStart();
    push();
  }
  current.executiveSummary = summary.executiveSummary;
  citations.executiveSummary = summary.citations.executiveSummary;
  for (const section of COMBINED_SECTIONS) {
    if (section === "executiveSummary") continue;
    current[section] = summary[section];
    citations[section] = summary.citations[section];
    push();
  }
  current.unsupportedNumbers = summary.unsupportedNumbers;
  push();
  return snapshots;
}
