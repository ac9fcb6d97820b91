import { describe, expect, it } from "vitest";
import { call, signUp } from "../helpers";

const PATH = "/api/risk-of-bias/rob2/judge";

const LOW = {
  "1.1": "Y",
  "1.2": "PY",
  "1.3": "N",
  "2.1": "N",
  "2.2": "N",
  "2.6": "Y",
  "3.1": "Y",
  "4.1": "N",
  "4.2": "N",
  "4.3": "N",
  "5.1": "Y",
  "5.2": "N",
  "5.3": "N",
};

describe("POST /api/risk-of-bias/rob2/judge", () => {
  it("judges every domain and the overall, listing the questions asked", async () => {
    const cookie = (await signUp()).cookie;
    const res = await call("POST", PATH, { cookie, body: { variant: "assignment", answers: LOW } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      domains: { D1: "low", D2: "low", D3: "low", D4: "low", D5: "low" },
      overall: "low",
      asked: ["1.1", "1.2", "1.3", "2.1", "2.2", "2.6", "3.1", "4.1", "4.2", "4.3", "5.1", "5.2", "5.3"],
    });

    const worse = { ...LOW, "1.2": "NI", "2.1": "Y", "2.3": "Y", "2.4": "Y", "2.5": "N", "5.1": "N" };
    const body = (await (
      await call("POST", PATH, { cookie, body: { variant: "assignment", answers: worse } })
    ).json()) as { domains: Record<string, string>; overall: string; asked: string[] };
    expect(body.domains).toEqual({ D1: "some_concerns", D2: "high", D3: "low", D4: "low", D5: "some_concerns" });
    expect(body.overall).toBe("high");
    expect(body.asked).toEqual(expect.arrayContaining(["2.3", "2.4", "2.5"]));
  });

  it("the adhering variant uses its own domain 2", async () => {
    const cookie = (await signUp()).cookie;
    const answers = { ...LOW, "2.6": undefined, "2.4": "NA", "2.5": "Y" };
    const incomplete = await call("POST", PATH, { cookie, body: { variant: "adhering", answers } });
    expect(incomplete.status).toBe(400);
    expect(await incomplete.json()).toMatchObject({ error: "ANSWERS_INCOMPLETE", missing: ["2.6"] });
    const res = await call("POST", PATH, {
      cookie,
      body: { variant: "adhering", answers: { ...answers, "2.6": "PY" } },
    });
    expect(await res.json()).toMatchObject({ domains: { D2: "some_concerns" }, overall: "some_concerns" });
  });

  it("400 ANSWERS_INCOMPLETE names the unanswered questions the answers call for", async () => {
    const cookie = (await signUp()).cookie;
    const res = await call("POST", PATH, {
      cookie,
      body: { variant: "assignment", answers: { ...LOW, "2.1": "Y", "3.1": "N", "5.3": undefined } },
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string; message: string; missing: string[] };
    expect(body.error).toBe("ANSWERS_INCOMPLETE");
    expect(body.missing).toEqual(["2.3", "3.2", "5.3"]);
    expect(body.message).toContain("2.3, 3.2, 5.3");
  });

  it("refuses bad input, guests and other methods", async () => {
    const cookie = (await signUp()).cookie;
    expect((await call("POST", PATH, { body: { variant: "assignment", answers: LOW } })).status).toBe(401);
    for (const body of [
      { variant: "per-protocol", answers: LOW },
      { variant: "assignment", answers: { ...LOW, "6.1": "Y" } },
      { variant: "assignment", answers: { ...LOW, "1.1": "Maybe" } },
      { variant: "assignment", answers: { ...LOW, "1.1": "NA" } },
      { variant: "assignment", answers: [] },
    ]) {
      const res = await call("POST", PATH, { cookie, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(((await res.json()) as { error: string }).error).toBe("INVALID_INPUT");
    }
    expect((await call("POST", PATH, { cookie, body: "{not json" })).status).toBe(400);
    expect((await call("GET", PATH, { cookie })).status).toBe(405);
  });
});
