/**
 * The character budget of a full-text analysis: a prepared paper cut to fit, the abstract, results
 * and discussion first, the references always dropped, each gap marked.
 */
import { detectSections, type SectionKind } from "./prepare-text";

/** The default character budget of the analysed text (about 15k tokens). */
export const DEFAULT_TEXT_BUDGET = 60_000;
/** Marks where text was left out. Contains no letters or digits, so it never becomes a sentence. */
export const OMISSION_MARK = "[…]";
/** Order in which sections get the budget. */
const PRIORITY: SectionKind[] = [
  "front",
  "abstract",
  "results",
  "conclusion",
  "discussion",
  "introduction",
  "methods",
  "other",
  "backmatter",
];
/** The front matter (title, authors, often the abstract) gets at most this much. */
const FRONT_CAP = 8000;

/** The longest prefix of `text` within `limit` characters that ends at a paragraph or sentence end. */
function cutAtBoundary(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const head = text.slice(0, limit);
  const paragraph = head.lastIndexOf("\n\n");
  if (paragraph > limit * 0.6) return head.slice(0, paragraph);
  const sentence = Math.max(head.lastIndexOf(". "), head.lastIndexOf(".\n"));
  return sentence > 0 ? head.slice(0, sentence + 1) : head;
}

export interface BudgetedText {
  text: string;
  /** Whether anything besides the reference list was left out. */
  truncated: boolean;
}

/**
 * Cuts a prepared text to `maxChars`. The reference list is always dropped. Within budget the
 * rest is kept whole; over it, sections are admitted in the order front matter (capped at 8,000
 * characters), abstract, results, conclusions, discussion, introduction, methods, other, back
 * matter; a section that does not fit is cut at a paragraph or sentence end when at least 400
 * characters remain. Kept parts stay in document order; each gap is marked {@link OMISSION_MARK}.
 */
export function budgetFullText(prepared: string, maxChars: number = DEFAULT_TEXT_BUDGET): BudgetedText {
  const sections = detectSections(prepared).filter((s) => s.kind !== "references");
  const pieces = sections.map((s) => prepared.slice(s.start, s.end).trim());
  const whole = pieces.join("\n\n");
  if (whole.length <= maxChars) return { text: whole, truncated: false };

  const kept = new Array<string | null>(sections.length).fill(null);
  let left = maxChars;
  for (const kind of PRIORITY) {
    sections.forEach((section, i) => {
      const wanted = section.kind === kind || (kind === "other" && !PRIORITY.includes(section.kind));
      if (!wanted || kept[i] !== null || left < 400) return;
      const cap = section.kind === "front" ? Math.min(left, FRONT_CAP) : left;
      const piece = cutAtBoundary(pieces[i]!, cap);
      if (piece.length < 200 && piece.length < pieces[i]!.length) return;
      kept[i] = piece;
      left -= piece.length + 2;
    });
  }
  const out: string[] = [];
  kept.forEach((piece, i) => {
    if (piece === null) {
      if (out[out.length - 1] !== OMISSION_MARK) out.push(OMISSION_MARK);
      return;
    }
    out.push(piece);
    if (piece.length < pieces[i]!.length) out.push(OMISSION_MARK);
  });
  while (out[out.length - 1] === OMISSION_MARK) out.pop();
  return { text: out.join("\n\n"), truncated: true };
}
