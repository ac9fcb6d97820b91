/**
 * Risk-of-bias tables in robvis's layout (McGuinness & Higgins, Res Synth Methods 2021;12:55;
 * robvis `rob_traffic_light(tool = "ROB2")` / `rob_summary` input): Study, D1…D5, Overall, Weight,
 * judgements written "Low", "Some concerns", "High". Pure.
 */
import type { RobJudgement } from "./rob2";
import type { RobJudgementSet } from "./types";

/** robvis's words for a judgement. */
export const ROBVIS_LABEL: Readonly<Record<RobJudgement, string>> = {
  low: "Low",
  some_concerns: "Some concerns",
  high: "High",
};

/** One study's row: its label, final judgements and meta-analysis weight (1 when unweighted). */
export interface RobvisRow {
  study: string;
  judgements: RobJudgementSet;
  weight: number;
}

function csvField(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** CSV (RFC 4180, formula-safe) with robvis's header: Study,D1,D2,D3,D4,D5,Overall,Weight. */
export function robvisCsv(rows: readonly RobvisRow[]): string {
  const lines = [["Study", "D1", "D2", "D3", "D4", "D5", "Overall", "Weight"].join(",")];
  for (const r of rows) {
    const j = r.judgements;
    lines.push(
      [
        csvField(r.study),
        ...[j.D1, j.D2, j.D3, j.D4, j.D5, j.overall].map((x) => ROBVIS_LABEL[x]),
        String(r.weight),
      ].join(","),
    );
  }
  return `${lines.join("\r\n")}\r\n`;
}
