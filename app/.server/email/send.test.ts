import { describe, expect, it } from "vitest";
import { fakeEmailApi } from "../../../tests/mocks/email-api";
import { sendEmail } from "./send";
import { passwordResetEmail } from "./templates";

const message = passwordResetEmail("ada@example.org", "https://metamind.test/reset-password?token=abc", 15);
const base = "http://127.0.0.1:9";

describe("sendEmail", () => {
  it("sends through Resend's API with the Bearer key", async () => {
    const api = fakeEmailApi("re_key");
    const env = {
      EMAIL_PROVIDER: "resend" as const,
      EMAIL_API_KEY: "re_key",
      EMAIL_FROM: "MetaMind <a@b.c>",
      EMAIL_API_BASE: base,
    };
    const result = await sendEmail({ fetch: api.fetch, env }, message);
    expect(result).toMatchObject({ sent: true, provider: "resend" });
    expect(api.sent[0]!.body).toMatchObject({
      from: "MetaMind <a@b.c>",
      to: ["ada@example.org"],
      subject: "Reset your MetaMind password",
    });
    expect(String(api.sent[0]!.body.text)).toContain("https://metamind.test/reset-password?token=abc");
  });

  it("sends through Postmark's API with the server token", async () => {
    const api = fakeEmailApi("pm_key");
    const env = {
      EMAIL_PROVIDER: "postmark" as const,
      EMAIL_API_KEY: "pm_key",
      EMAIL_FROM: "a@b.c",
      EMAIL_API_BASE: base,
    };
    const result = await sendEmail({ fetch: api.fetch, env }, message);
    expect(result).toMatchObject({ sent: true, provider: "postmark" });
    expect(api.sent[0]!.body).toMatchObject({ From: "a@b.c", To: "ada@example.org", MessageStream: "outbound" });
    expect(String(api.sent[0]!.body.HtmlBody)).toContain("expires in 15 minutes");
  });

  it("throws with the provider's answer when the key is refused", async () => {
    const api = fakeEmailApi("right");
    const env = {
      EMAIL_PROVIDER: "resend" as const,
      EMAIL_API_KEY: "wrong",
      EMAIL_FROM: "a@b.c",
      EMAIL_API_BASE: base,
    };
    await expect(sendEmail({ fetch: api.fetch, env }, message)).rejects.toThrow(/401.*missing_api_key/);
    expect(api.sent).toHaveLength(0);
  });

  it("sends nothing without a provider or key", async () => {
    const api = fakeEmailApi("k");
    const env = {
      EMAIL_PROVIDER: "resend" as const,
      EMAIL_API_KEY: undefined,
      EMAIL_FROM: "a@b.c",
      EMAIL_API_BASE: base,
    };
    expect(await sendEmail({ fetch: api.fetch, env }, message)).toEqual({ sent: false });
  });

  it("escapes the link in the HTML body", () => {
    const html = passwordResetEmail("a@b.c", 'https://x.test/?a="><script>', 15).html;
    expect(html).not.toContain("<script>");
  });
});
