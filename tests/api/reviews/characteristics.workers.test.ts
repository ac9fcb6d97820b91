import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { type Account, call, json, signUp, statusAndError } from "../helpers";
import { reviewCharacteristicEdits } from "../../../db/schema";
import type { CharacteristicColumn, CharacteristicEdit, CharacteristicsTable } from "~/lib/characteristics";
import type { ApiReview, ApiReviewRecord } from "~/lib/reviews";
import { createDb } from "~/.server/db/client";

const db = () => createDb(env.DB);

/** Invented trial abstracts. */
const RIS = [
  [
    "Zelmoxan versus placebo in sepsis: a randomised trial",
    "This trial was conducted in 8 hospitals in Spain. We randomised 198 adults with sepsis to zelmoxan (n = 100) or placebo (n = 98). The trial was funded by the Sepsis Foundation.",
  ],
  [
    "Zelmoxan in older adults with sepsis",
    "Patients were recruited in Japan and randomised to zelmoxan or placebo. Mortality occurred in 18/150 patients given zelmoxan compared with 30/152 given placebo.",
  ],
  ["Zelmoxan for septic shock: pilot", "A pilot study of zelmoxan in 40 adults; mortality was 3/20 vs 5/20."],
]
  .map(
    ([title, abstract], i) =>
      `TY  - JOUR\nTI  - ${title}\nAU  - Doe, Jane\nPY  - 202${i}\nDO  - 10.5555/chars.${crypto.randomUUID()}\nAB  - ${abstract}\nER  - `,
  )
  .join("\n\n");

async function reviewWithIncludedStudies(owner: Account): Promise<{ review: ApiReview; recordIds: number[] }> {
  const review = (
    await json<{ review: ApiReview }>(
      await call("POST", "/api/reviews", {
        cookie: owner.cookie,
        body: { title: "Zelmoxan in sepsis", question: "zelmoxan in sepsis" },
      }),
      201,
    )
  ).review;
  const form = new FormData();
  form.set("file", new File([RIS], "trials.ris"));
  await json(await call("POST", `/api/reviews/${review.id}/import`, { cookie: owner.cookie, form }), 201);
  const { records } = await json<{ records: ApiReviewRecord[] }>(
    await call("GET", `/api/reviews/${review.id}/records`, { cookie: owner.cookie }),
    200,
  );
  const ids = records.map((r) => r.id).sort((a, b) => a - b);
  // The first two are included at full text; the third only at title/abstract.
  for (const [i, id] of ids.entries()) {
    for (const stage of i < 2 ? ["title_abstract", "full_text"] : ["title_abstract"]) {
      await json(
        await call("POST", `/api/reviews/${review.id}/records/${id}/decision`, {
          cookie: owner.cookie,
          body: { stage, decision: "include" },
        }),
        200,
      );
    }
  }
  return { review, recordIds: ids };
}

async function join(owner: Account, reviewId: string, member: Account, role: "reviewer" | "viewer"): Promise<void> {
  const { invitation } = await json<{ invitation: { debugToken: string } }>(
    await call("POST", `/api/reviews/${reviewId}/members`, {
      cookie: owner.cookie,
      body: { email: member.email, role },
    }),
    201,
  );
  await json(await call("POST", `/api/invitations/${invitation.debugToken}/accept`, { cookie: member.cookie }), 200);
}

describe("characteristics of included studies", () => {
  it(
    "pre-fills from the text with quotes, adds columns, records edits with who/when/old → new, exports CSV; viewers read only",
    { timeout: 90_000 },
    async () => {
      const owner = await signUp("pro");
      const viewer = await signUp("pro");
      const stranger = await signUp("pro");
      const { review, recordIds } = await reviewWithIncludedStudies(owner);
      const path = `/api/reviews/${review.id}/characteristics`;

      const table = await json<CharacteristicsTable>(await call("GET", path, { cookie: owner.cookie }), 200);
      expect(table.included).toBe(2);
      expect(table.studies.map((s) => s.recordId)).toEqual(recordIds.slice(0, 2));
      expect(table.columns.map((c) => c.key)).toEqual([
        "design",
        "country",
        "setting",
        "randomised",
        "population",
        "intervention",
        "comparator",
        "followUp",
        "funding",
        "conflicts",
      ]);
      const first = table.studies[0]!.values;
      expect(first.design).toMatchObject({ value: "RCT", edited: false });
      expect(first.country).toEqual({
        value: "Spain",
        quote: "This trial was conducted in 8 hospitals in Spain.",
        edited: false,
      });
      expect(first.randomised).toMatchObject({ value: "198", edited: false });
      expect(first.randomised!.quote).toBe(
        "We randomised 198 adults with sepsis to zelmoxan (n = 100) or placebo (n = 98).",
      );
      expect(first.intervention?.value).toBe("zelmoxan");
      expect(first.comparator?.value).toBe("placebo");
      expect(first.funding?.value).toContain("Sepsis Foundation");
      expect(first.conflicts).toEqual({ value: null, quote: null, edited: false });
      expect(table.studies[1]!.values.country?.value).toBe("Japan");

      // Access: a stranger does not see the review; a viewer reads but cannot write.
      expect(await statusAndError(await call("GET", path, { cookie: stranger.cookie }))).toEqual({
        status: 404,
        error: "REVIEW_NOT_FOUND",
      });
      await join(owner, review.id, viewer, "viewer");
      await json(await call("GET", path, { cookie: viewer.cookie }), 200);
      expect(
        await statusAndError(
          await call("POST", `${path}/columns`, { cookie: viewer.cookie, body: { name: "Dose", type: "categorical" } }),
        ),
      ).toEqual({ status: 403, error: "FORBIDDEN_ROLE" });
      expect(
        await statusAndError(
          await call("POST", `${path}/edits`, {
            cookie: viewer.cookie,
            body: { recordId: recordIds[0], column: "country", value: "France" },
          }),
        ),
      ).toEqual({ status: 403, error: "FORBIDDEN_ROLE" });
      expect((await call("GET", `${path}/columns`, { cookie: owner.cookie })).status).toBe(405);

      // Columns.
      const { column } = await json<{ column: CharacteristicColumn }>(
        await call("POST", `${path}/columns`, { cookie: owner.cookie, body: { name: "Dose", type: "categorical" } }),
        201,
      );
      expect(column).toEqual({
        key: expect.stringMatching(/^c\d+$/),
        name: "Dose",
        type: "categorical",
        builtIn: false,
      });
      expect(
        await statusAndError(
          await call("POST", `${path}/columns`, { cookie: owner.cookie, body: { name: "dose", type: "text" } }),
        ),
      ).toEqual({ status: 409, error: "COLUMN_EXISTS" });
      expect(
        await statusAndError(
          await call("POST", `${path}/columns`, { cookie: owner.cookie, body: { name: "Country", type: "text" } }),
        ),
      ).toEqual({ status: 409, error: "COLUMN_EXISTS" });
      expect(
        await statusAndError(
          await call("POST", `${path}/columns`, { cookie: owner.cookie, body: { name: "Age", type: "date" } }),
        ),
      ).toEqual({ status: 400, error: "INVALID_INPUT" });

      // Edits: the old value is the rules' value, then the previous edit.
      const e1 = await json<{ edit: CharacteristicEdit }>(
        await call("POST", `${path}/edits`, {
          cookie: owner.cookie,
          body: { recordId: recordIds[0], column: "randomised", value: "1,200" },
        }),
        200,
      );
      expect(e1.edit).toMatchObject({
        recordId: recordIds[0],
        column: "randomised",
        oldValue: "198",
        newValue: "1200",
        who: owner.email,
      });
      const e2 = await json<{ edit: CharacteristicEdit }>(
        await call("POST", `${path}/edits`, {
          cookie: owner.cookie,
          body: { recordId: recordIds[0], column: "randomised", value: "200" },
        }),
        200,
      );
      expect(e2.edit).toMatchObject({ oldValue: "1200", newValue: "200" });
      expect(
        (
          await json<{ edit: null }>(
            await call("POST", `${path}/edits`, {
              cookie: owner.cookie,
              body: { recordId: recordIds[0], column: "randomised", value: " 200 " },
            }),
            200,
          )
        ).edit,
      ).toBeNull();
      await json(
        await call("POST", `${path}/edits`, {
          cookie: owner.cookie,
          body: { recordId: recordIds[1], column: column.key, value: "high" },
        }),
        200,
      );
      expect(
        await statusAndError(
          await call("POST", `${path}/edits`, {
            cookie: owner.cookie,
            body: { recordId: recordIds[0], column: "randomised", value: "many" },
          }),
        ),
      ).toEqual({ status: 400, error: "INVALID_VALUE" });
      expect(
        await statusAndError(
          await call("POST", `${path}/edits`, {
            cookie: owner.cookie,
            body: { recordId: recordIds[2], column: "country", value: "Peru" },
          }),
        ),
      ).toEqual({ status: 404, error: "RECORD_NOT_FOUND" });
      expect(
        await statusAndError(
          await call("POST", `${path}/edits`, {
            cookie: owner.cookie,
            body: { recordId: recordIds[0], column: "c999999", value: "x" },
          }),
        ),
      ).toEqual({ status: 404, error: "COLUMN_NOT_FOUND" });

      const after = await json<CharacteristicsTable>(await call("GET", path, { cookie: viewer.cookie }), 200);
      expect(after.studies[0]!.values.randomised).toEqual({ value: "200", quote: null, edited: true });
      expect(after.studies[1]!.values[column.key]).toEqual({ value: "high", quote: null, edited: true });
      expect(after.audit.map((a) => [a.column, a.oldValue, a.newValue])).toEqual([
        ["randomised", "198", "1200"],
        ["randomised", "1200", "200"],
        [column.key, null, "high"],
      ]);

      const csv = await call("GET", `${path}?format=csv`, { cookie: owner.cookie });
      expect(csv.headers.get("Content-Type")).toContain("text/csv");
      expect(csv.headers.get("Content-Disposition")).toMatch(/attachment; filename="metamind-characteristics-.*\.csv"/);
      const lines = (await csv.text()).split("\r\n");
      expect(lines[0]).toContain("Study,Year,Design,Country,Setting,N randomised");
      expect(lines[0]).toContain(",Dose,");
      expect(lines[1]).toContain("Zelmoxan versus placebo in sepsis: a randomised trial,2020,RCT,Spain");
      expect(await statusAndError(await call("GET", `${path}?format=xml`, { cookie: owner.cookie }))).toEqual({
        status: 400,
        error: "INVALID_INPUT",
      });

      // The review's JSON export carries the same table, with the reviewer's column, edits and audit trail.
      const whole = JSON.parse(
        await (await call("GET", `/api/reviews/${review.id}/export?format=json`, { cookie: owner.cookie })).text(),
      ) as { characteristics: CharacteristicsTable };
      expect(whole.characteristics.columns.map((c) => c.name)).toContain("Dose");
      expect(whole.characteristics.studies[0]!.values.randomised).toEqual({ value: "200", quote: null, edited: true });
      expect(whole.characteristics.studies[0]!.values.country).toMatchObject({ value: "Spain", edited: false });
      expect(whole.characteristics.audit).toEqual(after.audit);

      // Removing a column keeps its edits in the audit table.
      expect((await call("DELETE", `${path}/columns/${column.key.slice(1)}`, { cookie: owner.cookie })).status).toBe(
        204,
      );
      expect(
        await statusAndError(await call("DELETE", `${path}/columns/${column.key.slice(1)}`, { cookie: owner.cookie })),
      ).toEqual({ status: 404, error: "COLUMN_NOT_FOUND" });
      const kept = await db()
        .select()
        .from(reviewCharacteristicEdits)
        .where(eq(reviewCharacteristicEdits.columnKey, column.key));
      expect(kept.map((e) => e.newValue)).toEqual(["high"]);
    },
  );
});
