/**
 * The R script and CSV exports of a meta-analysis job (issue 31): the script, run by R's metafor
 * (Debian r-cran-metafor through Rscript), reproduces every number the report holds; the CSV has
 * Cochrane's data-package columns and one line per study per analysis. The R part skips with a
 * message when Rscript or metafor is missing.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Papa from "papaparse";
import { describe, expect, it } from "vitest";
import type { ExtractedStudyData, MetaAnalysisJobResult } from "~/lib/meta-analysis/types";
import { buildStudyDataCsv, STUDY_DATA_COLUMNS, yearOf } from "./export-csv";
import { buildRScript, rNumber, rString } from "./export-r";
import { runMetaAnalysis } from "./run";

const HAS_R =
  spawnSync("Rscript", ["-e", "suppressMessages(library(metafor))"], { encoding: "utf8", timeout: 60_000 }).status ===
  0;
const NO_R = "Rscript with the metafor package is not installed (apt-get install r-cran-metafor)";
/** A test name that says why it is skipped when R is missing. */
const withRReason = (name: string) => (HAS_R ? name : `${name} — skipped: ${NO_R}`);

function row(
  studyId: string,
  title: string,
  outcome: string,
  measure: ExtractedStudyData["measure"],
  data: ExtractedStudyData["data"],
): ExtractedStudyData {
  return { studyId, title, outcome, measure, data, quotes: [], extractedBy: "user", design: "RCT", totalN: null };
}

/** Three invented outcomes: 2×2 counts with a zero cell (RR), means (SMD), reported hazard ratios. */
const ROWS: ExtractedStudyData[] = [
  row("s1", "Alpha trial 2011", "mortality", "RR", { kind: "counts", events1: 12, n1: 100, events2: 20, n2: 98 }),
  row("s2", 'Beta "quoted" trial 2014', "mortality", "RR", { kind: "counts", events1: 0, n1: 40, events2: 4, n2: 41 }),
  row("s3", "Gamma trial — Zürich 2019", "mortality", "RR", {
    kind: "counts",
    events1: 30,
    n1: 200,
    events2: 35,
    n2: 190,
  }),
  row("s4", "Delta trial 2020", "mortality", "RR", { kind: "counts", events1: 57, n1: 411, events2: 73, n2: 411 }),
  row("s1", "Alpha trial 2011", "pain score", "SMD", {
    kind: "means",
    mean1: 3.1,
    sd1: 1.2,
    n1: 50,
    mean2: 3.9,
    sd2: 1.4,
    n2: 48,
  }),
  row("s2", 'Beta "quoted" trial 2014', "pain score", "SMD", {
    kind: "means",
    mean1: 2.5,
    sd1: 0.9,
    n1: 30,
    mean2: 2.6,
    sd2: 1.1,
    n2: 31,
  }),
  row("s3", "Gamma trial — Zürich 2019", "pain score", "SMD", {
    kind: "means",
    mean1: 4.0,
    sd1: 2.0,
    n1: 80,
    mean2: 5.2,
    sd2: 2.1,
    n2: 79,
  }),
  row("s5", "Epsilon trial 2016", "progression", "RR", {
    kind: "estimate-ci",
    estimate: 0.72,
    lower: 0.55,
    upper: 0.94,
  }),
  row("s6", "Zeta trial 2018", "progression", "RR", { kind: "estimate-ci", estimate: 0.91, lower: 0.7, upper: 1.18 }),
].map((r, i) => (i >= 7 ? { ...r, reportedMeasure: "HR" as const } : r));

function result(method: "REML" | "DL" = "REML", test: "z" | "knha" = "knha"): MetaAnalysisJobResult {
  return runMetaAnalysis({ studyCount: 6, extracted: ROWS, excluded: [], model: "offline" }, { method, test });
}

function runR(script: string): { status: number | null; stdout: string; stderr: string; plots: boolean } {
  const dir = mkdtempSync(join(tmpdir(), "metamind-r-"));
  try {
    writeFileSync(join(dir, "analysis.R"), script);
    const res = spawnSync("Rscript", ["--vanilla", "analysis.R"], { cwd: dir, encoding: "utf8", timeout: 120_000 });
    return {
      status: res.status,
      stdout: res.stdout,
      stderr: res.stderr,
      plots: existsSync(join(dir, "metamind-plots.pdf")),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("R literals", () => {
  it("escapes quotes, backslashes, newlines and non-ASCII characters; non-finite numbers are NA", () => {
    expect(rString('a "b" \\ c\nd')).toBe('"a \\"b\\" \\\\ c\\nd"');
    expect(rString("Zürich — α")).toBe('"Z\\u00fcrich \\u2014 \\u03b1"');
    expect(rString("😀")).toBe('"\\U0001f600"');
    expect(rNumber(Number.NaN)).toBe("NA");
    expect(rNumber(null)).toBe("NA");
    expect(rNumber(0.1 + 0.2)).toBe("0.30000000000000004");
  });
});

describe("R script export", () => {
  it("holds every analysis's data, escalc measure, estimator and test, and leaves `analyses`", () => {
    const res = result();
    expect(res.analyses.map((a) => [a.outcome, a.measure, a.k])).toEqual([
      ["mortality", "RR", 4],
      ["pain score", "SMD", 3],
      ["progression", "RR", 2],
    ]);
    const script = buildRScript(res, {
      jobId: "0f8fad5b-d9cb-469f-a165-70867728950e",
      generatedAt: new Date("2026-11-26T12:00:00Z"),
    });
    expect(script).toContain("library(metafor)");
    expect(script).toContain('fit1 <- rma(yi, vi, data = dat1, method = "REML", test = "knha", slab = study)');
    expect(script).toContain('dat2 <- effect_sizes(dat2, "SMD")');
    expect(script).toContain("ai = c(12, 0, 30, 57)");
    expect(script).toContain("estimate = c(0.72, 0.91)");
    expect(script).toContain("analyses[[3]] <- fit3");
    expect([...script].every((ch) => ch === "\n" || (ch >= " " && ch <= "~"))).toBe(true);
  });

  it.skipIf(!HAS_R)(
    withRReason("run by R's metafor, it reproduces every number of the report (REML + Hartung–Knapp, DL + z)"),
    () => {
      for (const [method, test] of [
        ["REML", "knha"],
        ["DL", "z"],
      ] as const) {
        const out = runR(buildRScript(result(method, test), { jobId: "job", generatedAt: new Date() }));
        expect(out.stderr).not.toContain("differ");
        expect(out.status).toBe(0);
        expect(out.stdout).toContain("All numbers of the 3 pooled analyses match the MetaMind report.");
        expect(out.plots).toBe(true);
      }
    },
    240_000,
  );

  it.skipIf(!HAS_R)(
    withRReason("stops with the differences when a report number does not match"),
    () => {
      const res = result();
      res.analyses[0] = { ...res.analyses[0]!, tau2: res.analyses[0]!.tau2 + 0.01 };
      const out = runR(buildRScript(res, { jobId: "job", generatedAt: new Date() }));
      expect(out.status).not.toBe(0);
      expect(out.stderr).toContain("analysis 1, tau2");
    },
    120_000,
  );

  it("a report without a pooled analysis gives a script that says so", () => {
    const res = runMetaAnalysis({ studyCount: 1, extracted: ROWS.slice(0, 1), excluded: [], model: "offline" });
    const script = buildRScript(res, { jobId: "job", generatedAt: new Date() });
    expect(script).toContain("The report has no pooled analysis");
    expect(script).not.toContain("<- rma(");
  });
});

describe("study data CSV export", () => {
  it("one line per study per analysis with Cochrane's data-package columns", () => {
    const res = result();
    const parsed = Papa.parse<Record<string, string>>(buildStudyDataCsv(res), { header: true, skipEmptyLines: true });
    expect(parsed.meta.fields).toEqual([...STUDY_DATA_COLUMNS]);
    expect(parsed.data).toHaveLength(9);
    const alpha = parsed.data.find((r) => r["Analysis number"] === "1" && r["Study ID"] === "s1")!;
    expect(alpha).toMatchObject({
      "Analysis name": "mortality",
      "Effect measure": "RR",
      "Study year": "2011",
      "Experimental cases": "12",
      "Experimental N": "100",
      "Control cases": "20",
      "Control N": "98",
    });
    expect(Number(alpha.Mean)).toBeCloseTo(12 / 100 / (20 / 98), 12);
    const pain = parsed.data.find((r) => r["Analysis number"] === "2" && r["Study ID"] === "s3")!;
    expect(pain).toMatchObject({
      "Experimental mean": "4",
      "Experimental SD": "2",
      "Control mean": "5.2",
      "Experimental N": "80",
    });
    const hr = parsed.data.find((r) => r["Study ID"] === "s5")!;
    expect(hr["Effect measure"]).toBe("HR");
    expect(Number(hr.Mean)).toBeCloseTo(0.72, 12);
    expect(Number(hr["CI start"])).toBeCloseTo(0.55, 2);
    const weights = parsed.data.filter((r) => r["Analysis number"] === "1").reduce((s, r) => s + Number(r.Weight), 0);
    expect(weights).toBeCloseTo(100, 9);
  });

  it("quotes cells a spreadsheet would run as a formula, keeps negative numbers as numbers", () => {
    const rows = ROWS.slice(4, 7).map((r, i) => (i === 0 ? { ...r, title: '=HYPERLINK("http://x")' } : r));
    const csv = buildStudyDataCsv(
      runMetaAnalysis({ studyCount: 3, extracted: rows, excluded: [], model: "offline" }, { measure: "MD" }),
    );
    expect(csv).toContain(`"'=HYPERLINK(""http://x"")"`);
    expect(csv).toMatch(/,-1\.2\d*,/);
  });

  it("reads a year from a label only when one is there", () => {
    expect(yearOf("Smith 2019")).toBe(2019);
    expect(yearOf("Trial of 120 adults")).toBe("");
  });
});
