import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, type Page } from "@playwright/test";
import { closeDialogWithEscape, requireSharedFixtures, signIn, test } from "./shared-fixtures";
import { expectStreamed, recordedTextLengths, recordTextLengths } from "./streaming";

requireSharedFixtures();

/** Real PDFs from ../shared/pdfs (never copied into the repository). */
const PDF_DIR = fileURLToPath(new URL("../../../shared/pdfs/", import.meta.url));
const BMJ = "rct_bmj2015_physical_activity_smoking_cessation_pregnancy.pdf";
const TEA = "ma_wjso2019_tea_coffee_brain_cancer.pdf";
const BMJ_TITLE = "Physical activity for smoking cessation in pregnancy: randomised controlled trial";
const TEA_TITLE = "Association between tea and coffee consumption and brain cancer risk: an updated meta-analysis";
const hasPdfs = existsSync(`${PDF_DIR}${BMJ}`) && existsSync(`${PDF_DIR}${TEA}`);

/** Drops files on the drop zone the way a browser does: a drop event carrying a DataTransfer. */
async function dropFiles(page: Page, files: { name: string; base64: string }[]) {
  await page.getByTestId("drop-zone").evaluate((zone, list) => {
    const dt = new DataTransfer();
    for (const f of list) {
      const bytes = Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0));
      dt.items.add(new File([bytes], f.name, { type: "application/pdf" }));
    }
    zone.dispatchEvent(new DragEvent("dragover", { dataTransfer: dt, bubbles: true, cancelable: true }));
    zone.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, files);
}

// No test may leave an uncaught error in the page.
let pageErrors: string[] = [];
test.beforeEach(({ page }) => {
  pageErrors = [];
  page.on("pageerror", (error) => pageErrors.push(error.message));
});
test.afterEach(() => {
  expect(pageErrors).toEqual([]);
});

test("signed out: the Sign In Required card with its benefits and a link to /auth", async ({ page }) => {
  await page.goto("/upload");
  await expect(page.getByText("Sign In Required")).toBeVisible();
  for (const benefit of [
    "Upload multiple PDFs",
    "AI summaries and analysis",
    "Meta-analysis across studies",
    "Export results",
  ]) {
    await expect(page.getByText(benefit)).toBeVisible();
  }
  await expect(page.getByRole("link", { name: "Sign In or Create Account" })).toHaveAttribute("href", "/auth");
});

test("Free: the list is viewable, an upload opens the Professional prompt keyed pdf_upload", async ({ page }) => {
  await signIn(page, "free@metamind.local");
  await page.goto("/upload");
  await expect(
    page.getByText("PDF upload requires Professional subscription. You can view your uploaded studies."),
  ).toBeVisible();
  await page
    .getByTestId("file-input")
    .setInputFiles({ name: "a.pdf", mimeType: "application/pdf", buffer: Buffer.from("%PDF-1.4 tiny") });
  await page.getByRole("button", { name: "Upload 1 Files" }).click();
  await expect(page.getByTestId("upgrade-prompt")).toHaveAttribute("data-feature", "pdf_upload");
  await closeDialogWithEscape(page);
  await page.getByRole("tab", { name: "Manage Uploaded Studies" }).click();
  await expect(page.getByText("No uploaded studies yet")).toBeVisible();
  await expect(page.getByText("Upload PDF files to get started")).toBeVisible();
});

test("Professional: drop two real PDFs, watch them upload and get processed, stream a summary, combine them, bulk delete", async ({
  page,
}) => {
  test.skip(!hasPdfs, `real PDFs not found at ${PDF_DIR}`);
  test.setTimeout(120_000);
  await signIn(page, "pro@metamind.local");
  await page.goto("/upload");
  await expect(page.getByRole("tab", { name: "Upload PDFs" })).toHaveAttribute("aria-selected", "true");
  await expect(page.getByText("Drag and drop PDF files here, or click to select files")).toBeVisible();

  // A non-PDF in the drop is refused with the spec's message.
  await page.getByTestId("drop-zone").evaluate((zone) => {
    const dt = new DataTransfer();
    dt.items.add(new File(["x"], "notes.txt", { type: "text/plain" }));
    zone.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
  });
  await expect(page.getByTestId("drop-rejections")).toContainText("notes.txt: File type must be application/pdf,.pdf");

  await dropFiles(page, [
    { name: BMJ, base64: readFileSync(`${PDF_DIR}${BMJ}`).toString("base64") },
    { name: TEA, base64: readFileSync(`${PDF_DIR}${TEA}`).toString("base64") },
  ]);
  const selected = page.getByTestId("selected-files");
  await expect(selected.getByRole("listitem")).toHaveCount(2);
  await expect(selected).toContainText("435.74 KB");
  await expect(selected).toContainText("1.17 MB");

  // Progress: record every value the bars take while the upload runs.
  await page.evaluate(() => {
    const seen: string[] = [];
    (window as unknown as { __progress: string[] }).__progress = seen;
    new MutationObserver(() => {
      for (const bar of document.querySelectorAll('[role="progressbar"]'))
        seen.push(bar.getAttribute("aria-valuenow") ?? "");
    }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["aria-valuenow"] });
  });
  // Processing stages: record every stage and percent the list shows before the files are ready.
  await page.evaluate(() => {
    const stages: string[] = [];
    (window as unknown as { __stages: string[] }).__stages = stages;
    new MutationObserver(() => {
      for (const el of document.querySelectorAll('[data-testid="processing-progress"]')) {
        stages.push(`${el.getAttribute("data-stage")}:${el.getAttribute("data-progress")}:${el.textContent ?? ""}`);
      }
    }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
  });
  await page.getByRole("button", { name: "Upload 2 Files" }).click();
  await expect(page.getByText("Upload Complete", { exact: true })).toBeVisible();
  // Issue 16: the toast says the files were uploaded and are still processing, not 'processed'.
  await expect(page.getByText("2 of 2 uploaded; processing…", { exact: true })).toBeVisible();
  const progress = await page.evaluate(() => (window as unknown as { __progress: string[] }).__progress);
  expect(progress).toContain("0");
  expect(progress).toContain("100");

  // Manage tab: both appear, are queued or extracting, then processed with their real titles.
  await expect(page.getByRole("tab", { name: "Manage Uploaded Studies" })).toHaveAttribute("aria-selected", "true");
  const items = page.getByTestId("uploaded-study");
  await expect(items).toHaveCount(2);
  await expect(page.getByRole("heading", { name: BMJ_TITLE })).toBeVisible({ timeout: 60_000 });
  await expect(page.getByRole("heading", { name: TEA_TITLE })).toBeVisible({ timeout: 60_000 });
  await expect(page.locator('[data-testid="uploaded-study"][data-status="ready"]')).toHaveCount(2);
  // …and a second toast when processing has ended.
  await expect(page.getByText("2 of 2 PDFs ready.", { exact: true })).toBeVisible();
  // Issue 16: the list followed the extraction job's real stages, not just 'Queued' until done.
  const stages = await page.evaluate(() => (window as unknown as { __stages: string[] }).__stages);
  const extracting = stages.filter((s) => s.startsWith("extracting:")).map((s) => Number(s.split(":")[1]));
  expect(
    extracting.some((p) => p > 0 && p < 100),
    `stages seen: ${[...new Set(stages)].join(" | ")}`,
  ).toBe(true);
  expect(
    stages.some((s) =>
      /^extracting:\d+:.*(Reading page \d+ of \d+|Reading the file|Opening the PDF|Finding the title)/.test(s),
    ),
  ).toBe(true);
  const bmj = items.filter({ has: page.getByRole("heading", { name: BMJ_TITLE }) });
  await expect(bmj).toContainText("Michael Ussher, Sarah Lewis, Paul Aveyard et al.");
  await expect(bmj).toContainText(`${BMJ} · 435.74 KB`);
  await expect(bmj).toContainText("No Summary");
  await expect(bmj).toContainText("No Full Analysis");

  // The summary streams in: the text grows over several renders before it is stored.
  await recordTextLengths(page, '[data-testid="streaming-text"]');
  await bmj.getByRole("button", { name: "Generate Summary" }).click();
  await expect(bmj.getByRole("button", { name: "Generating..." })).toBeDisabled();
  await expect(page.getByText("Summary Generated", { exact: true })).toBeVisible({ timeout: 30_000 });
  await expect(bmj).toContainText("Summary Ready");
  expectStreamed(await recordedTextLengths(page), "the upload's summary");
  await bmj.getByRole("button", { name: "View Summary" }).click();
  await expect(page.getByTestId("text-dialog")).toBeVisible();
  await page.keyboard.press("Escape");

  // Bulk actions are disabled until something is selected.
  await expect(page.getByRole("button", { name: "Combined Summary" })).toBeDisabled();
  await page.getByLabel("Select all studies").check();
  await page.getByRole("button", { name: "Combined Summary" }).click();
  const modal = page.getByTestId("report-modal");
  await expect(modal.getByRole("heading", { name: "Combined Summary of 2 Studies" })).toBeVisible({ timeout: 30_000 });
  await expect(modal.getByTestId("evidence-badge")).toHaveText(/^Evidence: (High|Moderate|Low)$/);
  await expect(modal).toContainText("2 studies");
  // Issue 16: the summary's own headings are headings, its sources are named by study title.
  const view = modal.getByTestId("analysis-view");
  await expect(view.getByRole("heading", { name: "Executive summary" })).toBeVisible();
  await expect(view.getByRole("heading", { name: "Common themes" })).toBeVisible();
  await expect(view.getByTestId("report-sources").first()).toContainText(
    /Sources: “(Physical activity|Association between tea)/,
  );
  await expect(view).not.toContainText(/\bT\d+\.S\d+\b|###/);
  const download = page.waitForEvent("download");
  await modal.getByRole("button", { name: "Download" }).click();
  expect((await download).suggestedFilename()).toMatch(/^metamind-summary-report-\d+\.html$/);
  await modal.getByRole("button", { name: "Close" }).click();

  // The meta-analysis of the two renders the structured analysis object (SPEC §4).
  await page.getByRole("button", { name: "Meta-Analysis" }).click();
  await expect(modal.getByRole("heading", { name: "Meta-Analysis of 2 Uploaded Studies" })).toBeVisible({
    timeout: 30_000,
  });
  await expect(modal.getByTestId("analysis-view").getByRole("heading", { name: "Executive Summary" })).toBeVisible();
  await expect(modal.getByTestId("analysis-view").getByRole("heading", { name: "GRADE Assessment" })).toBeVisible();
  // Pooled through the /meta-analysis engine: a trial and a meta-analysis of other outcomes do not pool, and it says why.
  await expect(modal.getByTestId("analysis-view")).toContainText(
    "Not pooled: no outcome was reported by at least 2 of these studies",
  );
  await expect(modal).not.toContainText("pools effects only in a meta-analysis");
  await modal.getByRole("button", { name: "Close" }).click();

  // Bulk delete with the spec's confirmation.
  page.once("dialog", (dialog) => {
    expect(dialog.message()).toBe("Are you sure you want to delete 2 studies? This action cannot be undone.");
    void dialog.accept();
  });
  await page.getByRole("button", { name: "Delete Selected" }).click();
  await expect(page.getByText("Successfully deleted 2 studies", { exact: true })).toBeVisible();
  await expect(page.getByText("No uploaded studies yet")).toBeVisible();
  await expect(page.getByRole("button", { name: "Delete Selected" })).toBeDisabled();
});
