import { expect } from "@playwright/test";
import { requireSharedFixtures, signIn, test } from "./shared-fixtures";

requireSharedFixtures();

/** Three invented zelmoxan trials (RIS): their abstracts report no numbers, so their data come from the CSV. */
const TRIALS = [
  ["Alpha trial of zelmoxan in sepsis", "Smith, John", 2011],
  ["Beta trial of zelmoxan in septic shock", "Jones, Ann", 2014],
  ["Gamma trial of zelmoxan in older adults", "Lee, Kim", 2019],
] as const;
const RIS = TRIALS.map(
  ([title, author, year], i) =>
    `TY  - JOUR\r\nTI  - ${title}\r\nAU  - ${author}\r\nPY  - ${year}\r\nDO  - 10.5555/zel-e2e.${i}\r\nER  - `,
).join("\r\n\r\n");

/** A RevMan-style data-extraction sheet; line 3 has more events than participants. */
const BAD_CSV =
  "Study,Experimental events,Experimental total,Control events,Control total\nSmith 2011,12,100,20,98\nJones 2014,50,40,4,41\nLee 2019,30,200,35,190\n";
const GOOD_CSV = BAD_CSV.replace("Jones 2014,50,40", "Jones 2014,5,40");

let pageErrors: string[] = [];
test.beforeEach(({ page }) => {
  pageErrors = [];
  page.on("pageerror", (error) => pageErrors.push(error.message));
  page.on("console", (msg) => {
    if (msg.type() === "error") pageErrors.push(msg.text());
  });
});
test.afterEach(() => {
  expect(pageErrors).toEqual([]);
});

test("study data from a CSV: a bad line imports nothing, the fixed file pools; a living update shows the updated-review PRISMA diagram", async ({
  page,
  baseURL,
}) => {
  test.setTimeout(180_000);
  await signIn(page, "pro@metamind.local");

  // A review with three trials included at full text and a PubMed search to re-run (through the API, with the session).
  const headers = { Origin: baseURL! };
  const created = await page.request.post("/api/reviews", {
    headers,
    data: { title: "Zelmoxan in sepsis (CSV import)", question: { intervention: "zelmoxan", comparator: "placebo" } },
  });
  expect(created.status()).toBe(201);
  const { review } = (await created.json()) as { review: { id: string } };
  const imported = await page.request.post(`/api/reviews/${review.id}/import`, {
    headers,
    multipart: {
      file: { name: "zelmoxan.ris", mimeType: "application/x-research-info-systems", buffer: Buffer.from(RIS) },
    },
  });
  expect(imported.status()).toBe(201);
  expect(
    (
      await page.request.post(`/api/reviews/${review.id}/import-search`, {
        headers,
        data: { q: "exercise depression", searchProviders: "pubmed" },
      })
    ).status(),
  ).toBe(201);
  const { records } = (await (await page.request.get(`/api/reviews/${review.id}/records`)).json()) as {
    records: { id: number; title: string }[];
  };
  for (const r of records.filter((x) => TRIALS.some(([t]) => t === x.title))) {
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

  // Data extraction: an outcome, then the CSV with one bad line — the error is shown and nothing is imported.
  await page.goto(`/reviews/${review.id}?tab=extraction`);
  await page.getByLabel("Outcome", { exact: true }).fill("mortality");
  await page.getByRole("button", { name: "Add outcome" }).click();
  const table = page.getByRole("table", { name: "Data extraction: mortality" });
  await expect(table.getByRole("row")).toHaveCount(5);
  await page.getByRole("button", { name: "Import study data (CSV)" }).click();
  const dialog = page.getByTestId("study-data-import");
  await dialog
    .getByLabel("Study data CSV file")
    .setInputFiles({ name: "revman.csv", mimeType: "text/csv", buffer: Buffer.from(BAD_CSV) });
  const errors = dialog.getByTestId("import-errors");
  await expect(errors).toContainText(
    "Line 3 (Experimental events): Intervention events (50) exceed the intervention N (40).",
  );
  await expect(dialog.getByLabel("Column for Intervention N")).toHaveValue("Experimental total");
  await expect(dialog.getByRole("button", { name: /^Import 2 studies/ })).toBeDisabled();
  await expect(table).not.toContainText("imported CSV");

  // The fixed file: every line matched to its study, imported at once, and the outcome pools.
  await dialog
    .getByLabel("Study data CSV file")
    .setInputFiles({ name: "revman.csv", mimeType: "text/csv", buffer: Buffer.from(GOOD_CSV) });
  await expect(errors).toHaveCount(0);
  const preview = dialog.getByRole("table", { name: "Import preview" });
  await expect(preview.getByRole("row")).toHaveCount(4);
  await expect(preview.getByRole("row", { name: /Jones 2014/ })).toContainText("5/40 vs 4/41");
  await dialog.getByRole("button", { name: "Import 3 studies into “mortality”" }).click();
  await expect(dialog.getByRole("status")).toHaveText("Imported 3 studies into “mortality”.");
  await expect(table.getByRole("row", { name: /Alpha trial/ })).toContainText("imported CSV");
  await expect(table.getByRole("row", { name: /Alpha trial/ })).toContainText("revman.csv, line 2");
  await page.getByRole("button", { name: "Analyse" }).click();
  await expect(page.getByTestId("review-pooled")).toContainText("k = 3");
  await expect(page.getByTestId("review-pooled-estimate")).toBeVisible();

  // Living: an update now; the PRISMA tab then draws the template for updated reviews.
  await page.getByRole("tab", { name: "PRISMA" }).click();
  await expect(page.getByTestId("prisma-updated")).toHaveCount(0);
  const living = page.getByTestId("living-review");
  await living.getByLabel("Scheduled updates").selectOption("monthly");
  await expect(living.getByRole("status")).toHaveText("The searches will be re-run every month.");
  await living.getByRole("button", { name: "Update now" }).click();
  await expect(living.getByRole("status")).toContainText(
    /^1 search re-run: 0 new records, \d+ already in the review\.$/,
  );
  const updated = page.getByTestId("prisma-updated");
  await expect(updated).toContainText("Updated review: 1 living update");
  await expect(updated.getByTestId("prisma-previous")).toContainText("(n = 3)");
  await expect(updated.getByTestId("prisma-included")).toContainText("New studies included in review (n = 0)");
  await expect(updated.getByTestId("prisma-total")).toContainText("Total studies included in review (n = 3)");
  await updated.screenshot({ path: "tests/e2e/.artifacts/review-prisma-updated.png" });
});
