import { expect } from "@playwright/test";
import { requireSharedFixtures, signIn, test } from "./shared-fixtures";

requireSharedFixtures();

/**
 * Arm-level data extraction on /meta-analysis: three (invented) trial abstracts in the selection,
 * the per-outcome extraction table with each study's 2×2, a quote shown highlighted, a corrected
 * cell with its audit entry, and the pooled estimate computed from the arm data changing after the
 * correction.
 */

const STUDIES = [
  {
    id: 990001,
    title: "Zelmoxan versus placebo in sepsis: a randomised trial",
    abstract: "We randomised 198 adults to zelmoxan (n = 100) or placebo (n = 98). Mortality was 12/100 in the zelmoxan group vs 20/98 in the placebo group.",
  },
  {
    id: 990002,
    title: "Zelmoxan in older adults with sepsis",
    abstract: "Patients were randomised to zelmoxan (n = 150) or placebo (n = 152). Mortality occurred in 18/150 patients given zelmoxan compared with 30/152 given placebo.",
  },
  {
    id: 990003,
    title: "Early zelmoxan for septic shock",
    abstract: "In this trial 240 patients received zelmoxan or placebo (120 per group). Mortality was 25/120 with zelmoxan versus 31/120 with placebo.",
  },
];

let pageErrors: string[] = [];
test.beforeEach(({ page }) => {
  pageErrors = [];
  page.on("pageerror", (error) => pageErrors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") pageErrors.push(message.text());
  });
});
test.afterEach(() => {
  expect(pageErrors).toEqual([]);
});

test("extract arm data per outcome, see a quote, correct a cell and see the pooled estimate change", async ({ page }) => {
  await signIn(page, "pro@metamind.local");
  await page.evaluate((studies) => {
    localStorage.setItem(
      "metamind:meta-selection:v1",
      JSON.stringify(studies.map((s) => ({ ...s, authors: [], journal: null, publicationDate: null, doi: null, pmid: null, source: "europepmc" }))),
    );
  }, STUDIES);
  await page.goto("/meta-analysis");
  await expect(page.getByTestId("meta-page-study")).toHaveCount(3);

  const panel = page.getByTestId("arm-extraction");
  await panel.getByLabel("intervention").fill("zelmoxan");
  await panel.getByLabel("comparator").fill("placebo");
  await panel.getByLabel("outcome").fill("mortality");
  await panel.getByRole("button", { name: "Extract arm data" }).click();

  const table = panel.getByRole("table", { name: "Data extraction: mortality" });
  await expect(table.getByRole("row")).toHaveCount(5);
  await expect(panel.getByRole("button", { name: `${STUDIES[0].title}: Intervention Events: 12, show quote` })).toBeVisible();
  await expect(panel.getByRole("button", { name: `${STUDIES[0].title}: Comparator n: 98, show quote` })).toBeVisible();
  await expect(page.getByTestId("arm-summary")).toContainText("3 studies are analysed from arm-level data");

  await panel.getByRole("button", { name: `${STUDIES[1].title}: Comparator Events: 30, show quote` }).click();
  await expect(page.getByTestId("arm-quote").locator("mark")).toHaveText("30/152");

  await page.getByRole("button", { name: "Run Analysis" }).click();
  const estimate = page.getByTestId("summary-estimate").first();
  await expect(estimate).toBeVisible({ timeout: 30_000 });
  const before = await estimate.textContent();

  await panel.getByRole("button", { name: `Correct ${STUDIES[0].title}: Intervention Events` }).click();
  const input = panel.getByLabel(`Edit ${STUDIES[0].title}: Intervention Events`);
  await input.fill("2");
  await input.press("Enter");
  await expect(panel.getByRole("button", { name: `${STUDIES[0].title}: Intervention Events: 2, show quote` })).toBeVisible();
  await expect(page.getByTestId("arm-audit")).toContainText("Intervention Events: 12 → 2 · pro@metamind.local");
  await expect(panel.getByText("Corrections are saved to your account.")).toBeVisible();

  await page.getByRole("button", { name: "Run Analysis" }).click();
  await expect(estimate).not.toHaveText(before ?? "", { timeout: 30_000 });
});
