/**
 * The extractive full-text analysis (no language model): for each of the seven sections, the most
 * central sentences of the paper that carry that section's cue words, copied verbatim, under the
 * note that says so.
 */
import { ANALYSIS_SECTIONS, type AnalysisSection } from "./analysis-prompt";
import type { SectionKind } from "./prepare-text";

/** First line of an offline analysis. It is not from the source. */
export const OFFLINE_ANALYSIS_NOTE =
  "Offline extractive analysis (MetaMind offline model): every sentence below is quoted verbatim from the full text; nothing is paraphrased, inferred or computed.";
/** Body of a section for which no sentence of the source qualifies. It is not from the source. */
export const OFFLINE_NOTHING_FOUND = "No sentence of the full text addresses this.";

/** What makes a sentence belong to an analysis section. */
interface SectionRule {
  name: AnalysisSection;
  /** Cue patterns; a candidate must match at least one. */
  cues: RegExp[];
  /** Sections of the paper the sentence is preferred from (×1.5). */
  prefer: SectionKind[];
  /** Sentences picked at most. */
  max: number;
  /** Extra requirement. */
  require?: RegExp;
  /** Extra weight when this matches (×1.6). */
  boost?: RegExp;
  /** Less weight when this matches (×0.5). */
  damp?: RegExp;
  /** Paper sections whose first three sentences are candidates even without a cue. */
  home?: SectionKind[];
  /** Structured-abstract labels whose sentences are candidates without a cue (×2). */
  labels?: RegExp;
}

/** Statistics: percentages, CIs, p-values, ratios, sample sizes. */
const STATISTIC =
  /\d+(?:\.\d+)?\s*%|\b[pP]\s*[<=>≤≥]\s*\.?\d|\bCI\b|confidence interval|\b(?:a?OR|a?HR|RR|IRR|SMD|WMD|MD|NNT|RRR|ARR)\b|odds ratio|hazard ratio|risk ratio|relative risk|mean difference|±/;

const RULES: SectionRule[] = [
  {
    name: "Objective",
    cues: [
      /\b(?:aim(?:s|ed)?|objective|purpose|goal)\b/i,
      /^to (?:determine|assess|evaluate|examine|investigate|compare|estimate|test|explore|quantify|identify|describe)\b/i,
      /\bwe (?:aimed|sought|investigated|examined|assessed|evaluated|hypothesi[sz]ed|tested whether)\b/i,
      /\b(?:this|the present|our) (?:study|trial|review|meta-analysis|analysis) (?:aimed|aims|sought|was designed|examined|evaluated|assessed|investigated)\b/i,
      /\bhypothes[ie]s\b/i,
    ],
    prefer: ["front", "abstract", "introduction"],
    labels: /^(?:objectives?|aims?|purpose)$/,
    max: 1,
  },
  {
    name: "Design & Population",
    cues: [
      /\brandomi[sz]ed\b|\bcontrolled trial\b|\bcohort\b|\bcross-sectional\b|\bcase-control\b|\bmeta-analys[ie]s\b|\bsystematic review\b|\bprospective\b|\bretrospective\b|\bobservational\b|\bqualitative\b|\bfocus groups?\b|\bmulticent(?:re|er)\b|\bdouble-blind\b/i,
      /\b(?:participants|patients|subjects|women|men|adults|children|smokers|volunteers|individuals)\b.*\b(?:aged|were (?:recruited|enrolled|included|eligible|randomi[sz]ed))\b/i,
      /\b(?:recruited|enrolled|eligible|inclusion criteria|exclusion criteria)\b/i,
      /\b\d[\d,]*\s+(?:participants|patients|subjects|women|men|adults|children|individuals|people|studies|trials|RCTs)\b/i,
    ],
    prefer: ["front", "abstract", "methods"],
    labels:
      /^(?:design|settings?|participants|patients|design,? setting,? and participants|data sources|study selection|eligibility criteria|review methods)$/,
    max: 3,
  },
  {
    name: "Interventions / Exposures",
    cues: [
      /\b(?:intervention|interventions|placebo|control group|usual care|allocated|assigned|received|supplementation|supplemented|dose|doses|mg|sessions|exposure|exposed|treatment arm|comparator)\b/i,
    ],
    prefer: ["abstract", "methods"],
    labels: /^(?:interventions?|exposures?)$/,
    damp: STATISTIC,
    max: 2,
  },
  {
    name: "Outcomes & Effect Sizes",
    cues: [
      /\b(?:outcome|outcomes|associated|association|reduced|increased|decreased|improved|difference|effect|rate|rates|risk|abstinence|mortality|incidence|score|scores)\b/i,
    ],
    require: STATISTIC,
    boost: /\bCI\b|confidence interval|primary (?:outcome|end ?point)/i,
    prefer: ["abstract", "results"],
    max: 4,
  },
  {
    name: "Adverse Events",
    cues: [
      /\badverse (?:events?|effects?|reactions?|outcomes?)\b|\bside[ -]effects?\b|\bserious adverse\b|\bharms?\b|\bsafety\b|\btolerab|\bcomplications?\b|\btoxicit/i,
    ],
    prefer: ["abstract", "results"],
    max: 2,
  },
  {
    name: "Limitations",
    cues: [
      /\blimitations?\b|\blimited by\b|\bbias(?:es|ed)?\b|\bconfound|\bcaution\b|\bgenerali[sz]ab|\bunderpowered\b|\bsmall sample\b|\bshould be interpreted\b|\bweakness(?:es)?\b|\bnot (?:possible|able) to\b|\bcannot exclude\b|\bself[- ]report/i,
    ],
    prefer: ["discussion", "conclusion"],
    max: 2,
  },
  {
    name: "Conclusion",
    cues: [
      /\bconclu(?:de|ded|sion|sions)\b|\bin summary\b|\boverall\b|\btaken together\b|\b(?:findings|results|data) (?:suggest|indicate|show|support|demonstrate)\b|\bimplications?\b|\bshould (?:be )?(?:consider|offer|recommend)|\brecommend/i,
    ],
    prefer: ["abstract", "conclusion"],
    home: ["conclusion"],
    max: 2,
  },
];

/** The order in which sections pick their sentences. */
const SELECTION_ORDER: AnalysisSection[] = [
  "Objective",
  "Conclusion",
  "Outcomes & Effect Sizes",
  "Design & Population",
  "Interventions / Exposures",
  "Adverse Events",
  "Limitations",
];

const STOPWORDS = new Set(
  (
    "a about after all also an and any are as at be been between both but by can could did do does during each for from had has have " +
    "he her his how however if in into is it its may more most no not of on one or other our over she should so some such than that the " +
    "their them then there these they this those through to two under up was we were what when which while who will with would"
  ).split(" "),
);

function termsOf(text: string): string[] {
  return (text.toLowerCase().match(/\p{L}[\p{L}\p{N}-]+/gu) ?? []).filter((w) => w.length > 2 && !STOPWORDS.has(w));
}

/** Whether a sentence is prose worth quoting: complete, not a reference, table row or caption. */
export function isQuotable(text: string): boolean {
  const t = text.trim();
  const wordCount = t.split(/\s+/).length;
  if (wordCount < 8 || wordCount > 90 || t.length > 650) return false;
  if (!/[.!?]["')\]]?$/.test(t)) return false;
  if (!/^["'([]?[\p{Lu}\p{N}]/u.test(t)) return false;
  const letters = (t.match(/\p{L}/gu) ?? []).length;
  if (letters / t.replace(/\s/g, "").length < 0.55) return false;
  if (
    /\bdoi:|https?:\/\/|www\.|\bet al\.?,? ?\(?(?:19|20)\d{2}|\b(?:19|20)\d{2};\s*\d+|^\(?\d+\)?\s+\p{Lu}\p{Ll}+ \p{Lu}{1,3}[, ]/iu.test(
      t,
    )
  )
    return false;
  if (/^(?:table|fig(?:ure)?\.?)\s*\d/i.test(t) || /\b(?:table|fig(?:ure)?\.?)\s*\d+\s*\|/i.test(t)) return false;
  if (/\s\|\s|(?:\.\s){3,}|\s{2,}/.test(t)) return false;
  if (/copyright|©|licen[cs]e|all rights reserved|correspondence to|e-?mail/i.test(t)) return false;
  return true;
}

/**
 * Centroid centrality of each sentence: the sum of its TF-IDF cosine similarities to all other
 * sentences (degree centrality on the similarity graph, computed in linear time as u_i · Σ u_j − 1
 * with unit vectors u). Higher means more typical of the whole text. Also returns the unit vectors.
 */
function centrality(texts: string[]): { scores: number[]; units: Map<string, number>[] } {
  const docs = texts.map(termsOf);
  const df = new Map<string, number>();
  for (const d of docs) for (const t of new Set(d)) df.set(t, (df.get(t) ?? 0) + 1);
  const n = docs.length;
  const units = docs.map((d) => {
    const tf = new Map<string, number>();
    for (const t of d) tf.set(t, (tf.get(t) ?? 0) + 1);
    let norm = 0;
    for (const [t, f] of tf) {
      const w = f * Math.log((1 + n) / (1 + df.get(t)!));
      tf.set(t, w);
      norm += w * w;
    }
    norm = Math.sqrt(norm) || 1;
    for (const [t, w] of tf) tf.set(t, w / norm);
    return tf;
  });
  const sum = new Map<string, number>();
  for (const u of units) for (const [t, w] of u) sum.set(t, (sum.get(t) ?? 0) + w);
  const scores = units.map((u) => {
    let dot = 0;
    for (const [t, w] of u) dot += w * sum.get(t)!;
    return Math.max(0, dot - (u.size ? 1 : 0));
  });
  return { scores, units };
}

/** Cosine similarity of two unit vectors. */
function cosine(a: Map<string, number>, b: Map<string, number>): number {
  let dot = 0;
  for (const [t, w] of a) dot += w * (b.get(t) ?? 0);
  return dot;
}

/** Sentences chosen for one analysis section, in source order. */
export interface ExtractiveSection {
  name: AnalysisSection;
  sentences: { id: string; text: string }[];
}

/**
 * The extractive analysis: for each of the seven {@link ANALYSIS_SECTIONS}, the most central
 * quotable sentences ({@link isQuotable}) that contain one of the section's cue words (results
 * need a statistic; those with a confidence interval or about the primary outcome weigh more;
 * the first sentences of a "Conclusions" part and sentences under a matching structured-abstract
 * label such as "Objective" or "Design" count without a cue and weigh more), preferring sentences from the
 * matching parts of the paper (e.g. outcomes from the abstract and results). A sentence is used
 * once, and near-duplicates of a chosen sentence (TF-IDF cosine over 0.5) are skipped. Deterministic.
 */
export function extractiveAnalysis(
  sentences: readonly { id: string; text: string; section?: SectionKind; label?: string }[],
): ExtractiveSection[] {
  const quotable = sentences.filter((s) => isQuotable(s.text));
  const { scores, units } = centrality(quotable.map((s) => s.text));
  // Rank of each sentence within its run of the same paper section (0 = first sentence).
  const inRun: number[] = [];
  sentences.forEach((s, i) => {
    inRun.push(i > 0 && sentences[i - 1]!.section === s.section ? inRun[i - 1]! + 1 : 0);
  });
  const runRank = new Map(sentences.map((s, i) => [s.id, inRun[i]!]));
  const max = Math.max(1e-9, ...scores);
  const used = new Set<string>();
  // Sections with the most specific evidence choose first, so a conclusion that mentions adverse
  // events stays a conclusion; the output keeps the ANALYSIS_SECTIONS order.
  const chosenBy = new Map<AnalysisSection, ExtractiveSection>();
  for (const rule of SELECTION_ORDER.map((name) => RULES.find((r) => r.name === name)!)) {
    chosenBy.set(rule.name, pick(rule));
  }
  return ANALYSIS_SECTIONS.map((name) => chosenBy.get(name)!);

  function pick(rule: SectionRule): ExtractiveSection {
    const ranked = quotable
      .map((s, i) => {
        const cues = rule.cues.filter((re) => re.test(s.text)).length;
        const home = s.section !== undefined && rule.home?.includes(s.section) === true && runRank.get(s.id)! < 3;
        const labelled = s.label !== undefined && rule.labels?.test(s.label) === true;
        if ((cues === 0 && !home && !labelled) || (rule.require && !rule.require.test(s.text))) return null;
        let score = (0.2 + scores[i]! / max) * (1 + 0.25 * Math.max(0, cues - 1));
        if (s.section && rule.prefer.includes(s.section)) score *= 1.5;
        if (home) score *= 1.5;
        if (labelled) score *= 2;
        if (rule.boost?.test(s.text)) score *= 1.6;
        if (rule.damp?.test(s.text)) score *= 0.5;
        return { s, i, score };
      })
      .filter((x): x is { s: (typeof quotable)[number]; i: number; score: number } => x !== null)
      .sort((a, b) => b.score - a.score || a.i - b.i);
    const chosen: { s: (typeof quotable)[number]; i: number }[] = [];
    for (const c of ranked) {
      if (chosen.length === rule.max) break;
      if (used.has(c.s.id) || chosen.some((k) => cosine(units[k.i]!, units[c.i]!) > 0.5)) continue;
      chosen.push(c);
      used.add(c.s.id);
    }
    chosen.sort((a, b) => a.i - b.i);
    return { name: rule.name, sentences: chosen.map((c) => ({ id: c.s.id, text: c.s.text })) };
  }
}

/** Renders an extractive analysis as text: the note, then "### <section>" and its quoted sentences. */
export function formatExtractiveAnalysis(sections: readonly ExtractiveSection[]): string {
  const parts = [OFFLINE_ANALYSIS_NOTE];
  for (const section of sections) {
    const body = section.sentences.length
      ? section.sentences.map((s) => s.text.replace(/\s+/g, " ")).join(" ")
      : OFFLINE_NOTHING_FOUND;
    parts.push(`### ${section.name}\n${body}`);
  }
  return parts.join("\n\n");
}
