import { useCallback, useMemo } from "react";
import { buildExport, exportFileName, exportJsonText, reportFileName } from "~/lib/meta-analysis/page-logic";
import { buildReportHtml } from "~/components/meta-analysis/report-html";
import { toast } from "~/browser/toast";
import { withUserHtmlCsp } from "~/lib/user-html";
import { downloadText } from "~/browser/download";
import type { DoneRun } from "./types";

/**
 * The report of a finished run: its default title ("Meta-analysis: outcomes", at most 100
 * characters), `buildHtml` (the self-contained HTML report with the chosen subgroups and
 * moderators), the HTML the results dialog shows (built only while `resultsOpen`), Download Report
 * and Export Results (HTML or JSON; downloads carry the user-HTML CSP). Without a finished run
 * everything is empty and the actions do nothing.
 */
export function useReport(
  done: DoneRun | null,
  subgroups: Record<number, string | null>,
  moderators: Record<number, string[]>,
  resultsOpen: boolean,
) {
  const reportTitle = done
    ? `Meta-analysis: ${done.result.analyses.map((a) => a.outcome).join(", ") || `${done.studyIds.length} studies`}`.slice(
        0,
        100,
      )
    : "";
  const buildHtml = useCallback(
    (title: string, description: string) =>
      done
        ? buildReportHtml({
            title,
            description,
            result: done.result,
            options: done.options,
            generatedAt: done.finishedAt,
            subgroups,
            moderators,
          })
        : "",
    [done, subgroups, moderators],
  );
  const reportHtml = useMemo(
    () => (resultsOpen && done ? buildHtml(reportTitle, "") : ""),
    [resultsOpen, done, buildHtml, reportTitle],
  );

  function downloadReport() {
    if (!done) return;
    downloadText(reportFileName(), withUserHtmlCsp(buildHtml(reportTitle, "")), "text/html;charset=utf-8");
    toast({ title: "Download Started", description: "Your meta-analysis report is downloading." });
  }

  function exportResults(format: "html" | "json") {
    if (!done) return;
    if (format === "html")
      downloadText(exportFileName("html"), withUserHtmlCsp(buildHtml(reportTitle, "")), "text/html;charset=utf-8");
    else
      downloadText(exportFileName("json"), exportJsonText(buildExport(done.result, done.options)), "application/json");
    toast({ title: "Download Started", description: `Results exported as ${format.toUpperCase()}.` });
  }

  return { reportTitle, buildHtml, reportHtml, downloadReport, exportResults };
}
