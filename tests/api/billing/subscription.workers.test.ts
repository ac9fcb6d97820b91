import { describe, expect, it } from "vitest";
import { call, signUp } from "../helpers";
import { PAYMENTS_UNAVAILABLE_MESSAGE } from "~/.server/billing/subscription";

const BODY = {
  priceId: "monthly",
  successUrl: "https://metamind.test/subscription/success?success=true",
  cancelUrl: "https://metamind.test/settings?canceled=true",
};

describe("subscription checkout and portal (no payment provider connected)", () => {
  it("checkout: 401 signed out, 400 for bad input or foreign URLs, 503 with the under-development message", async () => {
    expect((await call("POST", "/api/subscription/create-checkout", { body: BODY })).status).toBe(401);
    const free = await signUp();
    const bad = await call("POST", "/api/subscription/create-checkout", {
      cookie: free.cookie,
      body: { ...BODY, priceId: "weekly" },
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: "INVALID_INPUT" });
    const foreign = await call("POST", "/api/subscription/create-checkout", {
      cookie: free.cookie,
      body: { ...BODY, successUrl: "https://evil.example/phish" },
    });
    expect(foreign.status).toBe(400);
    const res = await call("POST", "/api/subscription/create-checkout", { cookie: free.cookie, body: BODY });
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ error: "PAYMENTS_UNAVAILABLE", message: PAYMENTS_UNAVAILABLE_MESSAGE });
    const pro = await signUp("pro");
    expect((await call("POST", "/api/subscription/create-checkout", { cookie: pro.cookie, body: BODY })).status).toBe(
      409,
    );
  });

  it("portal: 401 signed out, 503 with the message when signed in", async () => {
    expect((await call("POST", "/api/subscription/create-portal")).status).toBe(401);
    const pro = await signUp("pro");
    const res = await call("POST", "/api/subscription/create-portal", { cookie: pro.cookie });
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ error: "PAYMENTS_UNAVAILABLE", message: PAYMENTS_UNAVAILABLE_MESSAGE });
  });

  it("create-portal refuses a body it does not take with 400, not the 503", async () => {
    const pro = await signUp("pro");
    for (const body of ["{not json", "[1,2]", { plan: "pro" }, "null"]) {
      const res = await call("POST", "/api/subscription/create-portal", { cookie: pro.cookie, body });
      expect(res.status, String(body)).toBe(400);
    }
    expect((await call("POST", "/api/subscription/create-portal", { cookie: pro.cookie, body: {} })).status).toBe(503);
  });
});
