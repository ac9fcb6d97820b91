import { type RawCell, ReportBuilder, type TrialReport } from "./model.ts";

const GAP = / {2,}|\t+/;
const SECTION =
  /^(abstract|background|introduction|methods?|materials and methods|patients and methods|results?|discussion|conclusions?|references|acknowledg\w*)\s*:?\s*$/i;

function isTableLine(line: string): boolean {
  const cells = line.trim().split(GAP);
  return cells.length >= 3 && cells.slice(1).some((cell) => /\d/.test(cell));
}

/**
 * Parses plain text (typed, pasted, or extracted from a PDF by unpdf) into a {@link TrialReport}.
 * Paragraphs are separated by blank lines (single line breaks inside a paragraph are joined, with
 * hyphenation at a line end undone); a run of three or more lines whose cells are separated by two
 * or more spaces or tabs, following a "Table N" line when there is one, becomes a table whose first
 * line is its header.
 */
export function parseText(text: string): TrialReport {
  const builder = new ReportBuilder();
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  let section = "";
  let paragraph: string[] = [];
  let pendingCaption = "";
  const flush = () => {
    if (paragraph.length)
      builder.addParagraph(
        section,
        paragraph
          .join("\n")
          .replace(/(\w)-\n(\w)/g, "$1$2")
          .replace(/\n/g, " "),
      );
    paragraph = [];
  };
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i];
    if (!line.trim()) {
      flush();
      continue;
    }
    if (SECTION.test(line.trim())) {
      flush();
      section = line.trim().replace(/:$/, "");
      builder.addParagraph(section, section);
      continue;
    }
    if (/^\s*table\s+\d+\b/i.test(line) && !isTableLine(line)) {
      flush();
      pendingCaption = line.trim();
      builder.addParagraph(section, pendingCaption);
      continue;
    }
    if (isTableLine(line)) {
      let j = i;
      while (j < lines.length && (isTableLine(lines[j]) || (lines[j].trim() && lines[j].trim().split(GAP).length >= 2)))
        j += 1;
      if (j - i >= 3) {
        flush();
        const header =
          i > 0 && lines[i - 1].trim() && lines[i - 1].trim().split(GAP).length >= 2 && paragraph.length
            ? (paragraph.pop() ?? null)
            : null;
        flush();
        const rows: RawCell[][] = [];
        if (header)
          rows.push(
            ["", ...header.trim().split(GAP)]
              .slice(header.trim().split(GAP).length >= 3 ? 1 : 0)
              .map((cell) => ({ text: cell })),
          );
        for (let k = i; k < j; k += 1)
          rows.push(
            lines[k]
              .trim()
              .split(GAP)
              .map((cell) => ({ text: cell })),
          );
        const label = /^(table\s+\d+)/i.exec(pendingCaption);
        builder.addTable({ label: label?.[1], caption: pendingCaption, rows, headerRows: 1 });
        pendingCaption = "";
        i = j - 1;
        continue;
      }
    }
    paragraph.push(line.trim());
  }
  flush();
  return builder.build();
}
