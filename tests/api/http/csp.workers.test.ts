import { SELF } from "cloudflare:test";
import { parse, type DefaultTreeAdapterTypes } from "parse5";
import { describe, expect, it } from "vitest";
import { call, signUp } from "../helpers";

type Node = DefaultTreeAdapterTypes.Node;

/** The directives of a policy as name → source list. */
function directives(policy: string): Record<string, string[]> {
  return Object.fromEntries(
    policy
      .split(";")
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...sources]) => [name!, sources]),
  );
}

/** Every <script> of the document: its nonce attribute and whether it is inline. */
function scripts(html: string): { nonce: string | undefined; inline: boolean }[] {
  const found: { nonce: string | undefined; inline: boolean }[] = [];
  const visit = (node: Node) => {
    if ("tagName" in node && node.tagName === "script") {
      found.push({
        nonce: node.attrs.find((a) => a.name === "nonce")?.value,
        inline: !node.attrs.some((a) => a.name === "src"),
      });
    }
    if ("childNodes" in node) node.childNodes.forEach(visit);
  };
  visit(parse(html));
  return found;
}

async function page(path: string, cookie?: string): Promise<{ res: Response; html: string }> {
  const res = await SELF.fetch(`https://metamind.test${path}`, { headers: cookie ? { Cookie: cookie } : {} });
  return { res, html: await res.text() };
}

describe("Content-Security-Policy and hardening headers", () => {
  it("gives every HTML page a nonce policy whose nonce is on every inline script and fresh per request", async () => {
    const { cookie } = await signUp();
    const seen = new Set<string>();
    for (const [path, who] of [
      ["/", undefined],
      ["/", undefined],
      ["/search?q=zinc", undefined],
      ["/profile", cookie],
      ["/no-such-page", undefined],
    ] as const) {
      const { res, html } = await page(path, who);
      expect(res.headers.get("Content-Type")).toMatch(/^text\/html/);
      const policy = res.headers.get("Content-Security-Policy");
      expect(policy, path).toBeTruthy();
      const d = directives(policy!);
      const nonceSource = d["script-src"]!.find((s) => s.startsWith("'nonce-"))!;
      expect(nonceSource, path).toMatch(/^'nonce-[A-Za-z0-9+/]{22}==?'$/);
      expect(d["script-src"]).not.toContain("'unsafe-inline'");
      expect(d["script-src"]).not.toContain("'unsafe-eval'");
      expect(d["object-src"]).toEqual(["'none'"]);
      expect(d["base-uri"]).toEqual(["'self'"]);
      expect(d["frame-ancestors"]).toEqual(["'none'"]);
      // The installable app: the same-origin service worker and web app manifest may load.
      expect(d["worker-src"]).toContain("'self'");
      expect(d["manifest-src"]).toEqual(["'self'"]);
      const nonce = nonceSource.slice("'nonce-".length, -1);
      expect(seen.has(nonce), "nonce reused").toBe(false);
      seen.add(nonce);
      const found = scripts(html);
      expect(found.filter((s) => s.inline).length, path).toBeGreaterThan(0);
      for (const script of found.filter((s) => s.inline)) expect(script.nonce, path).toBe(nonce);
      expect(res.headers.get("Strict-Transport-Security")).toMatch(/^max-age=\d{8,}; includeSubDomains$/);
      expect(res.headers.get("Permissions-Policy")).toContain("camera=()");
      expect(res.headers.get("X-Frame-Options")).toBe("DENY");
    }
  });

  it("sends HSTS and Permissions-Policy on API answers too", async () => {
    const res = await call("GET", "/api/guest-usage");
    expect(res.headers.get("Strict-Transport-Security")).toMatch(/^max-age=/);
    expect(res.headers.get("Permissions-Policy")).toContain("microphone=()");
  });

  it("serves HTML exports under a policy with no script at all, and the file carries it too", async () => {
    const { cookie } = await signUp("pro");
    const res = await call("POST", "/api/export", {
      cookie,
      body: {
        format: "html",
        studies: [{ id: "1", title: "<img src=x onerror=alert(1)>Zinc", authors: ["A"], source: "pubmed" }],
      },
    });
    expect(res.status).toBe(200);
    const d = directives(res.headers.get("Content-Security-Policy") ?? "");
    expect(d["default-src"]).toEqual(["'none'"]);
    expect(d["script-src"]).toBeUndefined();
    expect(d["frame-ancestors"]).toEqual(["'none'"]);
    const html = await res.text();
    expect(html).toMatch(
      /^<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none';/,
    );
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;Zinc");
    expect(html).not.toContain("<img");
  });
});
