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
    abstract:
      "We randomised 198 adults to zelmoxan (n = 100) or placebo (n = 98). Mortality was 12/100 in the zelmoxan group vs 20/98 in the placebo group.",
  },
  {
    id: 990002,
    title: "Zelmoxan in older adults with sepsis",
    abstract:
      "Patients were randomised to zelmoxan (n = 150) or placebo (n = 152). Mortality occurred in 18/150 patients given zelmoxan compared with 30/152 given placebo.",
  },
  {
    id: 990003,
    title: "Early zelmoxan for septic shock",
    abstract:
      "In this trial 240 patients received zelmoxan or placebo (120 per group). Mortality was 25/120 with zelmoxan versus 31/120 with placebo.",
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

test("extract arm data per outcome, see a quote, correct a cell and see the pooled estimate change", async ({
  page,
}) => {
  await signIn(page, "pro@metamind.local");
  await page.evaluate((studies) => {
    localStorage.setItem(
      "metamind:meta-selection:v1",
      JSON.stringify(
        studies.map((s) => ({
          ...s,
          authors: [],
          journal: null,
          publicationDate: null,
          doi: null,
          pmid: null,
          source: "europepmc",
        })),
      ),
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
  await expect(
    panel.getByRole("button", { name: `${STUDIES[0].title}: Intervention Events: 12, show quote` }),
  ).toBeVisible();
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
  await expect(
    panel.getByRole("button", { name: `${STUDIES[0].title}: Intervention Events: 2, show quote` }),
  ).toBeVisible();
  await expect(page.getByTestId("arm-audit")).toContainText("Intervention Events: 12 → 2 · pro@metamind.local");
  await expect(panel.getByText("Corrections are saved to your account.")).toBeVisible();

  await page.getByRole("button", { name: "Run Analysis" }).click();
  await expect(estimate).not.toHaveText(before ?? "", { timeout: 30_000 });
});

test("a review's data extraction: add an outcome, correct a cell, reload, the correction kept and a new pooled estimate", async ({
  page,
  baseURL,
}) => {
  await signIn(page, "pro@metamind.local");
  const headers = { Origin: new URL(baseURL ?? page.url()).origin };
  // A review whose three (invented) trials are included at full text, set up through the API.
  const created = await page.request.post("/api/reviews", {
    headers,
    data: { title: "Zelmoxan in sepsis (e2e)", question: { intervention: "zelmoxan", comparator: "placebo" } },
  });
  expect(created.status()).toBe(201);
  const { review } = (await created.json()) as { review: { id: string } };
  const ris = STUDIES.map(
    (s, i) => `TY  - JOUR\r\nTI  - ${s.title}\r\nAU  - Doe, Jane\r\nPY  - 202${i}\r\nAB  - ${s.abstract}\r\nER  - `,
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

  await page.goto(`/reviews/${review.id}?tab=extraction`);
  const tab = page.getByTestId("review-extraction");
  await expect(tab.getByLabel("Intervention arm")).toHaveValue("zelmoxan");
  await tab.getByLabel("Outcome", { exact: true }).fill("mortality");
  await tab.getByRole("button", { name: "Add outcome" }).click();
  const table = tab.getByRole("table", { name: "Data extraction: mortality" });
  await expect(table.getByRole("row")).toHaveCount(5);
  await tab.getByRole("button", { name: `${STUDIES[1].title}: Comparator Events: 30, show quote` }).click();
  await expect(page.getByTestId("review-quote").locator("mark")).toHaveText("30/152");

  await tab.getByRole("button", { name: "Analyse" }).click();
  const estimate = page.getByTestId("review-pooled-estimate");
  await expect(estimate).toBeVisible();
  const before = await estimate.textContent();
  await expect(page.getByTestId("review-pool-notes")).toContainText(`${STUDIES[0].title}: arm-level data`);

  await tab.getByRole("button", { name: `Correct ${STUDIES[0].title}: Intervention Events` }).click();
  const input = tab.getByLabel(`Edit ${STUDIES[0].title}: Intervention Events`);
  await input.fill("2");
  await input.press("Enter");
  await expect(page.getByTestId("review-audit")).toContainText("Intervention Events: 12 → 2 · pro@metamind.local");
  await expect(estimate).not.toHaveText(before ?? "");

  await page.reload();
  await expect(
    tab.getByRole("button", { name: `${STUDIES[0].title}: Intervention Events: 2, show quote` }),
  ).toBeVisible();
  await expect(page.getByTestId("review-audit")).toContainText("Intervention Events: 12 → 2 · pro@metamind.local");
  await tab.getByRole("button", { name: "Analyse" }).click();
  await expect(estimate).toBeVisible();
  expect(await estimate.textContent()).not.toBe(before);

  // The reviewer pools as RR; 'Open in meta-analysis' opens the same outcome, type, measure and
  // corrected values, and the job pools them to the same RR.
  await tab.getByLabel("Effect measure").selectOption("RR");
  await expect(page.getByTestId("review-pooled")).toContainText("Pooled RR");
  const reviewRR = (await estimate.textContent())!.match(/-?\d+\.\d+/g)!;
  await page.getByRole("tab", { name: "Analysis" }).click();
  await page.getByTestId("open-meta-analysis").click();
  await page.waitForURL(/\/meta-analysis\?review=/);
  await expect(page.getByTestId("review-data-source")).toContainText("mortality");
  await expect(page.getByTestId("meta-page-study")).toHaveCount(3);
  await page.getByRole("button", { name: "Run Analysis" }).click();
  const summary = page.getByTestId("summary-estimate");
  await expect(summary).toContainText("RR", { timeout: 60_000 });
  expect((await summary.textContent())!.match(/-?\d+\.\d+/g)!.slice(0, 3)).toEqual(reviewRR.slice(0, 3));
  await expect(page.getByTestId("prisma-included").first()).toContainText("n = 3");

  // /meta-analysis opened from the review reads the same records and applies the same stored correction.
  await page.goto(`/meta-analysis?review=${review.id}`);
  await expect(page.getByTestId("meta-page-study")).toHaveCount(3);
  const panel = page.getByTestId("arm-extraction");
  await panel.getByLabel("intervention").fill("zelmoxan");
  await panel.getByLabel("comparator").fill("placebo");
  await panel.getByLabel("outcome").fill("mortality");
  await panel.getByRole("button", { name: "Extract arm data" }).click();
  await expect(
    panel.getByRole("button", { name: `${STUDIES[0].title}: Intervention Events: 2, show quote` }),
  ).toBeVisible();
  await expect(page.getByTestId("arm-audit")).toContainText("Intervention Events: 12 → 2 · pro@metamind.local");
});
