import { readFile } from "node:fs/promises";
import { expect } from "@playwright/test";
import { requireSharedFixtures, signIn, test } from "./shared-fixtures";

requireSharedFixtures();

/** A PubMed export: one article the recorded PubMed answer also returns (PMID 11748933) and a trial it does not. */
const NBIB = [
  "PMID- 11748933",
  "TI  - Is cryopreservation a homogeneous process? Ultrastructure and motility of untreated, prefreezing, and postthawed spermatozoa of Diplodus puntazzo (Cetti).",
  "DP  - 2001",
  "",
  "PMID- 99000001",
  "TI  - Supervised exercise for depression in older adults: a randomised trial",
  "DP  - 2020",
  "",
].join("\n");

/** A second export, imported without its search and marked afterwards. */
const RIS =
  "TY  - JOUR\r\nTI  - Walking groups for depression: a cluster trial\r\nPY  - 2021\r\nDO  - 10.5555/walk-e2e.1\r\nER  - \r\n";

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

test("imported files marked as saved searches (at import and afterwards) are re-run by a living update", async ({
  page,
  baseURL,
}) => {
  test.setTimeout(180_000);
  await signIn(page, "pro@metamind.local");
  const created = await page.request.post("/api/reviews", {
    headers: { Origin: baseURL! },
    data: { title: "Exercise for depression (saved searches)" },
  });
  expect(created.status()).toBe(201);
  const { review } = (await created.json()) as { review: { id: string } };

  // Records tab: the PubMed export, marked at import with its database and query.
  await page.goto(`/reviews/${review.id}?tab=records`);
  await page
    .locator("#import-file")
    .setInputFiles({ name: "pubmed-export.nbib", mimeType: "text/plain", buffer: Buffer.from(NBIB) });
  await page.getByText("Re-run this file in living updates (a database export)").click();
  await page.getByLabel("Searched database").selectOption("pubmed");
  await page.getByLabel("Query as run").fill("exercise AND depression");
  await page.getByRole("button", { name: "Import", exact: true }).click();
  const sources = page.getByTestId("sources");
  const nbibRow = sources.getByRole("row", { name: /pubmed-export\.nbib/ });
  await expect(nbibRow).toContainText("“exercise AND depression”");
  await expect(nbibRow).toContainText("Saved search, re-run by living updates: PubMed");

  // A second export without its search; marked afterwards on its row.
  await page
    .locator("#import-file")
    .setInputFiles({ name: "walking.ris", mimeType: "application/x-research-info-systems", buffer: Buffer.from(RIS) });
  await page.getByRole("button", { name: "Import", exact: true }).click();
  const risRow = sources.getByRole("row", { name: /walking\.ris/ });
  await expect(risRow).toBeVisible();
  await expect(risRow).not.toContainText("Saved search");
  await risRow.getByRole("button", { name: "Mark as saved search" }).click();
  const mark = risRow.getByRole("form", { name: "Saved search behind walking.ris" });
  await mark.getByLabel("Searched database").selectOption("pubmed");
  await mark.getByLabel("Query as run").fill("walking depression");
  await mark.getByRole("button", { name: "Save saved search" }).click();
  await expect(risRow).toContainText("Saved search, re-run by living updates: PubMed");
  await expect(risRow).toContainText("“walking depression”");

  // PRISMA tab: an update now re-runs both files; PubMed's answer holds one record already in the review and one new.
  await page.getByRole("tab", { name: "PRISMA" }).click();
  const living = page.getByTestId("living-review");
  await living.getByLabel("Scheduled updates").selectOption("weekly");
  await expect(living.getByRole("status")).toHaveText("The searches will be re-run every week.");
  await living.getByRole("button", { name: "Update now" }).click();
  await expect(living.getByRole("status")).toHaveText("2 searches re-run: 1 new record, 3 already in the review.");
  const updated = page.getByTestId("prisma-updated");
  await expect(updated).toContainText("Updated review: 1 living update");
  await expect(updated.getByTestId("prisma-identified")).toContainText("PubMed (n = 4)");

  // The update's sources are listed under the files they re-ran.
  await page.getByRole("tab", { name: "Records" }).click();
  await expect(sources.getByRole("row", { name: /pubmed-export\.nbib \(update \d{4}-\d{2}-\d{2}\)/ })).toContainText(
    "“exercise AND depression”",
  );
  await expect(sources.getByRole("row", { name: /walking\.ris \(update \d{4}-\d{2}-\d{2}\)/ })).toBeVisible();
  await sources.screenshot({ path: "tests/e2e/.artifacts/review-saved-searches.png" });
});

/** Two trials whose abstracts give mortality counts, and PMID 11748933, which the recorded PubMed answer also returns. */
const TRIALS_NBIB = [
  [
    "1001",
    "Drug A versus placebo: a randomised controlled trial",
    "We randomly assigned 198 adults. Mortality was 12/100 vs 20/98 (p = 0.04).",
  ],
  [
    "1002",
    "Drug A in older adults: a randomized trial",
    "We randomly assigned 822 patients. Mortality occurred in 57 of 411 patients given drug A and 73 of 411 given placebo.",
  ],
  [
    "11748933",
    "Is cryopreservation a homogeneous process? Ultrastructure and motility of untreated, prefreezing, and postthawed spermatozoa of Diplodus puntazzo (Cetti).",
    "",
  ],
]
  .map(([pmid, title, abstract]) =>
    [`PMID- ${pmid}`, `TI  - ${title}`, ...(abstract ? [`AB  - ${abstract}`] : []), "DP  - 2020", ""].join("\n"),
  )
  .join("\n");

test("the meta-analysis report of a living review draws the updated-review PRISMA 2020 diagram, in the page and the downloaded report", async ({
  page,
  baseURL,
}) => {
  test.setTimeout(180_000);
  await signIn(page, "pro@metamind.local");
  const headers = { Origin: baseURL! };
  const created = await page.request.post("/api/reviews", {
    headers,
    data: { title: "Drug A and mortality (living report)" },
  });
  const { review } = (await created.json()) as { review: { id: string } };
  // Through the API with the session: a marked PubMed export, two trials included, an update, its new record included.
  const imported = await page.request.post(`/api/reviews/${review.id}/import`, {
    headers,
    multipart: {
      file: { name: "drug-a.nbib", mimeType: "text/plain", buffer: Buffer.from(TRIALS_NBIB) },
      searchDatabase: "pubmed",
      searchQuery: "drug A mortality",
    },
  });
  expect(imported.status()).toBe(201);
  const include = async (pmids: string[]) => {
    const { records } = (await (await page.request.get(`/api/reviews/${review.id}/records`)).json()) as {
      records: { id: number; pmid: string | null }[];
    };
    for (const r of records.filter((x) => pmids.includes(x.pmid ?? ""))) {
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
  };
  await include(["1001", "1002"]);
  const update = await page.request.post(`/api/reviews/${review.id}/update`, { headers });
  expect(await update.json()).toMatchObject({ searchesRun: 1, newRecords: 1, duplicatesRemoved: 1 });
  await include(["11700088"]);

  await page.goto(`/meta-analysis?review=${review.id}`);
  await expect(page.getByTestId("meta-page-study")).toHaveCount(3);
  await expect(page.getByText("the template for updated reviews: 2 previous and 1 new studies")).toBeVisible();
  await page.getByRole("button", { name: "Run Analysis" }).click();
  const diagram = page.getByTestId("report-prisma-updated");
  await expect(diagram).toContainText("Updated review: 1 living update", { timeout: 60_000 });
  await expect(diagram.getByTestId("prisma-previous")).toContainText("Previous studies:");
  await expect(diagram.getByTestId("prisma-previous")).toContainText("(n = 2)");
  await expect(diagram.getByTestId("prisma-identified")).toContainText("PubMed (n = 2)");
  await expect(diagram.getByTestId("prisma-included")).toContainText("New studies included in review (n = 1)");
  await expect(diagram.getByTestId("prisma-total")).toContainText("Total studies included in review (n = 3)");
  await diagram.screenshot({ path: "tests/e2e/.artifacts/meta-analysis-prisma-updated.png" });

  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("button", { name: "Download Report" }).click(),
  ]);
  const html = await readFile((await download.path())!, "utf8");
  expect(html).toContain("PRISMA 2020 flow diagram for updated systematic reviews");
  expect(html).toContain("Total studies included in review (n = 3)");
});
