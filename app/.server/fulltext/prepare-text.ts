/**
 * Preparing a paper's full text for analysis (SPEC §7 analyze-fulltext): PDF line wrapping, running
 * heads and hyphenation undone ({@link prepareFullText}), headings recognised as canonical section
 * kinds ({@link headingKind}, structured-abstract labels) and the text split into those sections
 * ({@link detectSections}).
 */

/** Canonical section kinds of a paper. */
export type SectionKind =
  | "front"
  | "abstract"
  | "introduction"
  | "methods"
  | "results"
  | "discussion"
  | "conclusion"
  | "references"
  | "backmatter"
  | "other";

const HEADING_KINDS: [RegExp, SectionKind][] = [
  [/^(?:abstract|summary|structured abstract)$/, "abstract"],
  [/^(?:introduction|background|rationale)$/, "introduction"],
  [
    /^(?:methods?|materials? and methods|patients and methods|subjects and methods|methodology|study design|design and methods|experimental (?:procedures|section)|statistical analysis)$/,
    "methods",
  ],
  [/^(?:results?|findings|results and discussion)$/, "results"],
  [
    /^(?:discussion|comment|limitations|strengths and limitations(?: of (?:this|the) study)?|general discussion)$/,
    "discussion",
  ],
  [/^(?:conclusions?|concluding remarks|implications|interpretation)$/, "conclusion"],
  [/^(?:references|bibliography|literature cited|works cited|reference list)$/, "references"],
  [
    /^(?:acknowledg(?:e)?ments?|funding(?: statement)?|conflicts? of interests?|competing interests?|declaration of (?:competing )?interests?|disclosures?|authors?'? contributions?|contributors|data (?:availability|sharing)(?: statement)?|supplementary (?:material|materials|data|information)|supporting information|abbreviations|ethics(?: statement)?|ethical approval|trial registration|copyright|open access|provenance and peer review)$/,
    "backmatter",
  ],
];

/**
 * The section kind of a line that is a section heading ("Results", "2. Methods", "IV. DISCUSSION",
 * "Conclusions:"), or null. Headings are short lines made only of a known section name with an
 * optional number.
 */
export function headingKind(line: string): SectionKind | null {
  const t = line.trim();
  if (t.length === 0 || t.length > 70) return null;
  const name = t
    .replace(/^(?:\d{1,2}(?:\.\d{1,2})*\.?|[IVX]{1,4}\.)\s+/, "")
    .replace(/[:.]$/, "")
    .replace(/\s+/g, " ")
    .toLowerCase()
    .replace(/’/g, "'");
  for (const [re, kind] of HEADING_KINDS) if (re.test(name)) return kind;
  return null;
}

/** Labels of structured abstracts ("Design", "Main outcome measures"); not sections of their own. */
const ABSTRACT_LABEL =
  /^(?:objectives?|aims?|purpose|design|settings?|participants|patients|interventions?|exposures?|main outcome measures?|main outcomes? and measures?|outcome measures|measurements|data sources|study selection|data extraction|data synthesis|review methods|eligibility criteria|design,? setting,? and participants|what is already known on this topic|what this study adds)$/;

/** Whether a line is only a structured-abstract label ({@link ABSTRACT_LABEL}), in any letter case. */
export function isAbstractLabel(line: string): boolean {
  return ABSTRACT_LABEL.test(line.trim().replace(/[:.]$/, "").replace(/\s+/g, " ").toLowerCase());
}

/** "COnClusiOn" (small capitals as PDF.js reads them) → "Conclusion"; "2. METHODS" → "2. Methods". */
function canonicalHeading(line: string): string {
  const t = line.replace(/\s+/g, " ").trim();
  const lower = t.toLowerCase();
  const first = lower.search(/\p{L}/u);
  return first < 0 ? t : lower.slice(0, first) + lower[first]!.toUpperCase() + lower.slice(first + 1);
}

/**
 * Turns extracted full text into clean paragraphs for analysis:
 * - lines repeated 3+ times, digits aside (running heads and feet such as "the bmj | BMJ
 *   2015;350:h2145" or "Rehabilitation Research and Practice 5"), and lines that are only a page
 *   number are removed;
 * - wrapped lines are joined with a space; a word hyphenated across lines ("inter-\nvention") is
 *   joined without the hyphen when the joined word occurs elsewhere in the text, else with it;
 * - section headings ({@link headingKind}) and structured-abstract labels ({@link isAbstractLabel})
 *   stand alone between blank lines, in canonical letter case ("COnClusiOn" → "Conclusion");
 *   blank lines remain paragraph breaks.
 * The result's sentences are what is analysed and quoted, so citations point into it.
 */
export function prepareFullText(raw: string): string {
  const lines = raw
    .replace(/\r\n?/g, "\n")
    .replace(/\u00ad/g, "")
    .split("\n")
    .map((l) => l.replace(/[^\S\n]+/g, " ").trim());
  // Running heads and feet repeat on every page, often with the page number changing.
  const key = (l: string) => l.replace(/\d+/g, "#");
  const counts = new Map<string, number>();
  for (const l of lines) if (l.length >= 4 && l.length <= 120) counts.set(key(l), (counts.get(key(l)) ?? 0) + 1);
  const words = new Set(raw.toLowerCase().match(/\p{L}{3,}/gu) ?? []);

  const paragraphs: string[] = [];
  let current = "";
  const flush = () => {
    if (current.trim()) paragraphs.push(current.trim());
    current = "";
  };
  for (const line of lines) {
    if (line === "") {
      flush();
      continue;
    }
    if ((counts.get(key(line)) ?? 0) >= 3 && headingKind(line) === null && !isAbstractLabel(line)) continue;
    if (/^(?:page\s*)?\d{1,4}(?:\s*(?:of|\/)\s*\d{1,4})?$/i.test(line)) continue;
    if (headingKind(line) !== null || isAbstractLabel(line)) {
      flush();
      paragraphs.push(canonicalHeading(line));
      continue;
    }
    if (current === "") {
      current = line;
      continue;
    }
    const hyphen = /(\p{L}+)-$/u.exec(current.slice(-60));
    const next = /^(\p{Ll}+)/u.exec(line);
    if (hyphen && next) {
      const joined = (hyphen[1]! + next[1]!).toLowerCase();
      current = words.has(joined) ? current.slice(0, -1) + line : current + line;
    } else {
      current += " " + line;
    }
  }
  flush();
  return paragraphs.join("\n\n");
}

/** A section of a prepared text: `text.slice(start, end)`, starting at its heading (if any). */
export interface TextSection {
  kind: SectionKind;
  heading: string | null;
  start: number;
  end: number;
}

/** Splits a {@link prepareFullText} text at its heading paragraphs; text before the first heading is "front". */
export function detectSections(text: string): TextSection[] {
  const sections: TextSection[] = [];
  let kind: SectionKind = "front";
  let heading: string | null = null;
  let start = 0;
  const re = /(?:^|\n\n)([^\n]+)(?=\n\n|$)/g;
  for (const m of text.matchAll(re)) {
    const k = headingKind(m[1]!);
    if (!k) continue;
    const at = m.index + (m[0].startsWith("\n\n") ? 2 : 0);
    if (at > start) sections.push({ kind, heading, start, end: at });
    kind = k;
    heading = m[1]!;
    start = at;
  }
  if (text.length > start) sections.push({ kind, heading, start, end: text.length });
  return sections;
}
