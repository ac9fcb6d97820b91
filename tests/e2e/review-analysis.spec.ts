import { expect, type Page } from "@playwright/test";
import { requireSharedFixtures, signIn, test } from "./shared-fixtures";

requireSharedFixtures();

/**
 * Issue 29 in a review: the reviewer adds a column to the characteristics of included studies,
 * fills it in (each edit in the audit trail), picks it as the subgroup column in the review's
 * Analysis tab and sees the subgroup forest plot with the test for subgroup differences — at
 * desktop and phone widths, without console errors.
 */

const STUDIES = [
  [
    "Zelmoxan versus placebo in sepsis: a randomised trial",
    "This trial was conducted in 6 hospitals in Spain. We randomised 198 adults with sepsis to zelmoxan (n = 100) or placebo (n = 98). Mortality was 12/100 in the zelmoxan group vs 20/98 in the placebo group.",
  ],
  [
    "Zelmoxan in older adults with sepsis",
    "Patients were randomised to zelmoxan (n = 150) or placebo (n = 152). Mortality occurred in 18/150 patients given zelmoxan compared with 30/152 given placebo.",
  ],
  [
    "Early zelmoxan for septic shock",
    "In this trial 240 patients received zelmoxan or placebo (120 per group). Mortality was 25/120 with zelmoxan versus 31/120 with placebo.",
  ],
  [
    "High-dose zelmoxan in sepsis",
    "We randomly assigned 200 patients to zelmoxan (n = 100) or placebo (n = 100). Mortality was 10/100 with zelmoxan and 24/100 with placebo.",
  ],
] as const;

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

/** A review with the four (invented) trials included at full text and the outcome "mortality", set up through the API. */
async function reviewWithOutcome(page: Page, origin: string): Promise<string> {
  const headers = { Origin: origin };
  const created = await page.request.post("/api/reviews", {
    headers,
    data: { title: "Zelmoxan subgroups (e2e)", question: { intervention: "zelmoxan", comparator: "placebo" } },
  });
  expect(created.status()).toBe(201);
  const { review } = (await created.json()) as { review: { id: string } };
  const ris = STUDIES.map(
    ([title, abstract], i) =>
      `TY  - JOUR\r\nTI  - ${title}\r\nAU  - Doe, Jane\r\nPY  - 201${i}\r\nAB  - ${abstract}\r\nER  - `,
  ).join("\r\n\r\n");
  const imported = await page.request.post(`/api/reviews/${review.id}/import`, {
    headers,
    multipart: {
      file: { name: "trials.ris", mimeType: "application/x-research-info-systems", buffer: Buffer.from(ris) },
    },
  });
  expect(imported.status()).toBe(201);
  const { records } = (await (await page.request.get(`/api/reviews/${review.id}/records`)).json()) as {
    records: { id: number }[];
  };
  for (const r of records) {
    for (const stage of ["title_abstract", "full_text"]) {
      expect(
        (
          await page.request.post(`/api/reviews/${review.id}/records/${r.id}/decision`, {
            headers,
            data: { stage, decision: "include" },
          })
        ).status(),
      ).toBe(200);
    }
  }
  expect(
    (await page.request.post(`/api/reviews/${review.id}/outcomes`, { headers, data: { name: "mortality" } })).status(),
  ).toBe(201);
  return review.id;
}

async function subgroupByAddedColumn(page: Page, origin: string) {
  await signIn(page, "pro@metamind.local");
  const reviewId = await reviewWithOutcome(page, origin);

  await page.goto(`/reviews/${reviewId}`);
  await page.getByRole("tab", { name: "Characteristics" }).click();
  const tab = page.getByTestId("review-characteristics");
  const table = tab.getByRole("table", { name: "Characteristics of included studies" });
  await expect(table.getByTestId("characteristics-row")).toHaveCount(4);
  // Pre-filled from the abstract, with its quote.
  await table.getByRole("button", { name: `${STUDIES[0][0]}: Country: Spain, show quote` }).click();
  await expect(tab.getByTestId("characteristics-quote").locator("mark")).toHaveText(
    "This trial was conducted in 6 hospitals in Spain.",
  );

  await tab.getByLabel("New column").fill("Dose");
  await tab.getByLabel("Type").selectOption("categorical");
  await tab.getByRole("button", { name: "Add column" }).click();
  await expect(table.getByRole("columnheader", { name: /Dose/ })).toBeVisible();
  for (const [i, [title]] of STUDIES.entries()) {
    await table.getByRole("button", { name: `Edit ${title}: Dose` }).click();
    const input = table.getByRole("textbox", { name: `Edit ${title}: Dose` });
    await input.fill(i < 2 ? "standard" : "high");
    await input.press("Enter");
    await expect(table.getByRole("button", { name: `${title}: Dose: ${i < 2 ? "standard" : "high"}` })).toBeVisible();
  }
  await expect(tab.getByTestId("characteristics-audit")).toContainText(
    `${STUDIES[3][0]} · Dose: blank → high · pro@metamind.local`,
  );

  await page.getByRole("tab", { name: "Analysis" }).click();
  const analysis = page.getByTestId("review-analysis");
  await expect(analysis.getByTestId("analysis-pooled")).toContainText("k = 4");
  await analysis.getByTestId("subgroup-select").selectOption({ label: "Dose" });
  const forest = analysis.getByTestId("subgroup-forest");
  await expect(forest).toBeVisible();
  await expect(forest.getByTestId("subgroup-header")).toHaveText(["standard", "high"]);
  await expect(forest.getByTestId("subgroup-diamond")).toHaveCount(2);
  await expect(forest.getByTestId("subgroup-test-line")).toContainText(
    /Test for subgroup differences: Chi² = \d+\.\d+, df = 1 \(p [=<] [\d.]+\)/,
  );
  await expect(analysis.getByTestId("subgroup-test")).toContainText("Test for subgroup differences");
  await expect(analysis.getByTestId("subgroup-narrative")).toContainText("Subgroup comparisons are observational");
  await expect(analysis.getByTestId("sensitivity-analyses")).toContainText("Fixed (equal) effects");
  await expect(analysis.getByTestId("cumulative-forest-plot")).toBeVisible();
  await expect(analysis.getByTestId("baujat-plot")).toBeVisible();
}

test("a reviewer adds a characteristics column and sees the subgroup forest plot with the test for subgroup differences (desktop)", async ({
  page,
  baseURL,
}) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await subgroupByAddedColumn(page, new URL(baseURL ?? "http://localhost").origin);
});

test("the same at phone width", async ({ page, baseURL }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await subgroupByAddedColumn(page, new URL(baseURL ?? "http://localhost").origin);
  // The page itself does not scroll sideways: wide tables and plots scroll in their own regions.
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(overflow).toBeLessThanOrEqual(1);
});
