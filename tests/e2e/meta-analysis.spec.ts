import { readFile } from "node:fs/promises";
import { expect, type Page } from "@playwright/test";
import { requireSharedFixtures, signIn, test } from "./shared-fixtures";

requireSharedFixtures();

/**
 * The meta-analysis page end to end: studies picked from a replayed Europe PMC search (recorded
 * COVID-19 page; three abstracts report ratios with their 95% CIs: hazard ratios of venous
 * thromboembolism and of cerebrovascular disease, and rate ratios), extraction with quotes, an
 * edited value, a queued REML + Hartung–Knapp run in which different outcomes are not pooled, the
 * reviewer merging two rows into one pool group, the forest plot and PRISMA, a subgroup analysis by
 * the outcome each study reported (subgroup forest plot, test for subgroup differences), then Save Report, the
 * report download and the JSON export.
 */

const PRO_SEARCH = "/search?q=covid%20vaccination&db=europepmc";
/** Recorded abstracts that report ratios with 95% CIs, for different outcomes. */
const TITLES = [
  /^The role of COVID-19 vaccines in preventing post-COVID-19 thromboembolic/i,
  /^Prior COVID-19 vaccination and reduced risk of cerebrovascular/i,
  /^RISK OF THROMBOEMBOLISM AFTER COVID-19 VACCINATION/i,
];

async function pickStudies(page: Page, titles: RegExp[]) {
  await page.goto(PRO_SEARCH);
  await expect(page.getByTestId("search-message")).toBeVisible();
  for (const title of titles) {
    const card = page.getByTestId("study-card").filter({ has: page.locator("h3", { hasText: title }) });
    await expect(card).toHaveCount(1);
    await card.getByRole("button", { name: "Add to meta-analysis" }).click();
  }
  await expect(page.getByTestId("meta-fab")).toHaveText(String(titles.length));
}

let pageErrors: string[] = [];
test.beforeEach(({ page }) => {
  pageErrors = [];
  page.on("pageerror", (error) => pageErrors.push(error.message));
});
test.afterEach(() => {
  expect(pageErrors).toEqual([]);
});

test("hints for 0 and 1 studies, and Run Analysis refuses fewer than 2", async ({ page }) => {
  await signIn(page, "pro@metamind.local");
  await page.goto("/meta-analysis");
  await expect(page.getByTestId("selection-hint")).toContainText("No studies selected yet");
  await expect(page.getByRole("link", { name: "Back to Search" })).toHaveAttribute("href", "/search");
  await expect(page.getByRole("button", { name: "Run Analysis" })).toBeDisabled();

  await pickStudies(page, TITLES.slice(0, 1));
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Meta-Analysis" }).click();
  await page.waitForURL((url) => url.pathname === "/meta-analysis");
  await expect(page.getByTestId("selection-hint")).toContainText("Add at least one more study");
  await page.getByRole("button", { name: "Run Analysis" }).click();
  await expect(page.getByTestId("meta-notice")).toHaveText("Please select at least 2 studies for meta-analysis");
  await page.getByRole("button", { name: /^Remove ".*" from the meta-analysis$/ }).click();
  await expect(page.getByTestId("selection-hint")).toContainText("No studies selected yet");
});

test("Professional: extract, edit a value, run REML + Hartung–Knapp, see the forest plot (no PRISMA without a review), save and download the report", async ({
  page,
}) => {
  await signIn(page, "pro@metamind.local");
  await pickStudies(page, TITLES);
  await page.getByTestId("meta-fab").click();
  await page.getByRole("link", { name: "Meta-Analysis" }).last().click();
  await page.waitForURL((url) => url.pathname === "/meta-analysis");
  await expect(page.getByTestId("meta-page-study")).toHaveCount(3);
  await expect(page.getByTestId("selection-hint")).toContainText("Ready for meta-analysis (3 studies)");
  await expect(page.getByTestId("method-select")).toHaveValue("REML");
  await expect(page.getByTestId("test-select")).toHaveValue("knha");
  await expect(page.getByText("as Cochrane's current guidance recommends")).toBeVisible();

  // Extraction: every value shows the sentence it came from.
  await page.getByRole("button", { name: "Extract Data" }).click();
  const rows = page.getByTestId("data-row");
  await expect(rows.first()).toBeVisible();
  const cerebro = rows.filter({ hasText: "Prior COVID-19 vaccination and reduced risk of cerebrovascular" }).first();
  const estimate = cerebro.getByLabel(/^Estimate of /);
  await expect(estimate).toHaveValue("0.66");
  await cerebro.getByRole("button", { name: /^Source of Estimate of / }).hover();
  await expect(page.getByTestId("value-quote").first()).toContainText("0.66");

  // Edit a value: the row is now the reviewer's.
  await estimate.fill("0.65");
  await expect(cerebro).toContainText("edited by you");

  // Run: a queued job polled until done. The cohorts' hazard ratios are for different outcomes
  // (venous thromboembolism, cerebrovascular disease), so by default nothing pools.
  await page.getByRole("button", { name: "Run Analysis" }).click();
  const results = page.getByTestId("meta-results");
  await expect(results).toBeVisible({ timeout: 30_000 });
  await expect(results).toContainText("No outcome had data from enough studies to pool");
  await expect(results.getByTestId("unpooled")).toContainText("cerebrovascular");
  await expect(results.getByTestId("forest-plot")).toHaveCount(0);

  // The reviewer merges two rows on purpose: the same pool group pools them (the I² warning says
  // whether that is wise).
  const vte = rows
    .filter({ hasText: "The role of COVID-19 vaccines in preventing post-COVID-19 thromboembolic" })
    .first();
  await expect(vte.getByLabel(/^Estimate of /)).toHaveValue("0.22");
  await vte.getByTestId("pool-group").fill("vascular events");
  await cerebro.getByTestId("pool-group").fill("vascular events");
  await page.getByRole("button", { name: "Run Analysis" }).click();
  const analysis = results.getByTestId("outcome-analysis").filter({ hasText: "vascular events (Hazard ratio, k = 2)" });
  await expect(analysis).toBeVisible({ timeout: 30_000 });
  await expect(analysis.getByTestId("heterogeneity-warning")).toContainText("with only 2 studies");
  const forest = analysis.getByTestId("forest-plot");
  await expect(forest).toBeVisible();
  await expect(forest.getByTestId("forest-study")).toHaveCount(2);
  await expect(forest).toContainText("HR [95% CI]");
  await expect(forest.getByTestId("pooled-diamond")).toHaveCount(1);
  // The edited estimate, with its CI recomputed from yi ± 1.96·√vi on the log scale.
  await expect(forest).toContainText("0.65 [0.55, 0.76]");
  await expect(analysis.getByTestId("funnel-plot")).toBeVisible();
  await expect(analysis.getByTestId("grade-table")).toBeVisible();
  await expect(analysis.getByTestId("heterogeneity-panel")).toBeVisible();
  await expect(results.getByTestId("unpooled")).toContainText("(Rate ratio, 1 study)");
  await expect(results).not.toContainText("NaN");
  // Hand-picked studies were not screened: no PRISMA flow (a review's own flow is tested in reviews.spec.ts).
  await expect(results.getByTestId("prisma-diagram")).toHaveCount(0);
  await expect(results.getByRole("region", { name: "PRISMA 2020 flow diagram" })).toContainText(
    "not screened in a systematic review",
  );
  await page.screenshot({ path: "tests/e2e/.artifacts/meta-analysis.png", fullPage: true });
  await forest.screenshot({ path: "tests/e2e/.artifacts/meta-analysis-forest.png" });
  await analysis.getByTestId("funnel-plot").screenshot({ path: "tests/e2e/.artifacts/meta-analysis-funnel.png" });
  await page.getByTestId("data-table").screenshot({ path: "tests/e2e/.artifacts/meta-analysis-data.png" });

  // Subgroup analysis: the reviewer splits the pooled studies by the outcome each one reported and
  // sees the subgroup forest plot with subtotals and the test for subgroup differences under it.
  const subgroups = analysis.getByTestId("subgroup-analysis");
  await subgroups.getByTestId("subgroup-select").selectOption({ label: "Outcome as reported" });
  const subForest = subgroups.getByTestId("subgroup-forest");
  await expect(subForest).toBeVisible();
  await expect(subForest.getByTestId("subgroup-header")).toHaveCount(2);
  await expect(subForest.getByTestId("subgroup-diamond")).toHaveCount(2);
  await expect(subForest.getByTestId("subgroup-test-line")).toContainText(
    /Test for subgroup differences: Chi² = \d+\.\d\d, df = 1 \(p [=<] [\d.]+\), I² = /,
  );
  await expect(subgroups.getByTestId("subgroup-table").getByTestId("subgroup-row")).toHaveCount(2);
  await expect(subgroups).toContainText("Some subgroups have fewer than 3 studies");
  await expect(subgroups).not.toContainText("NaN");
  await subForest.screenshot({ path: "tests/e2e/.artifacts/meta-analysis-subgroups.png" });

  // The results dialog shows the report exactly as it is saved and downloaded.
  await page.getByRole("button", { name: "View Report" }).click();
  const viewer = page.getByTestId("results-dialog");
  const frame = viewer.frameLocator('iframe[title="Meta-analysis report"]');
  await expect(frame.getByTestId("forest-plot").first()).toBeVisible();
  await expect(frame.getByTestId("methods")).toContainText("Restricted maximum likelihood (REML)");
  await viewer.getByRole("button", { name: "Close" }).click();
  await expect(viewer).toBeHidden();

  // Save Report: the name is required, then it is saved with its self-contained HTML.
  await page.getByRole("button", { name: "Save Report" }).click();
  const dialog = page.getByTestId("save-report-dialog");
  await dialog.getByLabel("Name").fill("   ");
  await dialog.getByRole("button", { name: "Save Report" }).click();
  await expect(page.getByText("Please enter a name for your report.", { exact: true })).toBeVisible();
  await dialog.getByLabel("Name").fill("COVID-19 vaccination and thrombosis");
  await dialog.getByLabel("Description (optional)").fill("Three cohorts, primary outcome RR");
  await dialog.getByRole("button", { name: "Save Report" }).click();
  await expect(page.getByText("Report Saved", { exact: true })).toBeVisible();
  await expect(dialog).toBeHidden();
  const saved = (await (await page.request.get("/api/saved-reports")).json()) as {
    reports: { name: string; type: string; htmlContent: string | null; reportData: { description?: string } }[];
  };
  const list = saved.reports;
  const report = list.find((r) => r.name === "COVID-19 vaccination and thrombosis");
  expect(report?.type).toBe("meta-analysis");
  expect(report?.reportData.description).toBe("Three cohorts, primary outcome RR");
  expect(report?.htmlContent).toContain("<svg");
  // The chosen subgroup analysis is part of the saved report.
  expect(report?.htmlContent).toContain('data-testid="subgroup-forest"');
  expect(report?.htmlContent).toContain("Test for subgroup differences: Chi² = ");

  // Download the report: one self-contained HTML file.
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("button", { name: "Download Report" }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/^metamind-analysis-report-\d+\.html$/);
  const html = await readFile((await download.path())!, "utf8");
  expect(html).toContain('data-testid="forest-plot"');
  expect(html).toContain("computed by MetaMind&#x27;s metafor-compatible engine");
  expect(html).not.toMatch(/<script|\bsrc=["']?https?:/i);

  // Export Results as JSON: data, options and results.
  await page.getByRole("button", { name: "Export Results" }).click();
  const [json] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("menuitem", { name: "JSON (data + results)" }).click(),
  ]);
  expect(json.suggestedFilename()).toMatch(/^metamind-meta-analysis-\d{4}-\d{2}-\d{2}\.json$/);
  const exported = JSON.parse(await readFile((await json.path())!, "utf8")) as {
    options: { method: string; test: string };
    data: { data: { estimate?: number } }[];
    analyses: { outcome: string; k: number }[];
  };
  expect(exported.options).toEqual({ method: "REML", test: "knha" });
  expect(exported.data.some((d) => d.data.estimate === 0.65)).toBe(true);
  expect(exported.analyses.find((a) => a.outcome === "vascular events")?.k).toBe(2);

  // Export Results as an R script and as study rows (CSV), served by the job's export route.
  await page.getByRole("button", { name: "Export Results" }).click();
  const [rScript] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("menuitem", { name: "R script (metafor)" }).click(),
  ]);
  expect(rScript.suggestedFilename()).toMatch(/^metamind-meta-analysis-[0-9a-f]{8}\.R$/);
  const script = await readFile((await rScript.path())!, "utf8");
  expect(script).toContain("library(metafor)");
  expect(script).toContain('fit1 <- rma(yi, vi, data = dat1, method = "REML", test = "knha", slab = study)');
  await page.getByRole("button", { name: "Export Results" }).click();
  const [csv] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("menuitem", { name: "Study data (CSV)" }).click(),
  ]);
  expect(csv.suggestedFilename()).toMatch(/^metamind-meta-analysis-[0-9a-f]{8}-study-data\.csv$/);
  expect(await readFile((await csv.path())!, "utf8")).toMatch(/^Analysis number,Analysis name,Effect measure,Study,/);

  // The generalised Q estimator with the reviewer's weights (metafor rma(method = "GENQ", weights = …)):
  // the weights choice appears with GENQ, the run and its R script say which weights were used.
  await expect(page.getByTestId("genq-weights-select")).toHaveCount(0);
  await page.getByTestId("method-select").selectOption("GENQ");
  const genqWeights = page.getByTestId("genq-weights-select");
  await expect(genqWeights).toHaveValue("inverse-variance");
  await genqWeights.selectOption("inverse-se");
  await page.getByRole("button", { name: "Run Analysis" }).click();
  await expect(analysis).toContainText(
    "Generalised Q, inverse standard-error weights 1/SE (Jackson 2013) (GENQ) · Hartung–Knapp",
    { timeout: 30_000 },
  );
  await expect(analysis.getByTestId("forest-plot")).toBeVisible();
  await page.getByRole("button", { name: "Export Results" }).click();
  const [genqScript] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("menuitem", { name: "R script (metafor)" }).click(),
  ]);
  expect(await readFile((await genqScript.path())!, "utf8")).toContain(
    'method = "GENQ", test = "knha", weights = 1/sqrt(vi), slab = study)',
  );
});

test("Guest: studies without effect data give a clear answer, not a broken plot", async ({ page }) => {
  await page.goto("/search?q=heart%20failure&db=pubmed");
  await expect(page.getByTestId("search-message")).toBeVisible();
  const cards = page.getByTestId("study-card");
  await cards.nth(0).getByRole("button", { name: "Add to meta-analysis" }).click();
  await cards.nth(1).getByRole("button", { name: "Add to meta-analysis" }).click();
  await expect(page.getByTestId("meta-fab")).toHaveText("2");
  await page.goto("/meta-analysis");
  await expect(page.getByTestId("selection-hint")).toContainText("Ready for meta-analysis (2 studies)");
  await page.getByRole("button", { name: "Run Analysis" }).click();
  // The job finishes; nothing is poolable, and the page says so and lists why each study is out.
  const results = page.getByTestId("meta-results");
  await expect(results).toBeVisible({ timeout: 30_000 });
  await expect(results).toContainText("No outcome had data from enough studies to pool");
  await expect(page.getByTestId("excluded-studies")).toBeVisible();
  await expect(page.getByTestId("excluded-study")).toHaveCount(2);
  await expect(results).not.toContainText("NaN");
  await expect(results.getByTestId("forest-plot")).toHaveCount(0);
});
