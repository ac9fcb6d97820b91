import { expect } from "@playwright/test";
import { requireSharedFixtures, signIn, test } from "./shared-fixtures";

requireSharedFixtures();

/** A RIS export of 24 records: 12 on the review's topic, 12 off it (as Zotero writes RIS). */
function risFile(): string {
  const out: string[] = [];
  for (let i = 0; i < 24; i++) {
    const relevant = i % 2 === 0;
    out.push(
      [
        "TY  - JOUR",
        relevant
          ? `TI  - Supervised aerobic exercise for adults with major depression: a randomised controlled trial (cohort ${i})`
          : `TI  - Nitrogen mineralisation in alpine grassland soils along an elevation gradient (site ${i})`,
        `AU  - ${relevant ? "Okafor" : "Lindqvist"}, Ada`,
        `PY  - ${2012 + (i % 10)}`,
        `T2  - ${relevant ? "Journal of Affective Disorders" : "Soil Biology and Biochemistry"}`,
        `DO  - 10.5555/e2e.${i}`,
        relevant
          ? `AB  - Adults with major depression were randomised to supervised aerobic exercise or usual care; depressive symptoms fell more with exercise (cohort ${i}).`
          : `AB  - Net nitrogen mineralisation was measured in alpine soils at ${i + 3} elevations; rates declined with altitude.`,
        "ER  - ",
      ].join("\r\n"),
    );
  }
  return out.join("\r\n\r\n");
}

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

test("a systematic review: create, import RIS, add a search, screen 20 records by keyboard, full-text screen two, PRISMA matches", async ({
  page,
}) => {
  test.setTimeout(180_000);
  await signIn(page, "pro@metamind.local");

  // Create the review.
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Reviews" }).click();
  await page.waitForURL((url) => url.pathname === "/reviews");
  await page.getByLabel("Title").fill("Exercise for adults with depression");
  await page.getByLabel("Question").fill("Does supervised aerobic exercise reduce depression in adults?");
  await page.getByLabel("Population").fill("adults with major depression");
  await page.getByLabel("Intervention").fill("aerobic exercise");
  await page
    .getByLabel("Inclusion criteria (one per line)")
    .fill("randomised controlled trial\ndepressive symptoms outcome");
  await page.getByRole("button", { name: "Create review" }).click();
  await page.waitForURL(/\/reviews\/[0-9a-f-]{36}$/);
  const reviewUrl = page.url();

  // Import a RIS file.
  await page.getByLabel("File").setInputFiles({
    name: "zotero-export.ris",
    mimeType: "application/x-research-info-systems",
    buffer: Buffer.from(risFile()),
  });
  await page.getByRole("button", { name: "Import" }).click();
  const sources = page.getByTestId("sources");
  await expect(sources).toContainText("zotero-export.ris");
  await expect(sources.getByRole("row").nth(1)).toContainText("24");
  await expect(page.getByTestId("records-table").getByRole("row")).toHaveCount(25);

  // Add a search from /search: every record it returns, not only the page shown.
  // PubMed named in the URL: the account's default database may have been changed by another spec.
  await page.goto(`/search?q=${encodeURIComponent("exercise depression")}&db=pubmed`);
  await expect(page.getByTestId("search-message")).toBeVisible({ timeout: 30_000 });
  await page.getByTestId("add-to-review").click();
  await page.getByRole("radio", { name: /Exercise for adults with depression/ }).check();
  await page.getByTestId("add-to-review-confirm").click();
  const added = page.getByTestId("add-to-review-done");
  await expect(added).toContainText("records added");
  const searchAdded = Number((await added.textContent())!.match(/(\d+) records added/)![1]);
  expect(searchAdded).toBeGreaterThan(0);
  await page.keyboard.press("Escape");

  await page.goto(reviewUrl);
  await expect(page.getByTestId("sources").getByRole("row")).toHaveCount(3);
  const total = 24 + searchAdded;

  // Screen 20 records with the keyboard: i for the topic, e otherwise; u undoes once.
  await page.getByRole("tab", { name: "Screening" }).click();
  const record = page.getByTestId("screening-record");
  const progress = page.getByTestId("screening-progress");
  await expect(progress).toContainText(`0 of ${total} screened`);
  let included = 0;
  let excluded = 0;
  for (let n = 0; n < 20; n++) {
    const id = await record.getAttribute("data-record-id");
    const title = (await record.getByRole("heading").textContent()) ?? "";
    const include = /exercise/i.test(title) && /depress/i.test(title);
    await page.keyboard.press(include ? "i" : "e");
    if (include) included++;
    else excluded++;
    await expect(progress).toContainText(`${n + 1} of ${total} screened`);
    await expect(record).not.toHaveAttribute("data-record-id", id!);
    if (n === 4) {
      // u: the decision just made is undone and its record shown again, then decided again.
      await page.keyboard.press("u");
      await expect(progress).toContainText(`${n} of ${total} screened`);
      await expect(record).toHaveAttribute("data-record-id", id!);
      await page.keyboard.press(include ? "i" : "e");
      await expect(progress).toContainText(`${n + 1} of ${total} screened`);
    }
  }
  await expect(progress).toContainText(`${included} included`);
  await expect(page.getByTestId("stopping-aid")).toContainText("Exclusions in a row");
  await expect(page.getByTestId("stopping-criterion")).toHaveText("not yet");
  await expect(page.getByTestId("stopping-aid")).toContainText("Recall ≥ 95% with 95% confidence");
  // The active-learning ranking puts the topic first once it has an include and an exclude.
  expect(included).toBeGreaterThanOrEqual(10);

  // Full-text screen two: one included, one excluded with a reason.
  await page.getByRole("tab", { name: "Full text" }).click();
  const reports = page.getByTestId("fulltext-record");
  await expect(reports).toHaveCount(included);
  await reports.nth(0).getByRole("button", { name: "Include" }).click();
  await expect(reports.nth(0).getByTestId("fulltext-decision")).toHaveText("include");
  await reports.nth(1).getByRole("button", { name: "Exclude" }).click();
  await expect(reports.nth(1).getByRole("alert")).toContainText("Choose a reason");
  await reports.nth(1).getByLabel("Reason for exclusion").selectOption("Wrong outcome");
  await reports.nth(1).getByRole("button", { name: "Exclude" }).click();
  await expect(reports.nth(1).getByTestId("fulltext-decision")).toHaveText("exclude: Wrong outcome");
  await expect(page.getByTestId("fulltext-progress")).toContainText(`2 of ${included} reports assessed · 1 included`);

  // PRISMA from the decisions.
  await page.getByRole("tab", { name: "PRISMA" }).click();
  const prisma = page.getByTestId("prisma-diagram");
  await expect(prisma).toBeVisible();
  await expect(prisma.getByTestId("prisma-identified")).toContainText("zotero-export.ris (n = 24)");
  await expect(prisma.getByTestId("prisma-identified")).toContainText("PubMed");
  // Records not yet screened are stated, so the boxes add up while screening goes on (issue 33).
  await expect(prisma.getByTestId("prisma-screened")).toContainText("screened so far (n = 20)");
  await expect(prisma.getByTestId("prisma-excluded")).toContainText("awaiting a decision");
  await expect(prisma.getByTestId("prisma-excluded")).toContainText(`Records excluded (n = ${excluded})`);
  await expect(prisma.getByTestId("prisma-sought")).toContainText(`Reports sought for retrieval (n = ${included})`);
  await expect(prisma.getByTestId("prisma-not-retrieved")).toContainText("Reports not retrieved (n = 0)");
  await expect(prisma.getByTestId("prisma-assessed")).toContainText(
    `Reports to assess for eligibility (n = ${included})`,
  );
  await expect(prisma.getByTestId("prisma-assessed")).toContainText("assessed so far (n = 2)");
  await expect(prisma.getByTestId("prisma-reports-excluded")).toContainText(
    `awaiting a decision (n = ${included - 2})`,
  );
  await expect(prisma.getByTestId("prisma-reports-excluded")).toContainText("Wrong outcome (n = 1)");
  await expect(prisma.getByTestId("prisma-included")).toContainText("Studies included in review (n = 1)");
  await prisma.screenshot({ path: "tests/e2e/.artifacts/review-prisma.png" });
  await expect(page.getByTestId("export-svg")).toHaveAttribute("href", /\/export\?format=svg$/);

  // One study included at full text: 'Open in meta-analysis' is disabled and says why.
  await page.getByRole("tab", { name: "Analysis" }).click();
  await expect(page.getByTestId("open-meta-analysis")).toBeDisabled();
  await expect(page.getByTestId("open-meta-analysis-reason")).toContainText(
    "at least 2 studies included at full text (1 so far)",
  );

  // The PRISMA 2020 checklist, filled in from the same decisions.
  await page.getByRole("tab", { name: "PRISMA" }).click();
  const checklist = page.getByTestId("prisma-checklist");
  await expect(checklist.getByRole("heading", { name: "PRISMA 2020 checklist" })).toBeVisible();
  await expect(checklist.getByRole("row", { name: /^16a Results Study selection Reported/ })).toContainText(
    "20 records screened",
  );
  await expect(checklist.getByRole("row", { name: /^8 / })).toContainText("screened by one reviewer");
  await expect(page.getByTestId("methods-draft")).toContainText("the file zotero-export.ris (imported ");
  await expect(page.getByTestId("export-checklist")).toHaveAttribute("href", /\/export\?format=checklist$/);

  // Living review: a weekly schedule, then an update now that re-runs the PubMed search.
  const living = page.getByTestId("living-review");
  await living.getByLabel("Scheduled updates").selectOption("weekly");
  await expect(living.getByRole("status")).toHaveText("The searches will be re-run every week.");
  await expect(living).toContainText("Next update:");
  await living.getByRole("button", { name: "Update now" }).click();
  await expect(living.getByRole("status")).toContainText(
    /^1 search re-run: 0 new records, \d+ already in the review\.$/,
  );
  await expect(living.getByRole("row", { name: /by hand/ })).toContainText("none");
});

test("the Records tab: an untitled record imports with its line's warning; 250 records load page by page, drawn near the view; search runs on the server", async ({
  page,
}) => {
  test.setTimeout(120_000);
  await signIn(page, "pro@metamind.local");
  await page.goto("/reviews");
  await page.getByLabel("Title").fill("Paging and warnings");
  await page.getByRole("button", { name: "Create review" }).click();
  await page.waitForURL(/\/reviews\/[0-9a-f-]{36}$/);

  // An ASReview-style CSV of 250 records; the record on line 44 has no title.
  const rows = Array.from({ length: 250 }, (_, i) =>
    i === 42
      ? `,"An abstract whose record lost its title",10.5555/paging.${i},2020`
      : `"${i % 10 === 0 ? "Aerobic exercise trial" : "Alpine soil survey"} number ${i}","Abstract ${i}",10.5555/paging.${i},2020`,
  );
  await page.getByLabel("File").setInputFiles({
    name: "asreview.csv",
    mimeType: "text/csv",
    buffer: Buffer.from(`title,abstract,doi,year\n${rows.join("\n")}\n`),
  });
  await page.getByRole("button", { name: "Import" }).click();
  const warnings = page.getByTestId("import-warnings");
  await expect(warnings).toContainText("Line 44: record has no title; imported as '[No title]'");
  await expect(page.getByRole("heading", { name: /^Records/ })).toContainText("(250)");

  // The first page is 100 records, of which only those near the view are drawn.
  const table = page.getByTestId("records-table");
  await expect(table.getByRole("row").nth(1)).toContainText("Aerobic exercise trial number 0");
  const drawn = await table.getByRole("row").count();
  expect(drawn).toBeGreaterThan(10);
  expect(drawn).toBeLessThan(60);
  await expect(page.getByTestId("records-loaded")).toContainText("100 of 250 loaded");

  // Scrolling to the end loads the next pages until every record is there.
  const region = page.getByRole("region", { name: "Records", exact: true });
  await expect(async () => {
    await region.evaluate((el) => el.scrollTo(0, el.scrollHeight));
    await expect(table).toContainText("Alpine soil survey number 249", { timeout: 1000 });
  }).toPass({ timeout: 20_000 });
  await expect(page.getByTestId("records-loaded")).toHaveCount(0);
  await region.evaluate((el) => el.scrollTo(0, 0));
  await expect(table).toContainText("[No title]");

  await page.getByLabel("Search records").fill("aerobic exercise");
  await expect(page.getByRole("heading", { name: /^Records/ })).toContainText("(25)");
  await expect(table.getByRole("row")).toHaveCount(26);
});
