/**
 * A table of an invented trial report, written as the annotated reports write tables (pandoc
 * markdown: a `::::table-wrap` block with its caption, then a pipe table), for the arm-extraction
 * tests (app/lib/arms/*.test.ts).
 */
export function pipeTable(caption: string, header: string[], rows: string[][]): string {
  return [
    "::::table-wrap",
    "::: caption",
    caption,
    ":::",
    "",
    `| ${header.join(" | ")} |`,
    `|${header.map(() => "---").join("|")}|`,
    ...rows.map((r) => `| ${r.join(" | ")} |`),
    "::::",
    "",
  ].join("\n");
}
