/**
 * Grounding a full-text analysis in its paper (ai/grounding.ts): [Sx] markers become citations,
 * verbatim copies are cited, numbers missing from the paper are flagged, the offline model's own
 * lines are labelled as framing.
 */
import { FRAMING_OPEN, groundText, MARKUP_CLOSE, type Citation } from "../ai/grounding";
import type { FullTextPrompt } from "./analysis-prompt";
import { OFFLINE_ANALYSIS_NOTE, OFFLINE_NOTHING_FOUND } from "./extractive-analysis";

/** A finished full-text analysis. */
export interface FullTextAnalysisResult {
  /** Grounded text: "### " sections, no [Sx] markers, ⟦unverified: …⟧ and ⟦framing: …⟧ markup. */
  text: string;
  citations: Citation[];
  /** Number tokens not found in the paper. */
  unsupported: string[];
  modelName: string;
}

/** Lines that are the model's own framing rather than claims from the paper. */
function labelFraming(text: string): string {
  return text
    .split("\n")
    .map((line) => {
      const t = line.trim();
      return t === OFFLINE_ANALYSIS_NOTE || t === OFFLINE_NOTHING_FOUND ? `${FRAMING_OPEN}${t}${MARKUP_CLOSE}` : line;
    })
    .join("\n");
}

/**
 * Grounds a model's raw analysis against the numbered paper: the offline note and "nothing found"
 * lines are labelled as framing, numbers missing from the paper are flagged, [Sx] markers become
 * citations (or, for the extractive model, verbatim copies are cited).
 */
export function groundFullTextAnalysis(
  raw: string,
  prompt: Pick<FullTextPrompt, "sentences" | "source">,
  modelName: string,
): FullTextAnalysisResult {
  const grounded = groundText(labelFraming(raw.trim()), prompt.sentences, prompt.source);
  const citations = grounded.citations.map(({ id, quote, start, end, anchors }) => ({
    id,
    quote,
    start,
    end,
    anchors,
  }));
  return { text: grounded.text, citations, unsupported: grounded.unsupported, modelName };
}
