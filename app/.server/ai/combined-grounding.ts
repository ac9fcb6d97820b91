/**
 * Combined research summaries, grounding a model's output in the sources: inline "[T1.S3]" markers
 * move into the citations, citation ids that name no source sentence are dropped, and numbers that
 * occur in no source are marked `⟦unverified: …⟧` (grounding.ts `flagUnsupportedNumbers`).
 */
import { joinedTextFacts } from "~/lib/extraction/facts";
import {
  COMBINED_SECTIONS,
  CombinedSummarySchema,
  SOURCE_SENTENCE_ID,
  type CombinedCitations,
  type CombinedSection,
  type CombinedSummary,
  type CombinedSummaryModelOutput,
  type PartialCombinedSummary,
} from "~/lib/combined-summary";
import { flagUnsupportedNumbers, type SourceSentence } from "./grounding";
import type { CitationSource } from "~/lib/combined-summary";
import type { StudySource } from "./combined-sources";

/** An inline citation marker a model may leave in text: "[T1.S3]", "(T1.S3, T2.S4)". */
const INLINE_MARKER = /\s*[[(]\s*T\d+\.S\d+(?:\s*[,;]\s*T\d+\.S\d+)*\s*[\])]/g;
/** Text that names studies or sentence ids, whose digits are labels, not data ("Study 2", "Studies 1 and 3", "T2.S5"). */
const LABEL = /\b(?:[Ss]tud(?:y|ies)|[Tt]rials?)\s+\d+(?:\s*(?:,|and|&|–|-|to)\s*\d+)*\b|\bT\d+(?:\.S\d+)?\b/g;

/** Every run of digits and separators of the sources, one per line: the numbers `flagUnsupportedNumbers` compares with. */
function numberSourceOf(sources: readonly StudySource[], extra: readonly number[]): string {
  const runs: string[] = [];
  for (const s of sources)
    runs.push(...(s.text.match(/[\d.,\u00a0\u2009\u202f ]*\d[\d.,\u00a0\u2009\u202f ]*/g) ?? []));
  return [...runs, ...extra.map(String)].join("\n");
}

/** Flags unsupported numbers outside study labels; returns the text and the unsupported tokens. */
function flagNumbers(text: string, numberSource: string): { text: string; unsupported: string[] } {
  let out = "";
  const unsupported: string[] = [];
  let last = 0;
  const flagPart = (part: string) => {
    const flagged = flagUnsupportedNumbers(part, numberSource);
    for (const u of flagged.unsupported) if (!unsupported.includes(u)) unsupported.push(u);
    return flagged.text;
  };
  for (const m of text.matchAll(LABEL)) {
    out += flagPart(text.slice(last, m.index)) + m[0];
    last = m.index + m[0].length;
  }
  out += flagPart(text.slice(last));
  return { text: out, unsupported };
}

/** The sum of the studies' extracted sample sizes, the one number a summary may compute. */
function extractedSampleTotal(sources: readonly StudySource[]): number[] {
  const sizes = sources.map((s) => joinedTextFacts(s).sampleSize?.value).filter((v): v is number => v !== undefined);
  return sizes.length > 1 ? [sizes.reduce((a, b) => a + b, 0)] : [];
}

type Grounder = (partial: PartialCombinedSummary) => { summary: PartialCombinedSummary; unsupported: string[] };

/**
 * Makes the post-processor for a model's (partial or complete) object: in every string, inline
 * "[T1.S3]" markers are removed and added to that section's citations, and numbers that occur in
 * no source are wrapped as ⟦unverified: …⟧ (digits in "Study 2" / "T2.S5" labels are not data;
 * study counts 1…n and the sum of the extracted sample sizes count as supported); citation ids
 * are kept only when they name a sentence of the sources, once each.
 */
export function makeGrounder(sources: readonly StudySource[]): Grounder {
  const known = new Set(sources.flatMap((s) => s.sentences.map((x) => x.id)));
  const numberSource = numberSourceOf(sources, [...sources.map((s) => s.number), ...extractedSampleTotal(sources)]);
  return (partial) => {
    const unsupported: string[] = [];
    const inline = new Map<CombinedSection, string[]>();
    const clean = (section: CombinedSection, value: unknown): unknown => {
      if (typeof value === "string") {
        let text = value;
        for (const m of value.matchAll(INLINE_MARKER)) {
          const list = inline.get(section) ?? [];
          list.push(...(m[0].match(/T\d+\.S\d+/g) ?? []));
          inline.set(section, list);
        }
        text = text.replace(INLINE_MARKER, "");
        const flagged = flagNumbers(text, numberSource);
        for (const u of flagged.unsupported) if (!unsupported.includes(u)) unsupported.push(u);
        return flagged.text;
      }
      if (Array.isArray(value)) return value.map((v) => clean(section, v));
      if (value && typeof value === "object") {
        return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, clean(section, v)]));
      }
      return value;
    };
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(partial)) {
      if (
        key === "citations" ||
        key === "strengthOfEvidence" ||
        key === "generatedBy" ||
        key === "unsupportedNumbers"
      ) {
        out[key] = value;
      } else if ((COMBINED_SECTIONS as readonly string[]).includes(key)) {
        out[key] = clean(key as CombinedSection, value);
      }
    }
    const given = (partial.citations ?? {}) as Partial<Record<CombinedSection, (string | undefined)[]>>;
    if (partial.citations || inline.size > 0) {
      const citations: Partial<Record<CombinedSection, string[]>> = {};
      for (const section of COMBINED_SECTIONS) {
        const ids = [...(given[section] ?? []), ...(inline.get(section) ?? [])]
          .filter((id): id is string => typeof id === "string")
          .map((id) => id.trim().toUpperCase())
          .filter((id) => SOURCE_SENTENCE_ID.test(id) && known.has(id));
        if (given[section] !== undefined || ids.length > 0) citations[section] = [...new Set(ids)];
      }
      out.citations = citations;
    }
    return { summary: out as PartialCombinedSummary, unsupported };
  };
}

/**
 * Turns a model's validated object into the final {@link CombinedSummary} (see
 * {@link makeGrounder}); `generatedBy` is the model's name.
 */
export function groundModelSummary(
  output: CombinedSummaryModelOutput,
  sources: readonly StudySource[],
  modelName: string,
): CombinedSummary {
  const { summary, unsupported } = makeGrounder(sources)(output);
  const citations = {} as CombinedCitations;
  for (const section of COMBINED_SECTIONS)
    citations[section] = summary.citations?.[section]?.filter((id): id is string => !!id) ?? [];
  return CombinedSummarySchema.parse({
    ...summary,
    citations,
    generatedBy: modelName,
    unsupportedNumbers: unsupported,
  });
}

/** Resolves every cited id of `summary` to its sentence. Unknown ids are skipped. */
export function resolveCitationSources(
  summary: Pick<CombinedSummary, "citations">,
  sources: readonly StudySource[],
): Record<string, CitationSource> {
  const byId = new Map<string, { source: StudySource; sentence: SourceSentence }>();
  for (const source of sources) for (const sentence of source.sentences) byId.set(sentence.id, { source, sentence });
  const out: Record<string, CitationSource> = {};
  for (const section of COMBINED_SECTIONS) {
    for (const id of summary.citations[section] ?? []) {
      const hit = byId.get(id);
      if (!hit || out[id]) continue;
      out[id] = {
        id,
        study: hit.source.number,
        studyId: hit.source.id,
        quote: hit.sentence.text,
        start: hit.sentence.start,
        end: hit.sentence.end,
      };
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
