/**
 * Export of a review (issue 13): records with their decisions as CSV and RIS (so another tool can
 * continue), the PRISMA 2020 diagram as SVG, the PRISMA 2020 checklist as CSV (issue 31), the whole
 * review as JSON (with the checklist).
 */
import { asc, eq } from "drizzle-orm";
import Papa from "papaparse";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { z } from "zod";
import { reviewDecisions, reviewRecords, reviewResolutions, type ReviewRecordRow } from "../../../db/schema";
import { PrismaDiagram } from "~/components/meta-analysis/prisma-diagram";
import type { PrismaChecklist } from "~/lib/prisma-checklist";
import { prismaCountsFromReview, type ReviewPrisma } from "~/lib/reviews";
import type { AppServices } from "../context";
import { getRiskOfBias } from "../risk-of-bias/assessments";
import { robDualAudit } from "../risk-of-bias/dual";
import { listGradeSettings } from "../risk-of-bias/grade-settings";
import { getCharacteristics } from "../reviews/characteristics";
import { dualExtractionAudit, type DualExtractionAuditRow } from "../reviews/dual-extraction";
import { reviewPrisma } from "../reviews/prisma";
import { reviewPrismaChecklist } from "../reviews/prisma-checklist";
import { getReview, listMerges, toApiRecord, type ReviewsApp } from "../reviews/service";
import { reviewAgreement } from "../reviews/votes";

export const ExportQuerySchema = z.object({
  format: z.enum(["csv", "ris", "json", "svg", "checklist", "extraction"], {
    error: "format must be csv, ris, json, svg, checklist or extraction",
  }),
});
export type ReviewExportFormat = z.infer<typeof ExportQuerySchema>["format"];

const decisionText = (r: ReviewRecordRow): string => {
  const parts = [`title/abstract: ${r.taDecision ?? "undecided"}${r.taReason ? ` (${r.taReason})` : ""}`];
  if (r.taDecision === "include")
    parts.push(`full text: ${r.ftDecision ?? "undecided"}${r.ftReason ? ` (${r.ftReason})` : ""}`);
  if (r.duplicateOf !== null) parts.push(`duplicate of record ${r.duplicateOf} (${r.duplicateReason ?? "merged"})`);
  return parts.join("; ");
};

/** CSV: one row per record (duplicates included), decisions and reasons per stage; formula-safe. */
export function recordsToCsv(records: readonly ReviewRecordRow[]): string {
  const rows = records.map((r) => ({
    id: r.id,
    title: r.title,
    authors: r.authors.join("; "),
    year: r.year ?? "",
    journal: r.journal ?? "",
    doi: r.doi ?? "",
    pmid: r.pmid ?? "",
    abstract: r.abstract ?? "",
    keywords: r.keywords ?? "",
    source: r.origin,
    duplicate_of: r.duplicateOf ?? "",
    title_abstract_decision: r.taDecision ?? "",
    title_abstract_reason: r.taReason ?? "",
    full_text_decision: r.ftDecision ?? "",
    full_text_reason: r.ftReason ?? "",
  }));
  return Papa.unparse(rows, {
    quotes: true,
    escapeFormulae: true,
    newline: "\r\n",
    columns: [
      "id",
      "title",
      "authors",
      "year",
      "journal",
      "doi",
      "pmid",
      "abstract",
      "keywords",
      "source",
      "duplicate_of",
      "title_abstract_decision",
      "title_abstract_reason",
      "full_text_decision",
      "full_text_reason",
    ],
  });
}

const risLine = (tag: string, value: string | number | null | undefined) =>
  value === null || value === undefined || value === ""
    ? ""
    : `${tag}  - ${String(value).replace(/\s+/g, " ").trim()}\r\n`;

/**
 * RIS (TY JOUR … ER): the bibliographic fields plus the decisions, in N1 (note) and LB (label:
 * the decision at the record's last stage, e.g. "included", "excluded: Wrong outcome").
 */
export function recordsToRis(records: readonly ReviewRecordRow[]): string {
  return records
    .map((r) => {
      const atFt = r.taDecision === "include";
      const decision = atFt ? r.ftDecision : r.taDecision;
      const reason = atFt ? r.ftReason : r.taReason;
      const label =
        r.duplicateOf !== null
          ? "duplicate"
          : decision
            ? `${decision}d${reason ? `: ${reason}` : ""}`.replace("maybed", "maybe")
            : "";
      return [
        "TY  - JOUR\r\n",
        risLine("TI", r.title),
        ...r.authors.map((a) => risLine("AU", a)),
        risLine("PY", r.year),
        risLine("T2", r.journal),
        risLine("AB", r.abstract),
        risLine("DO", r.doi),
        risLine("AN", r.pmid),
        ...(r.keywords ?? "").split(";").map((k) => risLine("KW", k.trim())),
        risLine("UR", r.url),
        risLine("DB", r.origin),
        risLine("LB", label),
        risLine("N1", `MetaMind record ${r.id}; ${decisionText(r)}`),
        "ER  - \r\n",
      ].join("");
    })
    .join("\r\n");
}

/**
 * The PRISMA 2020 flow diagram of the counts as a standalone SVG document: the template for updated
 * reviews (previous studies, the update's flow, the total) once the review has had living updates.
 */
export function prismaSvg(prisma: ReviewPrisma): string {
  const updated = prisma.updated;
  const props = updated
    ? {
        id: "prisma",
        counts: prismaCountsFromReview(updated.newFlow),
        update: { previousStudies: updated.previousStudies, totalStudies: updated.totalStudies },
      }
    : { id: "prisma", counts: prismaCountsFromReview(prisma) };
  const svg = renderToStaticMarkup(createElement(PrismaDiagram, props));
  return `<?xml version="1.0" encoding="UTF-8"?>\n${svg.replace(' width="100%"', ` width="${updated ? 940 : 720}"`)}`;
}

const safeName = (title: string) =>
  title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 60) || "review";

/**
 * Builds one export of the review. @returns the body, its content type and a download file name.
 * @throws AppError 404 REVIEW_NOT_FOUND.
 */
/** The PRISMA 2020 checklist as CSV: the 42 items, then the 12 abstract items; formula-safe. */
export function checklistToCsv(checklist: PrismaChecklist): string {
  const row = (list: string, i: PrismaChecklist["items"][number]) => ({
    Checklist: list,
    Section: i.section,
    Item: i.item,
    Topic: i.topic,
    Status: i.status.replace("_", " "),
    "What the review recorded / what to add": i.text,
  });
  return Papa.unparse(
    [
      ...checklist.items.map((i) => row("PRISMA 2020", i)),
      ...checklist.abstractItems.map((i) => row("PRISMA 2020 for Abstracts", i)),
    ],
    { escapeFormulae: true, newline: "\r\n" },
  );
}

/**
 * Dual extraction's audit trail as CSV (issue 30): one row per study, outcome and cell that both
 * reviewers extracted, with both values (who, when), whether they differ, the consensus value the
 * analysis uses and who recorded it when, and earlier consensus values; formula-safe.
 */
export function dualExtractionToCsv(rows: readonly DualExtractionAuditRow[]): string {
  return Papa.unparse(
    rows.map((r) => {
      const last = r.consensusHistory.at(-1);
      return {
        Outcome: r.outcome,
        "Record ID": r.recordId,
        Title: r.title,
        Arm: r.arm,
        Field: r.field,
        "Reviewer 1": r.extractions[0]?.email ?? "",
        "Value 1": r.extractions[0]?.value ?? "NR",
        "Submitted 1": r.extractions[0]?.submittedAt ?? "",
        "Reviewer 2": r.extractions[1]?.email ?? "",
        "Value 2": r.extractions[1]?.value ?? "NR",
        "Submitted 2": r.extractions[1]?.submittedAt ?? "",
        Differs: r.differs ? "yes" : "no",
        Consensus: r.settled ? (r.consensus ?? "NR") : "awaiting consensus",
        "Consensus by": last?.email ?? (r.differs ? "" : "agreed"),
        "Consensus at": last?.at ?? "",
        "Earlier consensus values": r.consensusHistory
          .slice(0, -1)
          .map((c) => `${c.value ?? "NR"} (${c.email}, ${c.at})`)
          .join("; "),
      };
    }),
    { escapeFormulae: true, newline: "\r\n", columns: CSV_COLUMNS },
  );
}

const CSV_COLUMNS = [
  "Outcome",
  "Record ID",
  "Title",
  "Arm",
  "Field",
  "Reviewer 1",
  "Value 1",
  "Submitted 1",
  "Reviewer 2",
  "Value 2",
  "Submitted 2",
  "Differs",
  "Consensus",
  "Consensus by",
  "Consensus at",
  "Earlier consensus values",
];

export async function exportReview(
  app: ReviewsApp & Pick<AppServices, "env" | "fetch">,
  {
    userId,
    reviewId,
    format,
    now,
  }: { userId: string; reviewId: string | undefined; format: ReviewExportFormat; now: Date },
): Promise<{ body: string; contentType: string; fileName: string }> {
  const review = await getReview(app, { userId, reviewId });
  const base = `metamind-review-${safeName(review.title)}-${now.toISOString().slice(0, 10)}`;
  if (format === "svg") {
    const prisma = await reviewPrisma(app, { userId, reviewId: review.id });
    return { body: prismaSvg(prisma), contentType: "image/svg+xml; charset=utf-8", fileName: `${base}-prisma.svg` };
  }
  if (format === "checklist") {
    const checklist = await reviewPrismaChecklist(app, { userId, reviewId: review.id });
    return {
      body: checklistToCsv(checklist),
      contentType: "text/csv; charset=utf-8",
      fileName: `${base}-prisma-checklist.csv`,
    };
  }
  if (format === "extraction") {
    return {
      body: dualExtractionToCsv(await dualExtractionAudit(app, review.id)),
      contentType: "text/csv; charset=utf-8",
      fileName: `${base}-extraction.csv`,
    };
  }
  const records = await app.db
    .select()
    .from(reviewRecords)
    .where(eq(reviewRecords.reviewId, review.id))
    .orderBy(asc(reviewRecords.id));
  if (format === "csv")
    return { body: recordsToCsv(records), contentType: "text/csv; charset=utf-8", fileName: `${base}.csv` };
  if (format === "ris")
    return {
      body: recordsToRis(records),
      contentType: "application/x-research-info-systems; charset=utf-8",
      fileName: `${base}.ris`,
    };
  const [
    prisma,
    merges,
    riskOfBias,
    allDecisions,
    resolutions,
    agreement,
    prismaChecklist,
    gradeSettings,
    dualExtraction,
    characteristics,
    dualRiskOfBias,
  ] = await Promise.all([
    reviewPrisma(app, { userId, reviewId: review.id }),
    listMerges(app, { userId, reviewId: review.id }),
    getRiskOfBias(app, { userId, reviewId: review.id }),
    app.db
      .select({
        recordId: reviewDecisions.recordId,
        userId: reviewDecisions.userId,
        stage: reviewDecisions.stage,
        decision: reviewDecisions.decision,
        reason: reviewDecisions.reason,
        createdAt: reviewDecisions.createdAt,
      })
      .from(reviewDecisions)
      .where(eq(reviewDecisions.reviewId, review.id))
      .orderBy(asc(reviewDecisions.id)),
    app.db
      .select({
        recordId: reviewResolutions.recordId,
        stage: reviewResolutions.stage,
        userId: reviewResolutions.userId,
        decision: reviewResolutions.decision,
        reason: reviewResolutions.reason,
        createdAt: reviewResolutions.createdAt,
      })
      .from(reviewResolutions)
      .where(eq(reviewResolutions.reviewId, review.id)),
    reviewAgreement(app, { userId, reviewId: review.id }),
    reviewPrismaChecklist(app, { userId, reviewId: review.id }),
    listGradeSettings(app, { userId, reviewId: review.id }),
    dualExtractionAudit(app, review.id),
    getCharacteristics(app, { userId, reviewId: review.id }, { countRead: false }),
    robDualAudit(app, review),
  ]);
  // Blind dual screening: another reviewer's vote is exported only once the record's two votes are cast.
  const voters = new Map<string, Set<string>>();
  for (const d of allDecisions) {
    const key = `${d.recordId}:${d.stage}`;
    voters.set(key, (voters.get(key) ?? new Set()).add(d.userId));
  }
  const blind = review.screening.mode === "dual" && review.screening.blind;
  const decisions = blind
    ? allDecisions.filter((d) => d.userId === userId || (voters.get(`${d.recordId}:${d.stage}`)?.size ?? 0) >= 2)
    : allDecisions;
  const body = JSON.stringify(
    {
      exportedAt: now.toISOString(),
      review,
      prisma,
      records: records.map((r) => ({ ...toApiRecord(r), url: r.url, keywords: r.keywords, fullText: undefined })),
      merges,
      decisions: decisions.map((d) => ({ ...d, createdAt: new Date(d.createdAt).toISOString() })),
      riskOfBias: riskOfBias.assessments,
      gradeSettings,
      resolutions: resolutions.map((r) => ({ ...r, createdAt: new Date(r.createdAt).toISOString() })),
      agreement,
      prismaChecklist,
      dualExtraction,
      characteristics,
      dualRiskOfBias,
    },
    null,
    2,
  );
  return { body, contentType: "application/json; charset=utf-8", fileName: `${base}.json` };
}
