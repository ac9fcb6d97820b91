import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { BASE, signUp, uniqueIp } from "../helpers";
import { RATE_LIMITS } from "~/.server/security/rate-limit";
import { sharedKey } from "~/.server/sharing/store";

function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  return SELF.fetch(`${BASE}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: BASE, "CF-Connecting-IP": uniqueIp(), ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

const ANSWER = {
  id: "123456",
  question: "Does vitamin D prevent fractures?",
  answer: "Vitamin D alone did not prevent fractures. [1]",
  studyCount: 1,
  studies: [
    {
      n: 1,
      title: "Vitamin D and fractures",
      url: "https://pubmed.ncbi.nlm.nih.gov/1/",
      journal: "BMJ",
      year: "2020",
      quotes: ["Vitamin D alone did not prevent fractures (HR 1.02)."],
    },
  ],
  model: "MetaMind Offline Extractive v1",
};

describe("POST /api/shared-answers", () => {
  it("stores the answer under its own 128-bit id and serves /answer/{id} to anyone, cacheable, with preview meta", async () => {
    const cookie = (await signUp()).cookie;
    const res = await post("/api/shared-answers", ANSWER, { Cookie: cookie });
    expect(res.status).toBe(201);
    const { id, url } = (await res.json()) as { id: string; url: string };
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(id).not.toBe(ANSWER.id);
    expect(url).toBe(`${BASE}/answer/${id}`);
    const stored = await env.KV.get<{ question: string; clientId?: string }>(sharedKey(id), "json");
    expect(stored?.question).toBe(ANSWER.question);

    const page = await SELF.fetch(url);
    expect(page.status).toBe(200);
    expect(page.headers.get("Cache-Control")).toMatch(/public.*s-maxage=\d+/);
    const html = await page.text();
    expect(html).toContain(ANSWER.question);
    expect(html).toContain("Vitamin D alone did not prevent fractures (HR 1.02).");
    expect(html).toContain('href="https://pubmed.ncbi.nlm.nih.gov/1/"');
    expect(html).toContain("Ask your own question");
    expect(html).toContain("not medical advice");
    expect(html).toMatch(/<meta property="og:title" content="Does vitamin D prevent fractures\?"/);
    expect(html).toMatch(/<meta name="twitter:description" content="Vitamin D alone did not prevent fractures/);
    // Public pages never carry the signed-in user (they are cached by shared caches).
    expect(html).toContain("Sign In");
  });

  it("escapes markup in stored text", async () => {
    const res = await post("/api/shared-answers", {
      ...ANSWER,
      question: '<img src=x onerror="alert(1)">Is <b>salt</b> bad?',
      studies: [],
    });
    expect(res.status).toBe(201);
    const { url } = (await res.json()) as { url: string };
    const html = await (await SELF.fetch(url)).text();
    expect(html).not.toContain("<img src=x");
    expect(html).not.toContain("<b>salt</b>");
    expect(html).toContain("&lt;img src=x");
  });

  it("answers the 404 page for unknown and malformed ids", async () => {
    for (const path of [
      `/answer/${"0".repeat(32)}`,
      "/answer/123456",
      `/workout/${"a".repeat(32)}`,
      `/meal-plan/${"b".repeat(32)}`,
    ]) {
      const res = await SELF.fetch(`${BASE}${path}`);
      expect(res.status).toBe(404);
      expect(await res.text()).toContain("404 Page Not Found");
    }
  });

  it("refuses bad input with 400 codes and stores nothing", async () => {
    const before = (await env.KV.list({ prefix: "shared:" })).keys.length;
    const long = await post("/api/shared-answers", { ...ANSWER, question: "q".repeat(501) });
    expect(long.status).toBe(400);
    expect(await long.json()).toMatchObject({ error: "QUESTION_TOO_LONG" });
    const big = await post("/api/shared-answers", { ...ANSWER, answer: "x".repeat(21 * 1024) });
    expect(big.status).toBe(400);
    expect(await big.json()).toMatchObject({ error: "PAYLOAD_TOO_LARGE" });
    const json = await post("/api/shared-answers", "{nope");
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({ error: "INVALID_JSON" });
    const missing = await post("/api/shared-answers", { id: "1", question: "Why?" });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ error: "INVALID_INPUT" });
    const script = await post("/api/shared-answers", {
      ...ANSWER,
      studies: [{ ...ANSWER.studies[0], url: "javascript:alert(1)" }],
    });
    expect(script.status).toBe(400);
    expect((await env.KV.list({ prefix: "shared:" })).keys.length).toBe(before);
  });

  it("lists the owner's links; only the owner can unshare; unsharing makes the page 404", async () => {
    const owner = (await signUp()).cookie;
    const other = (await signUp()).cookie;
    const { id, url } = (await (await post("/api/shared-answers", ANSWER, { Cookie: owner })).json()) as {
      id: string;
      url: string;
    };
    const list = (await (await SELF.fetch(`${BASE}/api/shared-answers`, { headers: { Cookie: owner } })).json()) as {
      items: { id: string; kind: string; clientId: string; url: string }[];
    };
    expect(list.items).toEqual([expect.objectContaining({ id, kind: "answer", clientId: "123456", url })]);
    const otherList = (await (
      await SELF.fetch(`${BASE}/api/shared-answers`, { headers: { Cookie: other } })
    ).json()) as { items: unknown[] };
    expect(otherList.items).toEqual([]);

    const del = (cookie: string) =>
      SELF.fetch(`${BASE}/api/shared-answers/${id}`, { method: "DELETE", headers: { Cookie: cookie, Origin: BASE } });
    const refused = await del(other);
    expect(refused.status).toBe(404);
    expect((await SELF.fetch(url)).status).toBe(200);
    expect((await del(owner)).status).toBe(200);
    expect((await SELF.fetch(url)).status).toBe(404);
    expect(await env.KV.get(sharedKey(id))).toBeNull();
  });

  it("keeps rendered pages in the Worker's cache (query-less GETs only)", async () => {
    const { id, url } = (await (await post("/api/shared-answers", ANSWER)).json()) as { id: string; url: string };
    expect((await SELF.fetch(url)).status).toBe(200);
    // Remove the payload behind the app's back: the cached page is still served, a fresh render is not.
    await env.KV.delete(sharedKey(id));
    const cachedPage = await SELF.fetch(url);
    expect(cachedPage.status).toBe(200);
    expect(await cachedPage.text()).toContain(ANSWER.question);
    expect((await SELF.fetch(`${url}?fresh=1`)).status).toBe(404);
  });

  it("deleting the account deletes the user's shared items (and evicts their cached pages)", async () => {
    const cookie = (await signUp()).cookie;
    const { id, url } = (await (await post("/api/shared-answers", ANSWER, { Cookie: cookie })).json()) as {
      id: string;
      url: string;
    };
    expect((await SELF.fetch(url)).status).toBe(200);
    const res = await post("/api/user/delete", { confirm: "DELETE" }, { Cookie: cookie });
    expect(res.status).toBe(200);
    expect(await env.KV.get(sharedKey(id))).toBeNull();
    expect(await env.DB.prepare("SELECT count(*) AS n FROM shared_items WHERE id = ?").bind(id).first("n")).toBe(0);
    expect((await SELF.fetch(url)).status).toBe(404);
  });
});

describe("share-link creation limit", () => {
  it("is atomic: concurrent creations by one user never exceed the per-account limit", async () => {
    const cookie = (await signUp()).cookie;
    const limit = RATE_LIMITS.shareLinkPerAccount.limit;
    const statuses = await Promise.all(
      Array.from({ length: limit + 6 }, (_, i) =>
        post("/api/shared-answers", { ...ANSWER, id: String(200000 + i) }, { Cookie: cookie }).then((r) => r.status),
      ),
    );
    expect(statuses.filter((s) => s === 201)).toHaveLength(limit);
    expect(statuses.filter((s) => s === 429)).toHaveLength(6);
  });

  it("answers 429 once a user has created 30 links in the hour", async () => {
    const cookie = (await signUp()).cookie;
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++)
      statuses.push((await post("/api/shared-answers", { ...ANSWER, id: String(i) }, { Cookie: cookie })).status);
    expect(statuses.slice(0, 30).every((s) => s === 201)).toBe(true);
    expect(statuses[30]).toBe(429);
  });
});

describe("lean share pages (served from KV before Remix)", () => {
  const policyOf = (res: Response) => res.headers.get("Content-Security-Policy") ?? "";

  it("render the whole page with no script at all, its meta tags and a fresh nonce policy per rendered response", async () => {
    const { url } = (await (await post("/api/shared-answers", ANSWER)).json()) as { url: string };
    // A query string bypasses the Worker's cache, so both responses are rendered from KV.
    const [a, b] = await Promise.all([SELF.fetch(`${url}?r=1`), SELF.fetch(`${url}?r=2`)]);
    const nonces = [];
    for (const res of [a, b]) {
      expect(res.status).toBe(200);
      expect(res.headers.get("Content-Type")).toMatch(/^text\/html/);
      expect(res.headers.get("Cache-Control")).toMatch(/public.*s-maxage=\d+/);
      const scriptSrc = /script-src ([^;]*)/.exec(policyOf(res))?.[1] ?? "";
      expect(scriptSrc).toMatch(/^'self' 'nonce-[A-Za-z0-9+/]{22}==?'$/);
      nonces.push(scriptSrc);
      const html = await res.text();
      expect(html.startsWith('<!DOCTYPE html><html lang="en">')).toBe(true);
      expect(html).not.toMatch(/<script/i);
      expect(html).toMatch(/<link rel="stylesheet" href="[^"]+\.css"/);
      expect(html).toContain("<title>Does vitamin D prevent fractures? | MetaMind</title>");
      expect(html).toContain(`<meta property="og:url" content="${url}?r=`);
      expect(html).toContain('data-testid="shared-answer"');
      expect(html).toContain('href="/auth"'); // the guest header's Sign In
      expect(html).toContain("Privacy Policy"); // the footer
    }
    expect(nonces[0]).not.toBe(nonces[1]);
  });

  it("escape markup in the title and meta attributes as well as in the body", async () => {
    const question = '"><script>alert(1)</script> & <b>salt</b>?';
    const { url } = (await (await post("/api/shared-answers", { ...ANSWER, question })).json()) as { url: string };
    const html = await (await SELF.fetch(url)).text();
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toContain("<b>salt</b>");
    expect(html).toContain(
      '<meta property="og:title" content="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;b&gt;salt&lt;/b&gt;?"',
    );
    expect(html).toContain("&lt;b&gt;salt&lt;/b&gt;?</h1>");
  });

  it("leave every other request to Remix: other methods, unknown, malformed or other-kind ids, data requests", async () => {
    const { id, url } = (await (await post("/api/shared-answers", ANSWER)).json()) as { id: string; url: string };
    const { serveSharePage } = await import("~/.server/sharing/share-page");
    const at = (path: string, init?: RequestInit) => serveSharePage(new Request(`${BASE}${path}`, init), env.KV);
    expect(await at(`/answer/${id}`)).not.toBeNull();
    for (const path of [
      `/answer/${"0".repeat(32)}`,
      `/answer/${id.toUpperCase()}`,
      `/answer/${id}/`,
      `/workout/${id}`,
      `/meal-plan/${id}`,
      `/answer/${id}.data`,
    ]) {
      expect(await at(path), path).toBeNull();
    }
    expect(await at(`/answer/${id}`, { method: "HEAD" })).toBeNull();
    // Client-side navigation still gets the route's data from Remix.
    const data = await SELF.fetch(`${url}.data`);
    expect(data.status).toBe(200);
    expect(await data.text()).toContain(ANSWER.question);
    const otherKind = await SELF.fetch(`${BASE}/workout/${id}`);
    expect(otherKind.status).toBe(404);
    expect(await otherKind.text()).toContain("404 Page Not Found");
  });
});
