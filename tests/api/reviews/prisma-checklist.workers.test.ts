/**
 * GET /api/reviews/{id}/prisma-checklist in the Workers runtime: filled from the review's import and
 * decisions, owner only (another account 404, signed out 401).
 */
import { describe, expect, it } from "vitest";
import { call, signUp } from "../helpers";
import type { PrismaChecklist } from "~/lib/prisma-checklist";
import type { ApiReview, ApiReviewRecord } from "~/lib/reviews";

const RIS = [1, 2, 3]
  .map((i) =>
    [
      `TY  - JOUR`,
      `TI  - Aerobic exercise for adults with depression: randomised trial ${i}`,
      `PY  - 201${i}`,
      `DO  - 10.1234/checklist.${i}`,
      `AB  - Trial ${i} of exercise.`,
      "ER  - ",
    ].join("\n"),
  )
  .join("\n\n");

describe("GET /api/reviews/{id}/prisma-checklist", () => {
  it("fills the checklist from the review's criteria, sources and decisions; only for its owner", async () => {
    const cookie = (await signUp()).cookie;
    const created = await call("POST", "/api/reviews", {
      cookie,
      body: {
        title: "Exercise for depression: a systematic review",
        criteria: { inclusion: ["randomised controlled trial"], exclusion: [] },
      },
    });
    expect(created.status).toBe(201);
    const { review } = (await created.json()) as { review: ApiReview };
    const form = new FormData();
    form.set("file", new File([RIS], "embase.ris"));
    expect((await call("POST", `/api/reviews/${review.id}/import`, { cookie, form })).status).toBe(201);
    const { records } = (await (await call("GET", `/api/reviews/${review.id}/records`, { cookie })).json()) as {
      records: ApiReviewRecord[];
    };
    expect(records).toHaveLength(3);
    const decided = await call("POST", `/api/reviews/${review.id}/records/${records[0]!.id}/decision`, {
      cookie,
      body: { stage: "title_abstract", decision: "exclude", reason: "Wrong population" },
    });
    expect(decided.status).toBe(200);

    const res = await call("GET", `/api/reviews/${review.id}/prisma-checklist`, { cookie });
    expect(res.status).toBe(200);
    const list = (await res.json()) as PrismaChecklist;
    expect(list.items).toHaveLength(42);
    const item = (n: string) => list.items.find((i) => i.item === n)!;
    expect(item("1").status).toBe("reported");
    expect(item("5")).toMatchObject({ status: "reported", section: "Methods", topic: "Eligibility criteria" });
    expect(item("6").text).toContain("the file embase.ris (imported ");
    expect(item("7").status).toBe("missing");
    expect(item("8").text).toContain("Titles and abstracts of 1 record were screened by one reviewer.");
    expect(item("16a").text).toContain("3 records identified, 0 duplicates removed, 1 record screened, 1 excluded");

    const csv = await call("GET", `/api/reviews/${review.id}/export?format=checklist`, { cookie });
    expect(csv.status).toBe(200);
    expect(csv.headers.get("Content-Disposition")).toMatch(/-prisma-checklist\.csv"$/);
    const lines = (await csv.text()).split("\r\n");
    expect(lines[0]).toBe("Checklist,Section,Item,Topic,Status,What the review recorded / what to add");
    expect(lines).toHaveLength(1 + 42 + 12);
    expect(lines[1]).toMatch(/^PRISMA 2020,Title,1,Title,reported,/);
    const whole = (await (await call("GET", `/api/reviews/${review.id}/export?format=json`, { cookie })).json()) as {
      prismaChecklist: PrismaChecklist;
    };
    expect(whole.prismaChecklist.items).toEqual(list.items);

    const other = (await signUp()).cookie;
    const foreign = await call("GET", `/api/reviews/${review.id}/prisma-checklist`, { cookie: other });
    expect(foreign.status).toBe(404);
    expect(await foreign.json()).toMatchObject({ error: "REVIEW_NOT_FOUND" });
    expect((await call("GET", `/api/reviews/${review.id}/prisma-checklist`)).status).toBe(401);
  });
});
