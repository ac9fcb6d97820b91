import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it, vi } from "vitest";
import { extractArms } from "~/lib/arms";
import { studyDocument } from "~/lib/extraction/core";
import {
  checkFullTextUrl,
  extractPdfDocument,
  fetchFullText,
  FullTextError,
  htmlToText,
  isPrivateHost,
  looksLikePaywall,
  PublisherRefusedError,
  type FetchFullTextOptions,
} from "./fetch";

/** The real PDFs (../shared/pdfs next to the repository); never copied into the project. */
const PDF_DIR = fileURLToPath(new URL("../../../../shared/pdfs/", import.meta.url));
const hasPdfs = existsSync(`${PDF_DIR}provenance.json`);
const MISSING_PDFS = `skipped: real PDFs not found at ${PDF_DIR} (../shared/pdfs lives outside the repo)`;
const pdfSuite = hasPdfs ? describe : describe.skip;
const readPdf = (name: string) => new Uint8Array(readFileSync(`${PDF_DIR}${name}`));

const BMJ = "rct_bmj2015_physical_activity_smoking_cessation_pregnancy.pdf";

let havePdftotext = false;
try {
  execFileSync("pdftotext", ["-v"], { stdio: "ignore" });
  havePdftotext = true;
} catch {
  havePdftotext = false;
}

type Handler = (url: URL, init: RequestInit | undefined) => Response | Promise<Response>;

/**
 * A fake fetch that answers from `routes` (keyed by full URL), records every call, and fails the
 * test on any unexpected URL, so SSRF refusals can assert that nothing was fetched.
 */
function fakeFetch(routes: Record<string, Handler>) {
  return vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input instanceof Request ? input.url : input));
    const handler = routes[url.href];
    if (!handler) throw new Error(`unexpected fetch ${url.href}`);
    return handler(url, init);
  });
}

/** A body streamed in 16 KiB chunks, counting how many chunks were pulled. */
function chunkedBody(bytes: Uint8Array, pulled = { count: 0 }) {
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      pulled.count++;
      controller.enqueue(bytes.slice(offset, offset + 16 * 1024));
      offset += 16 * 1024;
    },
  });
}

const servePdf =
  (bytes: Uint8Array, type = "application/pdf"): Handler =>
  () =>
    new Response(chunkedBody(bytes), { headers: { "Content-Type": type } });

async function failure(promise: Promise<unknown>): Promise<FullTextError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof FullTextError) return error;
    throw error;
  }
  throw new Error("expected a FullTextError");
}

const run = (routes: Record<string, Handler>, url: string, options?: FetchFullTextOptions) =>
  fetchFullText({ fetch: fakeFetch(routes) as typeof fetch }, url, options);

const words = (text: string) => new Set(text.toLowerCase().match(/\p{L}{4,}/gu) ?? []);
const squash = (text: string) => text.replace(/\s+/g, " ");

const ARTICLE_BODY = Array.from(
  { length: 20 },
  (_, i) =>
    `<p>Paragraph ${i + 1} reports that 120 participants were randomised and followed for 12 months &mdash; outcomes were recorded.</p>`,
).join("\n");

pdfSuite(hasPdfs ? "real PDFs through unpdf" : `real PDFs — ${MISSING_PDFS}`, () => {
  it("extracts the text of a real RCT (BMJ 2015): known phrases, every page, byte count", async () => {
    const bytes = readPdf(BMJ);
    const result = await run(
      { "https://www.bmj.com/content/350/bmj.h2145.full.pdf": servePdf(bytes) },
      "https://www.bmj.com/content/350/bmj.h2145.full.pdf",
    );
    expect(result).toMatchObject({
      kind: "pdf",
      pages: 10,
      totalPages: 10,
      bytes: bytes.byteLength,
      finalUrl: "https://www.bmj.com/content/350/bmj.h2145.full.pdf",
    });
    const text = squash(result.text);
    expect(text).toContain("Physical activity for smoking cessation in pregnancy");
    expect(text).toContain("789 pregnant smokers, aged 16-50 years");
    expect(text).toContain("odds ratio 1.21, 95% confidence interval 0.70 to 2.10");
    expect(text).toContain(
      "The primary outcome was continuous smoking abstinence from the target quit date until end of pregnancy",
    );
  });

  it.skipIf(!havePdftotext)(
    "agrees with poppler's pdftotext on ≥ 97% of the distinct words of the BMJ trial",
    async () => {
      const reference = execFileSync("pdftotext", ["-q", `${PDF_DIR}${BMJ}`, "-"], { encoding: "utf8" });
      const result = await run({ "https://example.org/a.pdf": servePdf(readPdf(BMJ)) }, "https://example.org/a.pdf");
      const ours = words(result.text);
      const theirs = [...words(reference)];
      const covered = theirs.filter((w) => ours.has(w)).length / theirs.length;
      expect(theirs.length).toBeGreaterThan(1000);
      expect(covered).toBeGreaterThanOrEqual(0.97);
    },
  );

  it("keeps a table's column gaps as tabs and none inside running text (BMJ and Lancet trials)", async () => {
    const bmj = (await extractPdfDocument(readPdf(BMJ))).text;
    expect(bmj).toContain("Caesarean delivery\t76/357 (21)\t103/359 (29)\t0.67 (0.48 to 0.95)**");
    expect(bmj).toContain(
      "Fetal outcomes (singleton births only*)\tPhysical activity group (n=384)\tControl group (n=391)\tOdds ratio† (95% Ci)",
    );
    expect(bmj).toContain("789 pregnant smokers, aged 16-50 years and at 10-24\nweeks’ gestation");
    const lancet = (await extractPdfDocument(readPdf("rct_lancetrespmed2014_stopadvisor_smoking.pdf"))).text;
    expect(lancet).toContain("Low SES\t90/1088 (8%)\t64/1054 (6%)\t1·36 (1·00 to 1·86)");
    // Justified two-column text spaces its words up to about 1.2 em: still one line of words, no tab.
    expect(lancet).toContain("StopAdvisor helped\nparticipants with low socioeconomic status stop smoking");
    const tabbed = lancet.split("\n").filter((line) => line.includes("\t"));
    expect(tabbed.filter((line) => line.split(" ").length > 12 && !/\d/.test(line))).toEqual([]);
  });

  it("reads a trial's arm-level data from its own PDF's table (the upload path's text)", async () => {
    // The upload path's document: the study's title and the PDF's text as its full text.
    const report = studyDocument({
      title: "Physical activity for smoking cessation in pregnancy",
      fullText: (await extractPdfDocument(readPdf(BMJ))).text,
    });
    const arms = { intervention: "physical activity plus behavioural support", comparator: "behavioural support only" };
    const caesarean = extractArms(report, { ...arms, outcome: "caesarean delivery" });
    expect(caesarean.intervention).toMatchObject({ events: 76, groupSize: 357 });
    expect(caesarean.comparator).toMatchObject({ events: 103, groupSize: 359 });
    // Table 3 stacks its header one cell per line and wraps the primary outcome's label above its numbers.
    const abstinence = extractArms(report, {
      ...arms,
      outcome: "continuous smoking abstinence at end of pregnancy, biochemically validated",
    });
    expect(abstinence.intervention).toMatchObject({ events: 30, groupSize: 392 });
    expect(abstinence.comparator).toMatchObject({ events: 25, groupSize: 393 });
    const weight = extractArms(report, { ...arms, outcome: "birth weight (g)" });
    expect(weight.intervention).toMatchObject({ mean: 3132.4, sd: 581.7, groupSize: 354 });
    expect(weight.comparator).toMatchObject({ mean: 3146.8, sd: 640, groupSize: 359 });
  });

  it("detects a PDF by its %PDF magic whatever the Content-Type says", async () => {
    const result = await run(
      {
        "https://repo.example.org/bitstream/123": servePdf(
          readPdf("rct_lancetrespmed2014_stopadvisor_smoking.pdf"),
          "application/octet-stream",
        ),
      },
      "https://repo.example.org/bitstream/123",
    );
    expect(result.kind).toBe("pdf");
    expect(result.text.length).toBeGreaterThan(20_000);
  });

  it("an encrypted, copy-protected PDF (owner password, copy:no) → BAD_PDF", async () => {
    const error = await failure(
      run(
        { "https://example.org/p.pdf": servePdf(readPdf("bad_encrypted_copy_protected_layoutparser.pdf")) },
        "https://example.org/p.pdf",
      ),
    );
    expect(error.code).toBe("BAD_PDF");
    expect(error.message).toMatch(/encrypted/);
    expect(error).not.toBeInstanceOf(PublisherRefusedError);
  });

  it("a scanned, image-only PDF → NO_TEXT_LAYER with the exact message (1 page and 103 pages)", async () => {
    for (const name of ["bad_scanned_image_only_conference_paper.pdf", "bad_scanned_image_only_us_patent_103p.pdf"]) {
      const error = await failure(
        run({ "https://example.org/s.pdf": servePdf(readPdf(name)) }, "https://example.org/s.pdf"),
      );
      expect(error.code, name).toBe("NO_TEXT_LAYER");
      expect(error.message).toBe("This PDF has no text layer (scanned images)");
    }
  });

  it("an HTML landing page saved under a .pdf address and served as application/pdf → BAD_PDF", async () => {
    const error = await failure(
      run(
        { "https://journals.plos.org/fulltext.pdf": servePdf(readPdf("bad_html_saved_as_pdf.pdf")) },
        "https://journals.plos.org/fulltext.pdf",
      ),
    );
    expect(error.code).toBe("BAD_PDF");
    expect(error.message).toMatch(/web page/);
  });

  it("the same real PLOS page served honestly as text/html is read as an article, without its scripts", async () => {
    const html = readPdf("bad_html_saved_as_pdf.pdf");
    const result = await run(
      {
        "https://journals.plos.org/article": () =>
          new Response(html, { headers: { "Content-Type": "text/html; charset=utf-8" } }),
      },
      "https://journals.plos.org/article",
    );
    expect(result.kind).toBe("html");
    expect(squash(result.text)).toContain("We describe a new species of fanged frog (Limnonectes larvaepartus)");
    expect(result.text).not.toMatch(/var selected_tab|function\s*\(|<\w+/);
  });

  it("a PDF with a corrupted stream checksum: PDF.js recovers its text, which is too short for a paper → TOO_SHORT", async () => {
    // pdfminer's zen_of_python_corrupted.pdf: the content stream fails only its Adler-32 check,
    // so PDF.js (like poppler 24) still reads all of it; it is one page of 920 characters.
    const bytes = readPdf("bad_corrupted_stream_zen_of_python.pdf");
    const routes = { "https://example.org/z.pdf": servePdf(bytes) };
    const error = await failure(run(routes, "https://example.org/z.pdf"));
    expect(error.code).toBe("TOO_SHORT");
    const lenient = await run(routes, "https://example.org/z.pdf", { minChars: 0 });
    expect(lenient.text).toContain("Beautiful is better than ugly.");
  });

  it("a truncated PDF and a PDF header followed by garbage → BAD_PDF", async () => {
    const truncated = readPdf(BMJ).slice(0, 150_000);
    const garbage = new TextEncoder().encode(`%PDF-1.7\n${"garbage ".repeat(2000)}`);
    for (const bytes of [truncated, garbage]) {
      const error = await failure(run({ "https://example.org/t.pdf": servePdf(bytes) }, "https://example.org/t.pdf"));
      expect(error.code).toBe("BAD_PDF");
      expect(error.message).toMatch(/damaged|not a valid PDF/);
    }
  });

  it("reads at most maxPages pages (a real 400-page manual)", async () => {
    const started = performance.now();
    const result = await run(
      { "https://example.org/irs.pdf": servePdf(readPdf("bad_large_400p_irs_manual.pdf")) },
      "https://example.org/irs.pdf",
      { maxPages: 5 },
    );
    expect(result).toMatchObject({ kind: "pdf", pages: 5, totalPages: 400 });
    expect(performance.now() - started).toBeLessThan(5000);
    const full = await run(
      { "https://example.org/irs.pdf": servePdf(readPdf("bad_large_400p_irs_manual.pdf")) },
      "https://example.org/irs.pdf",
    );
    expect(full.pages).toBe(60);
    expect(full.text.length).toBeGreaterThan(result.text.length * 5);
  });

  it("stops reading a body past maxBytes (streamed, no Content-Length) and refuses a large Content-Length unread", async () => {
    const bytes = readPdf(BMJ);
    const pulled = { count: 0 };
    const error = await failure(
      run(
        {
          "https://example.org/big.pdf": () =>
            new Response(chunkedBody(bytes, pulled), { headers: { "Content-Type": "application/pdf" } }),
        },
        "https://example.org/big.pdf",
        { maxBytes: 100_000 },
      ),
    );
    expect(error.code).toBe("TOO_LARGE");
    expect(pulled.count).toBeLessThan(10); // 100 kB is 7 chunks of 16 KiB; the file is 28
    const declared = { count: 0 };
    const error2 = await failure(
      run(
        {
          "https://example.org/big.pdf": () =>
            new Response(chunkedBody(bytes, declared), {
              headers: { "Content-Type": "application/pdf", "Content-Length": String(bytes.byteLength) },
            }),
        },
        "https://example.org/big.pdf",
        { maxBytes: 100_000 },
      ),
    );
    expect(error2.code).toBe("TOO_LARGE");
    expect(declared.count).toBeLessThanOrEqual(1);
  });
});

describe("redirects", () => {
  const page = `<html><body><article><h1>A trial</h1>${ARTICLE_BODY}</article></body></html>`;
  const html: Handler = () => new Response(page, { headers: { "Content-Type": "text/html" } });
  const redirect =
    (location: string, status = 302): Handler =>
    () =>
      new Response(null, { status, headers: { Location: location } });

  it("follows up to five redirects (absolute and relative), asking for manual redirects each time", async () => {
    const fetch = fakeFetch({
      "https://doi.example.org/10.1/x": redirect("https://publisher.example.com/a", 301),
      "https://publisher.example.com/a": redirect("/b", 303),
      "https://publisher.example.com/b": redirect("c", 307),
      "https://publisher.example.com/c": redirect("https://cdn.example.net/d", 308),
      "https://cdn.example.net/d": redirect("https://cdn.example.net/e"),
      "https://cdn.example.net/e": html,
    });
    const result = await fetchFullText({ fetch: fetch as typeof globalThis.fetch }, "https://doi.example.org/10.1/x");
    expect(result.finalUrl).toBe("https://cdn.example.net/e");
    expect(result.kind).toBe("html");
    expect(fetch).toHaveBeenCalledTimes(6);
    for (const [, init] of fetch.mock.calls) {
      expect(init?.redirect).toBe("manual");
      expect(new Headers(init?.headers).get("User-Agent")).toMatch(/MetaMind/);
      expect(new Headers(init?.headers).get("Accept")).toMatch(/application\/pdf/);
    }
  });

  it("a sixth redirect → UNAVAILABLE", async () => {
    const routes: Record<string, Handler> = {};
    for (let i = 0; i < 6; i++) routes[`https://loop.example.org/${i}`] = redirect(`/${i + 1}`);
    routes["https://loop.example.org/6"] = html;
    const error = await failure(run(routes, "https://loop.example.org/0"));
    expect(error.code).toBe("UNAVAILABLE");
    expect(error.message).toMatch(/redirected more than 5 times/);
  });

  it.each([
    ["http://127.0.0.1/admin"],
    ["http://169.254.169.254/latest/meta-data/"],
    ["http://localhost:8787/api/user"],
    ["file:///etc/passwd"],
    ["http://[::1]/"],
  ])("a redirect to %s is refused (BAD_URL) and never fetched", async (target) => {
    const fetch = fakeFetch({ "https://publisher.example.com/x": redirect(target) });
    const error = await failure(
      fetchFullText({ fetch: fetch as typeof globalThis.fetch }, "https://publisher.example.com/x"),
    );
    expect(error.code).toBe("BAD_URL");
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it("a redirect without a Location → UNAVAILABLE", async () => {
    const error = await failure(
      run({ "https://x.example.org/": () => new Response(null, { status: 302 }) }, "https://x.example.org/"),
    );
    expect(error.code).toBe("UNAVAILABLE");
  });
});

describe("SSRF guard", () => {
  it.each([
    "http://localhost/",
    "http://LOCALHOST./",
    "http://api.localhost/",
    "http://127.0.0.1/",
    "http://127.1.2.3:8080/x",
    "http://2130706433/", // 127.0.0.1 as one decimal number
    "http://0x7f.0.0.1/",
    "http://0177.0.0.1/",
    "http://0.0.0.0/",
    "http://10.0.0.5/",
    "http://172.16.0.1/",
    "http://172.31.255.255/",
    "http://192.168.1.1/",
    "http://100.64.0.1/",
    "http://169.254.169.254/latest/meta-data/",
    "http://224.0.0.1/",
    "http://255.255.255.255/",
    "http://[::1]/",
    "http://[::]/",
    "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:a9fe:a9fe]/",
    "http://[fe80::1]/",
    "http://[fd12:3456::1]/",
    "http://[64:ff9b::10.0.0.1]/",
    "http://[2002:c0a8:101::1]/",
    "http://intranet/",
    "http://printer.local/",
    "http://metadata.google.internal/computeMetadata/v1/",
    "http://router.home.arpa/",
    "ftp://example.org/paper.pdf",
    "file:///etc/passwd",
    "javascript:alert(1)",
    "data:application/pdf;base64,JVBERi0=",
    "http://user:secret@example.org/paper.pdf",
    "not a url",
  ])("refuses %s without fetching", async (url) => {
    const fetch = vi.fn();
    const error = await failure(fetchFullText({ fetch: fetch as unknown as typeof globalThis.fetch }, url));
    expect(error.code).toBe("BAD_URL");
    expect(fetch).not.toHaveBeenCalled();
  });

  it.each([
    "https://europepmc.org/articles/PMC123/pdf",
    "http://8.8.8.8/paper.pdf",
    "https://172.32.0.1/",
    "https://[2606:4700:4700::1111]/",
    "https://www.ncbi.nlm.nih.gov/pmc/articles/PMC1/",
  ])("allows the public address %s", (url) => {
    expect(checkFullTextUrl(url).href).toBe(new URL(url).href);
  });

  it("allows a private host only when allowHosts lists it", async () => {
    expect(isPrivateHost("127.0.0.1")).toBe(true);
    expect(checkFullTextUrl("http://127.0.0.1:8788/pdfs/a.pdf", ["127.0.0.1"]).port).toBe("8788");
    expect(checkFullTextUrl("http://[::1]/a", ["::1"]).hostname).toBe("[::1]");
    expect(() => checkFullTextUrl("http://10.0.0.1/a", ["127.0.0.1"])).toThrow(FullTextError);
    const result = await run(
      {
        "http://127.0.0.1:8788/a": () =>
          new Response(`<p>${"Readable words of a paper. ".repeat(80)}</p>`, {
            headers: { "Content-Type": "text/html" },
          }),
      },
      "http://127.0.0.1:8788/a",
      { allowHosts: ["127.0.0.1"] },
    );
    expect(result.kind).toBe("html");
  });
});

describe("publisher refusals and HTTP errors", () => {
  it.each([401, 402, 403, 429, 451])("HTTP %i → PublisherRefusedError (REFUSED) with the status", async (status) => {
    const error = await failure(
      run(
        { "https://www.publisher.com/doi/pdf/10.1/x": () => new Response("Forbidden", { status }) },
        "https://www.publisher.com/doi/pdf/10.1/x",
      ),
    );
    expect(error).toBeInstanceOf(PublisherRefusedError);
    expect(error.code).toBe("REFUSED");
    expect((error as PublisherRefusedError).status).toBe(status);
  });

  it("a 403 after a redirect is still a refusal", async () => {
    const error = await failure(
      run(
        {
          "https://doi.org/10.1/x": () =>
            new Response(null, { status: 302, headers: { Location: "https://www.publisher.com/x.pdf" } }),
          "https://www.publisher.com/x.pdf": () => new Response("denied", { status: 403 }),
        },
        "https://doi.org/10.1/x",
      ),
    );
    expect(error).toBeInstanceOf(PublisherRefusedError);
  });

  it("a sign-in / purchase page served with 200 → PublisherRefusedError", async () => {
    const page = `<html><head><title>Article</title></head><body><nav>Home Journals</nav>
      <main><h1>Effects of X on Y</h1><p>Sign in to access the full text.</p>
      <p>Purchase this article for $39.95 or get access through your institution.</p></main></body></html>`;
    const error = await failure(
      run(
        {
          "https://www.publisher.com/doi/full/10.1/x": () =>
            new Response(page, { headers: { "Content-Type": "text/html" } }),
        },
        "https://www.publisher.com/doi/full/10.1/x",
      ),
    );
    expect(error).toBeInstanceOf(PublisherRefusedError);
    expect((error as PublisherRefusedError).status).toBe(200);
  });

  it.each([
    [404, /was not found \(HTTP 404\)/],
    [410, /was not found/],
    [500, /could not be downloaded \(HTTP 500\)/],
    [503, /HTTP 503/],
  ])("HTTP %i → UNAVAILABLE", async (status, message) => {
    const error = await failure(
      run({ "https://x.example.org/p": () => new Response("", { status }) }, "https://x.example.org/p"),
    );
    expect(error.code).toBe("UNAVAILABLE");
    expect(error.message).toMatch(message);
  });

  it("a network failure → UNAVAILABLE", async () => {
    const error = await failure(
      run(
        { "https://x.example.org/p": () => Promise.reject(new TypeError("fetch failed")) },
        "https://x.example.org/p",
      ),
    );
    expect(error.code).toBe("UNAVAILABLE");
    expect(error.message).toMatch(/fetch failed/);
  });
});

describe("content types, deadline and abort", () => {
  it("an image → NOT_TEXT", async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...new Array(3000).fill(7)]);
    const error = await failure(
      run(
        { "https://x.example.org/f.png": () => new Response(png, { headers: { "Content-Type": "image/png" } }) },
        "https://x.example.org/f.png",
      ),
    );
    expect(error.code).toBe("NOT_TEXT");
    expect(error.message).toMatch(/image\/png/);
  });

  it("plain text → kind text; too little of it → TOO_SHORT", async () => {
    const body = "Background. ".repeat(200);
    const result = await run(
      {
        "https://x.example.org/t.txt": () =>
          new Response(body, { headers: { "Content-Type": "text/plain; charset=utf-8" } }),
      },
      "https://x.example.org/t.txt",
    );
    expect(result).toMatchObject({ kind: "text", text: body.trim() });
    const error = await failure(
      run(
        {
          "https://x.example.org/s.txt": () =>
            new Response("Just a stub.", { headers: { "Content-Type": "text/plain" } }),
        },
        "https://x.example.org/s.txt",
      ),
    );
    expect(error.code).toBe("TOO_SHORT");
  });

  it("HTML sniffed when the server sends no Content-Type", async () => {
    const page = `\n\n<!DOCTYPE html><html><body><article><h1>T</h1>${ARTICLE_BODY}</article></body></html>`;
    const result = await run(
      { "https://x.example.org/h": () => new Response(new TextEncoder().encode(page)) },
      "https://x.example.org/h",
    );
    expect(result.kind).toBe("html");
  });

  it("a server that never answers → TIMEOUT within the deadline", async () => {
    const hang: Handler = (_url, init) =>
      new Promise<Response>((_resolve, reject) => {
        init?.signal?.addEventListener("abort", () => reject(init.signal!.reason));
      });
    const started = Date.now();
    const error = await failure(
      run({ "https://slow.example.org/p.pdf": hang }, "https://slow.example.org/p.pdf", { timeoutMs: 100 }),
    );
    expect(error.code).toBe("TIMEOUT");
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("a body that stalls after the headers → TIMEOUT (the read is abandoned)", async () => {
    const stall: Handler = () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new TextEncoder().encode("%PDF-1.7\n"));
          },
        }),
        { headers: { "Content-Type": "application/pdf" } },
      );
    const error = await failure(
      run({ "https://slow.example.org/s.pdf": stall }, "https://slow.example.org/s.pdf", { timeoutMs: 100 }),
    );
    expect(error.code).toBe("TIMEOUT");
  });

  it("the caller's abort rejects with the caller's reason", async () => {
    const controller = new AbortController();
    const hang: Handler = (_url, init) =>
      new Promise<Response>((_resolve, reject) => {
        init?.signal?.addEventListener("abort", () => reject(init.signal!.reason));
      });
    const pending = fetchFullText(
      { fetch: fakeFetch({ "https://x.example.org/p": hang }) as typeof fetch, signal: controller.signal },
      "https://x.example.org/p",
    );
    const reason = new Error("client went away");
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });
});

describe("htmlToText", () => {
  it("keeps headings and paragraphs, drops page chrome and code, decodes entities", () => {
    const html = `<!DOCTYPE html><html><head><title>Ignored title</title><style>p{color:red}</style></head>
      <body><header><a href="/">Journal home</a> <a>Sign in</a></header>
      <nav><ul><li>Browse</li><li>Subscribe</li></ul></nav>
      <script>var tracking = "<p>not text</p>";</script>
      <article>
        <h1>Vitamin&nbsp;D and falls</h1>
        <section><h2>Abstract</h2><p>We randomised <b>1,204</b> adults&#8212;aged &ge;&#x200A;65&nbsp;years.</p></section>
        <section><h2 class="x">Results</h2><p>Falls fell by 12% (95% CI 3&ndash;20%; p&lt;0.01).</p>
        <table><tr><th>Group</th><td>n</td></tr><tr><td>A</td><td>600</td></tr></table></section>
        <aside>Related articles</aside>
        <form><button>Download</button></form>
        ${ARTICLE_BODY}
      </article>
      <footer>© Publisher 2024</footer></body></html>`;
    const text = htmlToText(html);
    expect(text).toContain("Vitamin D and falls\n\nAbstract\n\nWe randomised 1,204 adults—aged ≥ 65 years.");
    expect(text).toContain("Results\n\nFalls fell by 12% (95% CI 3–20%; p<0.01).");
    expect(text).toContain("Group n\nA 600");
    for (const gone of [
      "Journal home",
      "Browse",
      "tracking",
      "not text",
      "Related articles",
      "Download",
      "© Publisher",
      "color:red",
      "Ignored title",
    ]) {
      expect(text).not.toContain(gone);
    }
    expect(text).not.toMatch(/\n{3,}|[ \t]{2,}/);
  });

  it("uses the whole page when there is no substantial article/main region", () => {
    const text = htmlToText(
      "<html><body><main><p>Short.</p></main><div><p>Outside &amp; kept.</p></div></body></html>",
    );
    expect(text).toBe("Short.\n\nOutside & kept.");
  });
});

describe("looksLikePaywall", () => {
  it("flags short sign-in/purchase pages, not long articles that mention signing in", () => {
    expect(looksLikePaywall("Effects of X. Sign in to read this article.")).toBe(true);
    expect(looksLikePaywall("Abstract only. ".repeat(300) + "Purchase PDF. Access through your institution.")).toBe(
      true,
    );
    expect(looksLikePaywall("Results were consistent. ".repeat(500) + "Sign in to comment. Subscribe to alerts.")).toBe(
      false,
    );
    expect(looksLikePaywall("Patients were followed up for two years. ".repeat(100))).toBe(false);
  });
});
