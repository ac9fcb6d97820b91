/**
 * The sections of an upload report (issue 16), one shape for every kind of content so the modal,
 * the copied text and the downloaded HTML say the same thing: a combined summary's structure
 * (sections, their fields as sub-headings, lists) with its sources named by study title; the
 * structured bulk analysis; or a text split at its headings. Pure: plain data in and out.
 */
import { COMBINED_HEADINGS } from "./combined-headings";
import { asStructured, splitSections, stripMarkup, structuredSections } from "./uploads";

/** A part of a section: an optional sub-heading, then text (may hold Markdown) or a list. */
export interface ReportBlock {
  heading?: string;
  text?: string;
  items?: string[];
}

/** The sentences of one study a section rests on. */
export interface ReportSource {
  /** 1-based study number in the report ("Study 2"). */
  study: number;
  title: string;
  /** 1-based sentence numbers within the study's title + abstract (1 = the title). */
  sentences: number[];
  /** The sentences themselves, when known. */
  quotes: string[];
}

export interface ReportSection {
  title: string;
  blocks: ReportBlock[];
  sources: ReportSource[];
}

type CombinedKey = keyof typeof COMBINED_HEADINGS;

/** Sections of a combined summary in reading order, with the fields of the nested ones. */
const COMBINED_LAYOUT: { section: CombinedKey; fields?: CombinedKey[] }[] = [
  { section: "executiveSummary" },
  {
    section: "quantitativeFindings",
    fields: ["pooledEffectSize", "statisticalHeterogeneity", "sampleSizeTotal", "keyOutcomes"],
  },
  {
    section: "studyCharacteristics",
    fields: ["designQuality", "populationSummary", "interventionDetails", "followUpPeriods"],
  },
  { section: "commonThemes" },
  {
    section: "clinicalRecommendations",
    fields: ["evidenceBasedGuidance", "implementationConsiderations", "patientSelection", "dosageAndTiming"],
  },
  { section: "safetyProfile", fields: ["adverseEvents", "riskBenefitRatio", "contraindications"] },
  { section: "conflictsAndHeterogeneity" },
  { section: "gradeAssessment" },
  { section: "studyQuality" },
  { section: "clinicalImplications" },
  { section: "limitationsAndBiases" },
  { section: "futureResearchPriorities" },
];

const SENTENCE_ID = /^T(\d+)\.S(\d+)$/;

/** Whether `value` looks like a combined summary (executiveSummary text and a citations object). */
export function isCombinedSummary(
  value: unknown,
): value is Record<string, unknown> & { citations: Record<string, unknown> } {
  return (
    !!value &&
    typeof value === "object" &&
    typeof (value as { executiveSummary?: unknown }).executiveSummary === "string" &&
    !!(value as { citations?: unknown }).citations &&
    typeof (value as { citations?: unknown }).citations === "object" &&
    typeof (value as { quantitativeFindings?: unknown }).quantitativeFindings === "object"
  );
}

const strings = (value: unknown): string[] =>
  Array.isArray(value)
    ? value.filter((v): v is string => typeof v === "string" && v.trim() !== "").map(stripMarkup)
    : [];

function block(value: unknown, heading?: string): ReportBlock | null {
  if (Array.isArray(value)) {
    const items = strings(value);
    return items.length ? { ...(heading ? { heading } : {}), items } : null;
  }
  if (typeof value === "string" && value.trim()) return { ...(heading ? { heading } : {}), text: stripMarkup(value) };
  return null;
}

/**
 * Groups sentence ids ("T2.S5") by study, each named by its title (`studies[n - 1]`), sentence
 * numbers ascending, with the quoted sentence when `quotes` has it. Unknown ids are skipped.
 */
export function sourcesByTitle(
  ids: readonly string[],
  studies: readonly { title: string }[],
  quotes: Readonly<Record<string, { quote?: string }>> = {},
): ReportSource[] {
  const byStudy = new Map<number, ReportSource>();
  for (const id of ids) {
    const m = SENTENCE_ID.exec(id);
    if (!m) continue;
    const study = Number(m[1]);
    const title = studies[study - 1]?.title;
    if (!title) continue;
    const source = byStudy.get(study) ?? { study, title, sentences: [], quotes: [] };
    const sentence = Number(m[2]);
    if (!source.sentences.includes(sentence)) {
      source.sentences.push(sentence);
      const quote = quotes[id]?.quote;
      if (quote) source.quotes.push(quote);
    }
    byStudy.set(study, source);
  }
  return [...byStudy.values()]
    .sort((a, b) => a.study - b.study)
    .map((s) => {
      const order = s.sentences.map((n, i) => ({ n, q: s.quotes[i] })).sort((a, b) => a.n - b.n);
      return {
        ...s,
        sentences: order.map((o) => o.n),
        quotes: s.quotes.length === s.sentences.length ? order.map((o) => o.q!) : s.quotes,
      };
    });
}

/** "“Title” (sentences 3 and 5)" — a source as one line of text. */
export function sourceLine(source: ReportSource): string {
  const n = source.sentences;
  const list = n.length === 1 ? `sentence ${n[0]}` : `sentences ${n.slice(0, -1).join(", ")} and ${n[n.length - 1]}`;
  return `“${source.title}” (${list})`;
}

/** The sections of a combined summary: its fields as sub-headed blocks, its sources by study title. */
export function combinedReportSections(
  summary: Record<string, unknown> & { citations: Record<string, unknown> },
  studies: readonly { title: string }[],
  quotes: Readonly<Record<string, { quote?: string }>> = {},
): ReportSection[] {
  const sections: ReportSection[] = [];
  for (const { section, fields } of COMBINED_LAYOUT) {
    const value = summary[section];
    const blocks: ReportBlock[] = [];
    if (fields && value && typeof value === "object" && !Array.isArray(value)) {
      for (const f of fields) {
        const b = block((value as Record<string, unknown>)[f], COMBINED_HEADINGS[f]);
        if (b) blocks.push(b);
      }
    } else {
      const b = block(value);
      if (b) blocks.push(b);
    }
    if (blocks.length === 0) continue;
    sections.push({
      title: COMBINED_HEADINGS[section],
      blocks,
      sources: sourcesByTitle(strings(summary.citations[section]), studies, quotes),
    });
  }
  return sections;
}

/**
 * The sections of any report content: a combined summary (structured, sources by title), the
 * structured bulk analysis, or text split at its headings (`defaultTitle` before the first).
 */
export function reportSections(
  content: unknown,
  studies: readonly { title: string }[],
  defaultTitle: string,
  quotes: Readonly<Record<string, { quote?: string }>> = {},
): ReportSection[] {
  if (isCombinedSummary(content)) return combinedReportSections(content, studies, quotes);
  const structured = asStructured(content);
  const plain = structured
    ? structuredSections(structured)
    : splitSections(stripMarkup(typeof content === "string" ? content : ""), defaultTitle);
  return plain.map((s) => ({ title: s.title, blocks: [{ text: s.body }], sources: [] }));
}

/** The sections as plain text (for the clipboard): headings, sub-headings, "- " items, "Sources:" lines. */
export function reportPlainText(sections: readonly ReportSection[]): string {
  return sections
    .map((s) => {
      const lines = [s.title];
      for (const b of s.blocks) {
        if (b.heading) lines.push(`${b.heading}:`);
        if (b.text) lines.push(b.text);
        for (const item of b.items ?? []) lines.push(`- ${item}`);
      }
      if (s.sources.length) lines.push(`Sources: ${s.sources.map(sourceLine).join("; ")}`);
      return lines.join("\n");
    })
    .join("\n\n");
}
