import { expect, type Page } from "@playwright/test";
import { requireSharedFixtures, signIn, test } from "./shared-fixtures";

requireSharedFixtures();

/** Six records: three on the review's topic, three off it. */
function risFile(): string {
  return Array.from({ length: 6 }, (_, i) =>
    [
      "TY  - JOUR",
      i % 2 === 0
        ? `TI  - Supervised aerobic exercise for adults with major depression: a randomised trial (team ${i})`
        : `TI  - Nitrogen mineralisation in alpine grassland soils (team site ${i})`,
      "AU  - Okafor, Ada",
      `PY  - ${2015 + i}`,
      `DO  - 10.5555/team-e2e.${Date.now()}.${i}`,
      i % 2 === 0
        ? "AB  - Adults with depression were randomised to aerobic exercise or usual care."
        : "AB  - Nitrogen mineralisation in alpine soils declined with altitude.",
      "ER  - ",
    ].join("\r\n"),
  ).join("\r\n\r\n");
}

function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  page.on("console", (msg) => {
    if (msg.type() === "error") errors.push(msg.text());
  });
  return errors;
}

test("two reviewers screen the same review in dual blind mode; the owner resolves the conflict and sees the agreement", async ({
  page: owner,
  browser,
  baseURL,
}) => {
  test.setTimeout(180_000);
  const ownerErrors = watchErrors(owner);
  await signIn(owner, "pro@metamind.local");

  // The owner's review with six records (through the API, with the owner's session).
  const headers = { Origin: baseURL! };
  const created = await owner.request.post("/api/reviews", {
    headers,
    data: {
      title: "Team screening of exercise trials",
      question: "aerobic exercise for depression in adults",
      criteria: ["randomised trial"],
    },
  });
  expect(created.status()).toBe(201);
  const { review } = (await created.json()) as { review: { id: string } };
  const imported = await owner.request.post(`/api/reviews/${review.id}/import`, {
    headers,
    multipart: {
      file: { name: "team.ris", mimeType: "application/x-research-info-systems", buffer: Buffer.from(risFile()) },
    },
  });
  expect(imported.status()).toBe(201);

  // Team tab: invite the Free account as reviewer and switch to dual, blind screening.
  await owner.goto(`/reviews/${review.id}?tab=team`);
  await owner.getByTestId("invite-email").fill("free@metamind.local");
  await owner.getByTestId("invite-role").selectOption("reviewer");
  await owner.getByRole("button", { name: "Invite" }).click();
  const link = (await owner.getByTestId("invite-link").textContent())!.trim();
  expect(link).toMatch(/\/invitations\/[A-Za-z0-9_-]{43}$/);
  await expect(owner.getByTestId("team-members")).toContainText("invited");
  await owner.getByTestId("mode-dual").check();
  await owner.getByTestId("save-screening").click();
  await expect(owner.getByTestId("review-counts")).toContainText("Dual screening, blind");

  // A second browser context: the invited reviewer accepts and sees the shared review.
  const context = await browser.newContext();
  const reviewer = await context.newPage();
  const reviewerErrors = watchErrors(reviewer);
  await signIn(reviewer, "free@metamind.local");
  await reviewer.goto(new URL(link).pathname);
  await reviewer.getByTestId("accept-invitation").click();
  await reviewer.waitForURL((url) => url.pathname === `/reviews/${review.id}`);
  await expect(reviewer.getByTestId("review-counts")).toContainText("Shared with you as reviewer");

  // The owner votes first: include.
  await owner.getByRole("tab", { name: "Screening" }).click();
  const ownerRecord = owner.getByTestId("screening-record");
  await expect(ownerRecord).toBeVisible();
  const first = await ownerRecord.getAttribute("data-record-id");
  await owner.keyboard.press("i");
  await expect(owner.getByTestId("my-votes")).toContainText("your votes: 1");
  await expect(ownerRecord).not.toHaveAttribute("data-record-id", first!);

  // The reviewer gets the record awaiting its second vote first, with nothing of the owner's vote.
  await reviewer.getByRole("tab", { name: "Screening" }).click();
  const reviewerRecord = reviewer.getByTestId("screening-record");
  await expect(reviewerRecord).toHaveAttribute("data-record-id", first!);
  await expect(reviewer.getByTestId("screening-progress")).toContainText("0 of 6 screened");
  await reviewer.getByRole("tab", { name: "Records" }).click();
  await expect(reviewer.getByText(/pro@metamind\.local/)).toHaveCount(0);
  await reviewer.getByRole("tab", { name: "Screening" }).click();
  await expect(reviewerRecord).toHaveAttribute("data-record-id", first!);
  await reviewer.keyboard.press("e");
  await expect(reviewer.getByTestId("my-votes")).toContainText("your votes: 1");

  // The conflict reaches the owner's queue with both votes; the owner resolves it.
  await owner.getByRole("tab", { name: "Team" }).click();
  const conflict = owner.getByTestId("conflict");
  await expect(conflict).toHaveCount(1);
  await expect(conflict).toContainText("pro@metamind.local: include");
  await expect(conflict).toContainText("free@metamind.local: exclude");
  await expect(owner.getByTestId("agreement")).toContainText(
    /pro@metamind\.local & free@metamind\.local|free@metamind\.local & pro@metamind\.local/,
  );
  await conflict.getByTestId("resolve-include").click();
  await expect(owner.getByTestId("conflict")).toHaveCount(0);
  await expect(owner.getByText("No conflicts waiting.")).toBeVisible();
  await expect(owner.getByTestId("review-counts")).toContainText("1 screened");

  // The reviewer leaves: the review is gone from their list.
  await reviewer.getByRole("tab", { name: "Team" }).click();
  await reviewer.getByRole("button", { name: "Leave review" }).click();
  await reviewer.waitForURL((url) => url.pathname === "/reviews");
  expect((await reviewer.request.get(`/api/reviews/${review.id}`)).status()).toBe(404);

  expect(ownerErrors).toEqual([]);
  expect(reviewerErrors).toEqual([]);
  await context.close();
});

test("dual extraction: two reviewers extract a study blind, the differing cell is highlighted, the owner records the consensus", async ({
  page: owner,
  browser,
  baseURL,
}) => {
  test.setTimeout(180_000);
  const ownerErrors = watchErrors(owner);
  await signIn(owner, "pro@metamind.local");
  const headers = { Origin: baseURL! };
  const created = await owner.request.post("/api/reviews", {
    headers,
    data: { title: "Team extraction of exercise trials", question: "aerobic exercise for depression in adults" },
  });
  const { review } = (await created.json()) as { review: { id: string } };
  expect(
    (
      await owner.request.post(`/api/reviews/${review.id}/import`, {
        headers,
        multipart: {
          file: { name: "team.ris", mimeType: "application/x-research-info-systems", buffer: Buffer.from(risFile()) },
        },
      })
    ).status(),
  ).toBe(201);
  const { records } = (await (await owner.request.get(`/api/reviews/${review.id}/records`)).json()) as {
    records: { id: number; title: string }[];
  };
  const study = records.find((r) => r.title.includes("team 0"))!;
  for (const stage of ["title_abstract", "full_text"]) {
    expect(
      (
        await owner.request.post(`/api/reviews/${review.id}/records/${study.id}/decision`, {
          headers,
          data: { stage, decision: "include" },
        })
      ).status(),
    ).toBe(200);
  }
  expect(
    (
      await owner.request.post(`/api/reviews/${review.id}/outcomes`, {
        headers,
        data: { name: "Response", intervention: "aerobic exercise", comparator: "usual care" },
      })
    ).status(),
  ).toBe(201);
  const invited = (await (
    await owner.request.post(`/api/reviews/${review.id}/members`, {
      headers,
      data: { email: "free@metamind.local", role: "reviewer" },
    })
  ).json()) as {
    invitation: { url: string };
  };

  // The owner switches the review to dual extraction in the Team tab.
  await owner.goto(`/reviews/${review.id}?tab=team`);
  await owner.getByTestId("extraction-dual").check();
  await owner.getByTestId("save-extraction").click();
  await expect(owner.getByText("Extraction settings saved", { exact: true })).toBeVisible();

  const context = await browser.newContext();
  const reviewer = await context.newPage();
  const reviewerErrors = watchErrors(reviewer);
  await signIn(reviewer, "free@metamind.local");
  await reviewer.goto(new URL(invited.invitation.url).pathname);
  await reviewer.getByTestId("accept-invitation").click();
  await reviewer.waitForURL((url) => url.pathname === `/reviews/${review.id}`);

  // The owner submits first.
  await owner.getByRole("tab", { name: "Data extraction" }).click();
  const ownerStudy = owner.getByTestId("dual-study");
  await expect(ownerStudy).toContainText("0 of 2 extractions");
  await ownerStudy.getByTestId("submit-extraction").click();
  await expect(ownerStudy).toContainText("1 of 2 extractions");

  // The reviewer sees that one extraction is in, but not its values; corrects a value and submits.
  await reviewer.getByRole("tab", { name: "Data extraction" }).click();
  const reviewerStudy = reviewer.getByTestId("dual-study");
  await expect(reviewerStudy).toContainText("1 of 2 extractions");
  await expect(reviewerStudy).toContainText("Blind: the other reviewer");
  await expect(reviewerStudy.getByRole("table")).toHaveCount(0);
  await reviewer.getByRole("button", { name: /^Correct .*team 0.*: Intervention Events$/ }).click();
  await reviewer.getByRole("textbox", { name: /^Edit .*: Intervention Events$/ }).fill("12");
  await reviewer.keyboard.press("Enter");
  await expect(reviewer.getByTestId("review-audit")).toContainText("→ 12");
  await reviewerStudy.getByTestId("submit-extraction").click();
  await expect(reviewerStudy).toContainText("2 of 2 extractions");
  // Side by side: the differing cell is highlighted.
  await expect(reviewerStudy.locator("tr[data-differs='true']")).toHaveCount(1);
  await expect(reviewerStudy.locator("tr[data-differs='true']")).toContainText("Intervention Events");
  await expect(reviewerStudy.locator("tr[data-differs='true']")).toContainText("awaiting consensus");

  // The owner records the consensus value.
  await owner.reload();
  await expect(ownerStudy.locator("tr[data-differs='true']")).toContainText("12");
  await ownerStudy.getByRole("textbox", { name: "Consensus Intervention Events" }).fill("12");
  await ownerStudy.getByTestId("save-consensus").click();
  await expect(ownerStudy.getByTestId("consensus-complete")).toBeVisible();
  await expect(ownerStudy.getByTestId("consensus-by")).toContainText("pro@metamind.local");

  // The Team tab: progress and the activity log.
  await owner.getByRole("tab", { name: "Team" }).click();
  await expect(owner.getByTestId("activity")).toContainText("recorded consensus values (Response)");
  await expect(owner.getByTestId("activity")).toContainText(
    "free@metamind.local submitted their extraction (Response)",
  );
  await expect(owner.getByTestId("member-progress").first()).toContainText("extracted 1");

  expect(ownerErrors).toEqual([]);
  expect(reviewerErrors).toEqual([]);
  await context.close();
});
