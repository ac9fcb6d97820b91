import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { BASE, uniqueIp } from "../../../tests/api/helpers";
import { getLoadContext } from "../context";
import type { CandidateStudy } from "./compose";
import { answerHealthQuestion, type HealthAnswerEvent } from "./service";

const STUDIES: CandidateStudy[] = [
  {
    id: 1,
    title: "Vitamin D supplementation and fracture risk in older adults",
    abstract:
      "BACKGROUND: Fractures are common in older adults. METHODS: 25,871 adults received vitamin D3 2000 IU per day or placebo. RESULTS: Total fractures did not differ (HR 0.98; 95% CI 0.89 to 1.08). CONCLUSIONS: Vitamin D supplementation did not reduce fractures in generally healthy older adults.",
    journal: "N Engl J Med",
    publicationDate: "2022-07-28",
    pmid: "35857658",
    doi: null,
    url: null,
  },
  {
    id: 2,
    title: "Calcium and vitamin D for fracture prevention: meta-analysis",
    abstract:
      "We pooled 11 randomised trials of calcium plus vitamin D. Combined supplementation reduced hip fracture by 16%. These findings suggest that calcium with vitamin D modestly lowers hip fracture risk in older people.",
    journal: "JAMA Netw Open",
    publicationDate: "2019",
    pmid: null,
    doi: "10.1001/jamanetworkopen.2019.17789",
    url: null,
  },
  {
    id: 3,
    title: "Coffee and sleep",
    abstract: "Coffee intake late in the day shortened total sleep time by 41 minutes in healthy volunteers.",
    journal: null,
    publicationDate: null,
    pmid: null,
    doi: null,
    url: null,
  },
];

function services() {
  const pending: Promise<unknown>[] = [];
  const app = getLoadContext(env as never, { waitUntil: (p) => void pending.push(p) }).app;
  return { app, settled: () => Promise.all(pending) };
}

async function events(res: Response): Promise<{ events: HealthAnswerEvent[]; reads: number }> {
  const text = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let all = "";
  let reads = 0;
  for (;;) {
    const { done, value } = await text.read();
    if (done) break;
    reads++;
    all += value;
  }
  return {
    events: all
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as HealthAnswerEvent),
    reads,
  };
}

function request(ip = uniqueIp()) {
  return new Request(`${BASE}/api/health-answer`, { method: "POST", headers: { "CF-Connecting-IP": ip } });
}

describe("health answers (offline model)", () => {
  it("streams meta, word deltas and a grounded answer: each claim cited to a study and its verbatim quote", async () => {
    const { app, settled } = services();
    let asked = "";
    const res = await answerHealthQuestion(app, {
      body: { question: "Does vitamin D prevent fractures in older adults?", id: "654321" },
      user: null,
      request: request(),
      search: async (q) => {
        asked = q;
        return STUDIES;
      },
    });
    expect(asked).toBe("vitamin prevent fractures older adults");
    expect(res.headers.get("Content-Type")).toMatch(/application\/x-ndjson/);
    expect(res.headers.get("X-Study-Count")).toBe("2");
    const { events: list } = await events(res);
    await settled();
    expect(list[0]).toMatchObject({ type: "meta", studyCount: 2, model: "MetaMind Offline Extractive v1" });
    expect(list.filter((e) => e.type === "delta").length).toBeGreaterThan(10);
    const done = list.at(-1)!;
    expect(done.type).toBe("done");
    if (done.type !== "done") return;
    const { answer } = done;
    expect(answer).toMatchObject({ id: "654321", studyCount: 2 });
    expect(answer.answer).toContain(
      "Vitamin D supplementation did not reduce fractures in generally healthy older adults. [1]",
    );
    expect(answer.answer).toMatch(/calcium with vitamin D modestly lowers hip fracture risk in older people\. \[2\]/i);
    expect(answer.studies[0]!.quotes).toEqual([
      expect.stringContaining("Vitamin D supplementation did not reduce fractures in generally healthy older adults."),
    ]);
    expect(answer.studies[0]!.url).toBe("https://pubmed.ncbi.nlm.nih.gov/35857658/");
    expect(answer.studies[1]!.url).toBe("https://doi.org/10.1001/jamanetworkopen.2019.17789");
    for (const s of answer.studies)
      for (const q of s.quotes) expect(STUDIES.some((x) => x.abstract!.includes(q))).toBe(true);
    // The streamed deltas add up to the answer.
    expect(list.flatMap((e) => (e.type === "delta" ? [e.text] : [])).join("")).toBe(answer.answer);
  });

  it("meters guests on aiSummaries and refuses the 6th answer", async () => {
    const ip = uniqueIp();
    const { app, settled } = services();
    for (let i = 0; i < 5; i++) {
      const res = await answerHealthQuestion(app, {
        body: { question: "vitamin D fractures" },
        user: null,
        request: request(ip),
        search: async () => STUDIES,
      });
      await events(res);
    }
    await settled();
    await expect(
      answerHealthQuestion(app, {
        body: { question: "vitamin D fractures" },
        user: null,
        request: request(ip),
        search: async () => STUDIES,
      }),
    ).rejects.toMatchObject({
      code: "LIMIT_REACHED",
      status: 403,
    });
  });

  it("404 NO_STUDIES (nothing metered) when no study bears on the question", async () => {
    const { app } = services();
    await expect(
      answerHealthQuestion(app, {
        body: { question: "quantum chromodynamics lattice" },
        user: null,
        request: request(),
        search: async () => STUDIES,
      }),
    ).rejects.toMatchObject({
      code: "NO_STUDIES",
      status: 404,
    });
  });
});

describe("POST /api/health-answer validation", () => {
  const post = (body: unknown) =>
    SELF.fetch(`${BASE}/api/health-answer`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: BASE, "CF-Connecting-IP": uniqueIp() },
      body: JSON.stringify(body),
    });

  it("400 QUESTION_TOO_LONG over 500 characters, 400 INVALID_INPUT for an empty question", async () => {
    const long = await post({ question: "a ".repeat(260) + "b" });
    expect(long.status).toBe(400);
    expect(await long.json()).toMatchObject({ error: "QUESTION_TOO_LONG" });
    const empty = await post({ question: "  " });
    expect(empty.status).toBe(400);
    expect(await empty.json()).toMatchObject({ error: "INVALID_INPUT" });
  });
});
