import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { BASE, signIn, uniqueIp } from "../helpers";
import { OFFLINE_MODEL_NAME } from "~/.server/ai/registry";

function post(path: string, body: unknown, cookie?: string) {
  return SELF.fetch(`${BASE}${path}`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Origin: BASE,
      "CF-Connecting-IP": uniqueIp(),
      ...(cookie ? { Cookie: cookie } : {}),
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

const studies = [
  { id: 11, title: "Statins and stroke prevention", abstract: "Statins reduced stroke.", journal: "Lancet" },
  {
    id: 12,
    title: "Vitamin D supplementation and fracture risk",
    abstract: "Vitamin D did not reduce fractures in older adults.",
    journal: "BMJ",
    sources: ["pubmed"],
  },
  { id: "PPR1", title: "Fracture healing in mice", abstract: null },
];

interface SmartFilterReply {
  relevantStudies: (Record<string, unknown> & {
    id: number | string;
    relevanceScore: number;
    relevanceReason: string;
  })[];
  model: string;
}

describe("POST /api/search/smart-filter", () => {
  it("answers 401 when signed out", async () => {
    const res = await post("/api/search/smart-filter", { searchQuery: "vitamin D", studies });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: "UNAUTHORIZED" });
  });

  it("scores and sorts the studies with the offline model when signed in", async () => {
    const cookie = (await signIn("free@metamind.local")).cookie;
    const res = await post("/api/search/smart-filter", { searchQuery: "  vitamin D fracture  ", studies }, cookie);
    expect(res.status).toBe(200);
    const body = (await res.json()) as SmartFilterReply;
    expect(body.model).toBe(OFFLINE_MODEL_NAME);
    expect(body.relevantStudies.map((s) => s.id)).toEqual([12, "PPR1", 11]);
    const scores = body.relevantStudies.map((s) => s.relevanceScore);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    for (const score of scores) {
      expect(score).toBeGreaterThanOrEqual(0);
      expect(score).toBeLessThanOrEqual(10);
    }
    expect(body.relevantStudies[0]).toMatchObject({
      journal: "BMJ",
      sources: ["pubmed"],
      relevanceReason: "Matches 'vitamin', 'd', 'fracture' in title; 'vitamin', 'd', 'fracture' in abstract",
    });
    expect(body.relevantStudies[2]!.relevanceReason).toBe(
      "None of the query terms ('vitamin', 'd', 'fracture') appear in the title or abstract",
    );
  });

  it("answers 400 with a clear message for an invalid body", async () => {
    const cookie = (await signIn("free@metamind.local")).cookie;
    const res = await post("/api/search/smart-filter", { searchQuery: "   ", studies: [{ id: 1 }] }, cookie);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string; message: string };
    expect(body.error).toBe("INVALID_INPUT");
    expect(body.message).toContain("searchQuery: Search query is required");
    expect(body.message).toContain("studies.0.title");
  });

  it("answers 400 for an empty study list", async () => {
    const cookie = (await signIn("free@metamind.local")).cookie;
    const res = await post("/api/search/smart-filter", { searchQuery: "vitamin D", studies: [] }, cookie);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: "INVALID_INPUT",
      message: "studies: At least one study is required",
    });
  });

  it("answers 400 for malformed JSON", async () => {
    const cookie = (await signIn("free@metamind.local")).cookie;
    const res = await post("/api/search/smart-filter", "{not json", cookie);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: "INVALID_JSON" });
  });
});
