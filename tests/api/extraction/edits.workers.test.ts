import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { BASE, signUp, uniqueIp } from "../helpers";

function postEdits(body: unknown, cookie?: string) {
  return SELF.fetch(`${BASE}/api/extraction/edits`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Origin: BASE,
      "CF-Connecting-IP": uniqueIp(),
      ...(cookie ? { Cookie: cookie } : {}),
    },
    body: JSON.stringify(body),
  });
}

const EDIT = {
  studyKey: "study-1",
  outcome: "mortality",
  arm: "comparator",
  field: "events",
  oldValue: 20,
  newValue: 22,
};

describe("extraction edits audit trail", () => {
  it("stores a signed-in user's corrections with who and when, visible only to that user", async () => {
    const ana = await signUp();
    const ben = await signUp();
    const created = await postEdits({ edits: [EDIT] }, ana.cookie);
    expect(created.status).toBe(201);
    const body = (await created.json()) as {
      edits: { who: string; when: string; oldValue: number; newValue: number }[];
    };
    expect(body.edits[0]).toMatchObject({ ...EDIT, who: ana.email });
    expect(Date.parse(body.edits[0]!.when)).toBeGreaterThan(Date.now() - 60_000);

    const own = await SELF.fetch(`${BASE}/api/extraction/edits?studyKey=study-1&outcome=mortality`, {
      headers: { Cookie: ana.cookie },
    });
    expect(((await own.json()) as { edits: unknown[] }).edits).toHaveLength(1);
    const other = await SELF.fetch(`${BASE}/api/extraction/edits?studyKey=study-1`, {
      headers: { Cookie: ben.cookie },
    });
    expect(((await other.json()) as { edits: unknown[] }).edits).toHaveLength(0);
  });

  it("refuses signed-out requests and invalid edits without storing anything", async () => {
    expect((await postEdits({ edits: [EDIT] })).status).toBe(401);
    const ana = await signUp();
    const bad = await postEdits({ edits: [EDIT, { ...EDIT, field: "pvalue" }] }, ana.cookie);
    expect(bad.status).toBe(400);
    const list = await SELF.fetch(`${BASE}/api/extraction/edits?studyKey=study-1`, { headers: { Cookie: ana.cookie } });
    expect(((await list.json()) as { edits: unknown[] }).edits).toHaveLength(0);
    expect((await SELF.fetch(`${BASE}/api/extraction/edits`, { headers: { Cookie: ana.cookie } })).status).toBe(400);
  });
});
