import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { ReportDocument, type ReportDocumentProps } from "./report-document";

/**
 * The meta-analysis report as one self-contained HTML document (client-safe): inline CSS, the
 * plots as inline SVG, no scripts and no external resources, so it can be saved to saved reports
 * (htmlContent), downloaded, printed or opened offline.
 */

/** Print-friendly styles for the report; the components' utility classes are not available there. */
export const REPORT_CSS = `
*{box-sizing:border-box}
body{margin:0;background:#f8fafc;color:#0f172a;font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:960px;margin:0 auto;padding:32px 24px;background:#fff}
h1{font-size:26px;margin:0 0 4px}
h2{font-size:20px;margin:32px 0 12px;padding-bottom:4px;border-bottom:2px solid #1e3a8a;color:#1e3a8a}
h3{font-size:17px;margin:24px 0 4px}
h4{font-size:14px;margin:12px 0 4px}
p{margin:6px 0}
.meta{color:#475569;font-size:12px}
.description{font-style:italic}
table{width:100%;border-collapse:collapse;margin:8px 0 16px;font-size:13px}
caption{text-align:left;font-weight:600;padding:4px 0}
th,td{border-bottom:1px solid #e2e8f0;padding:5px 8px 5px 0;text-align:left;vertical-align:top}
thead th{border-bottom:2px solid #94a3b8;font-size:12px;color:#475569}
dl{display:grid;grid-template-columns:repeat(auto-fill,minmax(320px,1fr));gap:2px 24px;margin:8px 0}
dl>div{display:flex;justify-content:space-between;gap:12px;border-bottom:1px solid #f1f5f9;padding:3px 0}
dt{color:#475569}
dd{margin:0;font-weight:600;font-variant-numeric:tabular-nums}
.narrative dl,.narrative dl>div{display:block;border:0}
.narrative dd{font-weight:400}
figure{margin:12px 0}
svg{display:block;max-width:100%;height:auto}
.forest-scroll{overflow-x:auto}.forest-scroll>svg{min-width:760px}
blockquote.quote{margin:2px 0 6px;padding-left:8px;border-left:3px solid #cbd5e1;color:#334155}
label{display:inline-block;margin:0 12px 4px 0;font-size:12px;color:#475569}
label>span{display:block}
.heterogeneity{border:1px solid #e2e8f0;border-radius:8px;padding:8px 12px}
.block{display:block}.flex{display:flex}.flex-col{flex-direction:column}.flex-wrap{flex-wrap:wrap}.gap-2{gap:8px}
.text-xs{font-size:12px}.text-slate-500{color:#64748b}.font-medium{font-weight:500}
.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0,0,0,0)}
[role=note]{background:#fffbeb;padding:6px 10px;border-radius:6px}
[data-testid=excluded-studies]{background:#fffbeb;border:1px solid #fde68a;border-radius:8px;padding:8px 12px}
[data-testid=row-problem]{color:#b91c1c}
[data-testid=grade-certainty]{padding:1px 6px;border-radius:4px;background:#e0f2fe}
.grade-high{background:#d1fae5!important}.grade-low{background:#fef3c7!important}.grade-very-low{background:#fee2e2!important}
@media print{body{background:#fff}.forest-scroll>svg{min-width:0}main{padding:0}h2{break-after:avoid}figure,table{break-inside:avoid}}
`;

/** Escapes text for an HTML text node or attribute. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

/**
 * Renders the report: title, description, methods paragraph (estimator, test, and the engine),
 * the studies, the data table with every supporting quote, each outcome's results (summary
 * numbers, forest and funnel plots, heterogeneity, leave-one-out, trim and fill, GRADE), the
 * narrative and the PRISMA 2020 diagram. Returns a complete HTML document string.
 */
export function buildReportHtml(props: ReportDocumentProps): string {
  const body = renderToStaticMarkup(createElement(ReportDocument, props));
  return (
    "<!DOCTYPE html>" +
    '<html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    '<meta name="generator" content="MetaMind">' +
    `<title>${escapeHtml(props.title)}</title>` +
    `<style>${REPORT_CSS}</style>` +
    `</head><body>${body}</body></html>`
  );
}
