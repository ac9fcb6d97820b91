/**
 * robvis-style risk-of-bias plots as standalone SVG documents (McGuinness & Higgins, Res Synth
 * Methods 2021;12:55; robvis `rob_traffic_light` and `rob_summary` for the ROB2 template): the
 * traffic-light plot (one row per study, one column per domain D1–D5 and Overall, a coloured circle
 * with robvis's glyph) and the summary plot (per domain, the share of Low / Some concerns / High,
 * optionally weighted by the meta-analysis weights). Pure string builders; every text is escaped.
 */
import { ROB2_DOMAIN_TITLES, ROB2_DOMAINS, type RobJudgement } from "./rob2";
import { ROBVIS_LABEL, type RobvisRow } from "./robvis";

/** robvis's ROB2 colours. */
export const ROBVIS_COLOUR: Readonly<Record<RobJudgement, string>> = {
  low: "#02C100",
  some_concerns: "#E2DF07",
  high: "#BF0000",
};
/** robvis's glyphs: + low, − some concerns, X high. */
export const ROBVIS_GLYPH: Readonly<Record<RobJudgement, string>> = { low: "+", some_concerns: "-", high: "X" };

const COLUMNS = [...ROB2_DOMAINS, "overall"] as const;
const LEGEND: Readonly<Record<RobJudgement, string>> = {
  low: "Low risk of bias",
  some_concerns: "Some concerns",
  high: "High risk of bias",
};
const ORDER: readonly RobJudgement[] = ["low", "some_concerns", "high"];

function esc(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

function document(width: number, height: number, title: string, body: string): string {
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${esc(title)}" font-family="Arial, Helvetica, sans-serif" font-size="12">` +
    `<title>${esc(title)}</title><rect width="${width}" height="${height}" fill="#ffffff"/>${body}</svg>`
  );
}

/**
 * The traffic-light plot: studies × D1–D5 + Overall, robvis colours and glyphs, a legend with the
 * domains' names and the judgements. Empty `rows` gives a plot with the header only.
 */
export function trafficLightSvg(
  rows: readonly Pick<RobvisRow, "study" | "judgements">[],
  title = "Risk of bias (RoB 2)",
): string {
  const labelWidth = Math.min(260, Math.max(120, ...rows.map((r) => r.study.length * 7 + 16)));
  const cell = 36;
  const top = 40;
  const width = labelWidth + cell * COLUMNS.length + 20;
  const legendTop = top + cell * rows.length + 20;
  const height = legendTop + 18 * (ROB2_DOMAINS.length + 2) + 10;
  const parts: string[] = [
    `<text x="${labelWidth / 2}" y="${top - 14}" text-anchor="middle" font-weight="bold">Study</text>`,
  ];
  COLUMNS.forEach((c, i) => {
    const x = labelWidth + cell * i + cell / 2;
    parts.push(
      `<text x="${x}" y="${top - 14}" text-anchor="middle" font-weight="bold">${c === "overall" ? "Overall" : c}</text>`,
    );
  });
  rows.forEach((r, row) => {
    const y = top + cell * row + cell / 2;
    parts.push(
      `<g data-study="${esc(r.study)}"><text x="8" y="${y + 4}">${esc(r.study.length > 36 ? `${r.study.slice(0, 35)}…` : r.study)}</text>`,
    );
    COLUMNS.forEach((c, i) => {
      const j = c === "overall" ? r.judgements.overall : r.judgements[c];
      const x = labelWidth + cell * i + cell / 2;
      parts.push(
        `<circle cx="${x}" cy="${y}" r="13" fill="${ROBVIS_COLOUR[j]}" stroke="#333333" stroke-width="0.5" data-domain="${c}" data-judgement="${j}"><title>${esc(`${r.study}, ${c === "overall" ? "Overall" : c}: ${ROBVIS_LABEL[j]}`)}</title></circle>` +
          `<text x="${x}" y="${y + 5}" text-anchor="middle" font-weight="bold" font-size="14" fill="#000000">${ROBVIS_GLYPH[j]}</text>`,
      );
    });
    parts.push("</g>");
  });
  ROB2_DOMAINS.forEach((d, i) =>
    parts.push(`<text x="8" y="${legendTop + 18 * i}">${d}: ${esc(ROB2_DOMAIN_TITLES[d])}</text>`),
  );
  const judgementsY = legendTop + 18 * ROB2_DOMAINS.length + 8;
  ORDER.forEach((j, i) => {
    const x = 8 + i * 130;
    parts.push(
      `<circle cx="${x + 7}" cy="${judgementsY - 4}" r="7" fill="${ROBVIS_COLOUR[j]}"/><text x="${x + 7}" y="${judgementsY}" text-anchor="middle" font-size="10" font-weight="bold">${ROBVIS_GLYPH[j]}</text><text x="${x + 20}" y="${judgementsY}">${ROBVIS_LABEL[j]}</text>`,
    );
  });
  return document(width, height, title, parts.join(""));
}

/**
 * Per column (D1–D5, Overall), the share (0–1) of Low / Some concerns / High, each study counted
 * with its weight when `weighted`, else once (robvis `rob_summary(weighted = …)`). Zero total → zeros.
 */
export function summaryShares(
  rows: readonly RobvisRow[],
  weighted: boolean,
): Record<(typeof COLUMNS)[number], Record<RobJudgement, number>> {
  const out = {} as Record<(typeof COLUMNS)[number], Record<RobJudgement, number>>;
  for (const c of COLUMNS) {
    const totals: Record<RobJudgement, number> = { low: 0, some_concerns: 0, high: 0 };
    for (const r of rows)
      totals[c === "overall" ? r.judgements.overall : r.judgements[c]] += weighted ? Math.max(0, r.weight) : 1;
    const sum = totals.low + totals.some_concerns + totals.high;
    out[c] = {
      low: sum ? totals.low / sum : 0,
      some_concerns: sum ? totals.some_concerns / sum : 0,
      high: sum ? totals.high / sum : 0,
    };
  }
  return out;
}

/** The summary plot: one stacked horizontal bar per domain (Overall last), 0–100%, with a legend. */
export function summarySvg(
  rows: readonly RobvisRow[],
  { weighted = false, title = "Risk of bias (RoB 2): summary" }: { weighted?: boolean; title?: string } = {},
): string {
  const shares = summaryShares(rows, weighted);
  const labelWidth = 330;
  const barWidth = 400;
  const bar = 22;
  const gap = 8;
  const top = 20;
  const width = labelWidth + barWidth + 30;
  const axisY = top + (bar + gap) * COLUMNS.length + 4;
  const height = axisY + 60;
  const parts: string[] = [];
  COLUMNS.forEach((c, i) => {
    const y = top + (bar + gap) * i;
    const name = c === "overall" ? "Overall risk of bias" : ROB2_DOMAIN_TITLES[c];
    parts.push(
      `<text x="${labelWidth - 8}" y="${y + bar / 2 + 4}" text-anchor="end"${c === "overall" ? ' font-weight="bold"' : ""}>${esc(name)}</text>`,
    );
    let x = labelWidth;
    for (const j of ORDER) {
      const w = shares[c][j] * barWidth;
      if (w > 0) {
        parts.push(
          `<rect x="${x.toFixed(2)}" y="${y}" width="${w.toFixed(2)}" height="${bar}" fill="${ROBVIS_COLOUR[j]}" stroke="#333333" stroke-width="0.5" data-domain="${c}" data-judgement="${j}" data-share="${shares[c][j].toFixed(4)}"><title>${esc(`${name}: ${ROBVIS_LABEL[j]} ${(100 * shares[c][j]).toFixed(0)}%`)}</title></rect>`,
        );
      }
      x += w;
    }
  });
  for (let p = 0; p <= 100; p += 25) {
    const x = labelWidth + (barWidth * p) / 100;
    parts.push(
      `<line x1="${x}" y1="${axisY}" x2="${x}" y2="${axisY + 4}" stroke="#333333"/><text x="${x}" y="${axisY + 16}" text-anchor="middle" font-size="10">${p}%</text>`,
    );
  }
  parts.push(`<line x1="${labelWidth}" y1="${axisY}" x2="${labelWidth + barWidth}" y2="${axisY}" stroke="#333333"/>`);
  ORDER.forEach((j, i) => {
    const x = labelWidth + i * 130;
    parts.push(
      `<rect x="${x}" y="${axisY + 30}" width="12" height="12" fill="${ROBVIS_COLOUR[j]}"/><text x="${x + 18}" y="${axisY + 40}">${LEGEND[j]}</text>`,
    );
  });
  if (weighted) parts.push(`<text x="8" y="${axisY + 40}" font-size="10">Weighted by meta-analysis weight</text>`);
  return document(width, height, title, parts.join(""));
}
