import { createExecutionContext, createMessageBatch, env, getQueueResult, SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { signIn, signUp } from "../helpers";
import worker from "../../../workers/app";
import { createDb } from "~/.server/db/client";
import { OFFLINE_ANALYSIS_NOTE } from "~/.server/fulltext/extractive-analysis";
import { extractUpload } from "~/.server/uploads/queue";
import { extractMessageFor, type PdfExtractMessage } from "~/.server/uploads/service";
import { MAX_UPLOAD_BYTES } from "~/.server/uploads/storage";
import { recordingD1 } from "../../mocks/recording-d1";

const BASE = "https://metamind.test";

/**
 * Real PDFs from ../shared/pdfs, inlined by Vite as data: URLs at transform time (workerd has no
 * file system). Empty when ../shared is absent; those tests skip.
 */
const pdfs = import.meta.glob("../../../../shared/pdfs/*.pdf", {
  query: "?inline",
  import: "default",
  eager: true,
}) as Record<string, string>;
function pdf(name: string): Uint8Array<ArrayBuffer> {
  const url = pdfs[`../../../../shared/pdfs/${name}`];
  if (!url) throw new Error(`missing ${name}`);
  const binary = atob(url.slice(url.indexOf(",") + 1));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}
const hasPdfs = Object.keys(pdfs).length > 0;
const MISSING_PDFS = "skipped: ../shared/pdfs not found (the real PDFs live outside the repo)";

const BMJ = "rct_bmj2015_physical_activity_smoking_cessation_pregnancy.pdf";
const TEA = "ma_wjso2019_tea_coffee_brain_cancer.pdf";

interface Account {
  cookie: string;
  userId: string;
}

/** A fresh Professional account (registered, then upgraded in the database), signed in again. */
async function newProAccount(): Promise<Account> {
  const { email } = await signUp("pro", { prefix: "uploader", password: "secret-pass" });
  return signIn(email, "secret-pass");
}

type UploadFile = { name: string; type?: string; bytes: Uint8Array<ArrayBuffer> };

function upload(account: Account | null, files: UploadFile[]) {
  const form = new FormData();
  for (const f of files) form.append("pdfs", new File([f.bytes], f.name, { type: f.type ?? "application/pdf" }));
  return SELF.fetch(`${BASE}/api/upload-pdfs`, {
    method: "POST",
    headers: { Origin: BASE, ...(account ? { Cookie: account.cookie } : {}) },
    body: form,
  });
}

/**
 * A multipart body of one file of `size` bytes ("%PDF-1.4" then filler), generated while it is
 * sent so the test never holds it whole.
 */
function streamedUpload(account: Account, size: number, fileName = "big.pdf") {
  const boundary = "----metamind-test-boundary";
  const enc = new TextEncoder();
  const head = enc.encode(
    `--${boundary}\r\nContent-Disposition: form-data; name="pdfs"; filename="${fileName}"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.4\n`,
  );
  const tail = enc.encode(`\r\n--${boundary}--\r\n`);
  const chunk = new Uint8Array(1024 * 1024).fill(0x20);
  let left = size - 9;
  let stage = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (stage === 0) {
        stage = 1;
        controller.enqueue(head);
      } else if (left > 0) {
        const n = Math.min(left, chunk.length);
        left -= n;
        controller.enqueue(chunk.subarray(0, n));
      } else if (stage === 1) {
        stage = 2;
        controller.enqueue(tail);
      } else {
        controller.close();
      }
    },
  });
  return SELF.fetch(`${BASE}/api/upload-pdfs`, {
    method: "POST",
    headers: { Origin: BASE, Cookie: account.cookie, "Content-Type": `multipart/form-data; boundary=${boundary}` },
    body,
  });
}

interface UploadResponse {
  results: { fileName: string; success: boolean; id?: number; fileSize?: number; message: string; error?: string }[];
  error?: string;
  message?: string;
}

/** Runs the queue consumer on the extraction messages of the user's queued uploads. */
async function runExtractionJobs(userId: string): Promise<void> {
  const { results } = await env.DB.prepare(
    "SELECT id, user_id AS userId, r2_key AS r2Key FROM uploaded_studies WHERE user_id = ? AND status IN ('queued','extracting')",
  )
    .bind(userId)
    .all<{ id: number; userId: string; r2Key: string }>();
  if (results.length === 0) return;
  const batch = createMessageBatch<PdfExtractMessage>(
    "metamind-jobs",
    results.map((row, i) => ({
      id: `m-${row.id}-${i}`,
      timestamp: Date.now(),
      attempts: 1,
      body: extractMessageFor(row),
    })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch as MessageBatch<unknown>, env as never, ctx);
  const outcome = await getQueueResult(batch, ctx);
  expect(outcome.retryMessages).toEqual([]);
}

async function list(account: Account) {
  const res = await SELF.fetch(`${BASE}/api/uploaded-studies`, { headers: { Cookie: account.cookie } });
  expect(res.status).toBe(200);
  return (await res.json()) as Array<Record<string, unknown> & { id: number; status: string; title: string }>;
}

async function objectKeys(userId: string): Promise<string[]> {
  const listed = await env.BUCKET.list({ prefix: `uploads/${userId}/` });
  return listed.objects.map((o) => o.key);
}

async function rowCount(userId: string): Promise<number> {
  const row = await env.DB.prepare("SELECT count(*) AS n FROM uploaded_studies WHERE user_id = ?")
    .bind(userId)
    .first<{ n: number }>();
  return row!.n;
}

const json = (account: Account, path: string, method: string, body?: unknown) =>
  SELF.fetch(`${BASE}${path}`, {
    method,
    headers: { Origin: BASE, Cookie: account.cookie, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

describe("plans and sign-in", () => {
  it("signed out: 401 for upload and list; Free: 403 PRO_REQUIRED pdf_upload, list allowed", async () => {
    expect((await upload(null, [{ name: "a.pdf", bytes: new TextEncoder().encode("%PDF-1.4") }])).status).toBe(401);
    expect((await SELF.fetch(`${BASE}/api/uploaded-studies`)).status).toBe(401);
    const free = await signIn("free@metamind.local");
    const res = await upload(free, [{ name: "a.pdf", bytes: new TextEncoder().encode("%PDF-1.4 x") }]);
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({
      error: "PRO_REQUIRED",
      feature: "pdf_upload",
      message: "PDF upload requires Professional subscription",
    });
    expect(await list(free)).toEqual([]);
    expect(await objectKeys(free.userId)).toEqual([]);
  });
});

(hasPdfs ? describe : describe.skip)(
  `upload → queue → extraction → list with real PDFs${hasPdfs ? "" : ` (${MISSING_PDFS})`}`,
  () => {
    let pro: Account;
    beforeAll(async () => {
      pro = await newProAccount();
    });

    it("stores two real articles, extracts them and lists them with their detected metadata", async () => {
      const res = await upload(pro, [
        { name: BMJ, bytes: pdf(BMJ) },
        { name: TEA, bytes: pdf(TEA) },
      ]);
      expect(res.status).toBe(200);
      const body = (await res.json()) as UploadResponse;
      expect(body.results.map((r) => [r.fileName, r.success, r.fileSize])).toEqual([
        [BMJ, true, 446202],
        [TEA, true, 1225228],
      ]);
      const queued = await list(pro);
      expect(queued).toHaveLength(2);
      expect(await objectKeys(pro.userId)).toHaveLength(2);

      await runExtractionJobs(pro.userId);
      const studies = await list(pro);
      const bmj = studies.find((s) => s.fileName === BMJ)!;
      expect(bmj).toMatchObject({
        status: "ready",
        title: "Physical activity for smoking cessation in pregnancy: randomised controlled trial",
        doi: "10.1136/bmj.h2145",
        journal: "BMJ",
        publicationDate: "2015",
        studyType: "Clinical Trial",
        fileSize: 446202,
        aiSummary: null,
        fullTextAnalysis: null,
        fullTextContent: null,
        failureReason: null,
        pagesRead: 10,
        totalPages: 10,
      });
      expect(bmj.authors).toEqual(expect.arrayContaining(["Michael Ussher", "Tim Coleman"]));
      expect(bmj.abstract).toMatch(/^Objective: To determine the effectiveness/);
      expect(bmj.fullTextLength).toBeGreaterThan(40_000);
      expect(new Date(bmj.uploadedAt as string).getTime()).toBeGreaterThan(Date.now() - 120_000);
      const tea = studies.find((s) => s.fileName === TEA)!;
      expect(tea).toMatchObject({
        status: "ready",
        doi: "10.1186/s12957-019-1591-y",
        studyType: "Meta-Analysis",
        title: "Association between tea and coffee consumption and brain cancer risk: an updated meta-analysis",
      });

      const one = await SELF.fetch(`${BASE}/api/uploaded-studies/${bmj.id}`, { headers: { Cookie: pro.cookie } });
      expect(((await one.json()) as { fullTextContent: string }).fullTextContent).toContain("physical activity");
      // The job is idempotent: a redelivered message changes nothing, and a stale one naming
      // another upload's object (or a deleted upload) never removes an object an upload still holds.
      const keyOf = async (id: number) =>
        (await env.DB.prepare("SELECT r2_key FROM uploaded_studies WHERE id = ?").bind(id).first<{ r2_key: string }>())!
          .r2_key;
      const batch = createMessageBatch<PdfExtractMessage>("metamind-jobs", [
        {
          id: "again",
          timestamp: Date.now(),
          attempts: 2,
          body: { kind: "pdf-extract", uploadId: bmj.id, userId: pro.userId, r2Key: await keyOf(bmj.id) },
        },
        {
          id: "stale",
          timestamp: Date.now(),
          attempts: 2,
          body: { kind: "pdf-extract", uploadId: bmj.id, userId: pro.userId, r2Key: await keyOf(tea.id) },
        },
        {
          id: "gone",
          timestamp: Date.now(),
          attempts: 2,
          body: { kind: "pdf-extract", uploadId: 987654, userId: pro.userId, r2Key: await keyOf(tea.id) },
        },
      ]);
      const ctx = createExecutionContext();
      await worker.queue(batch as MessageBatch<unknown>, env as never, ctx);
      expect((await getQueueResult(batch, ctx)).explicitAcks).toEqual(["again", "stale", "gone"]);
      expect(await objectKeys(pro.userId)).toHaveLength(2);
    }, 60_000);

    it("summary and full analysis stream, are stored and show in the list; bulk summary and analysis answer in the spec's shapes", async () => {
      const [first, second] = await list(pro);
      const res = await json(pro, `/api/uploaded-studies/${first!.id}/summary`, "POST");
      expect(res.status).toBe(200);
      expect(res.headers.get("Content-Type")).toMatch(/text\/plain/);
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      let text = "";
      let reads = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        reads++;
        text += value;
      }
      expect(reads).toBeGreaterThan(1);
      expect(text.length).toBeGreaterThan(50);
      const analysis = await json(pro, `/api/uploaded-studies/${first!.id}/full-analysis`, "POST");
      expect(analysis.status).toBe(200);
      expect(await analysis.text()).toContain(OFFLINE_ANALYSIS_NOTE);

      const after = (await list(pro)).find((s) => s.id === first!.id)!;
      expect(after.aiSummary).toEqual(expect.any(String));
      expect((after.aiSummary as string).length).toBeGreaterThan(50);
      expect(after.fullTextAnalysis).toMatch(/### Objective/);

      const bulk = await json(pro, "/api/uploaded-studies/bulk-summary", "POST", { studyIds: [first!.id, second!.id] });
      expect(bulk.status).toBe(200);
      const summary = (await bulk.json()) as { summary: string; studyCount: number; studies: unknown[] };
      expect(summary.studyCount).toBe(2);
      expect(summary.summary.length).toBeGreaterThan(100);
      expect(summary.studies).toEqual([
        { id: first!.id, title: first!.title, authors: first!.authors, fileName: first!.fileName },
        { id: second!.id, title: second!.title, authors: second!.authors, fileName: second!.fileName },
      ]);

      const meta = await json(pro, "/api/uploaded-studies/bulk-analysis", "POST", {
        studyIds: [first!.id, second!.id],
      });
      expect(meta.status).toBe(200);
      const result = (await meta.json()) as { studyCount: number; analysis: Record<string, unknown> };
      expect(result.studyCount).toBe(2);
      expect(Object.keys(result.analysis)).toEqual(
        expect.arrayContaining([
          "executiveSummary",
          "quantitativeFindings",
          "commonThemes",
          "clinicalRecommendations",
          "conflictsAndHeterogeneity",
          "gradeAssessment",
          "clinicalImplications",
        ]),
      );
      expect(Object.keys(result.analysis.quantitativeFindings as object).sort()).toEqual([
        "confidenceIntervals",
        "pooledEffectSize",
        "primaryOutcomes",
      ]);
      // Issue 16: the bulk meta-analysis runs the /meta-analysis engine and says why nothing pooled
      // (a trial and a meta-analysis of different outcomes), naming the studies by title.
      const pooledText = (result.analysis.quantitativeFindings as { pooledEffectSize: string }).pooledEffectSize;
      expect(pooledText).toMatch(
        /^Not pooled: no outcome was reported by at least 2 of these studies with usable numbers/,
      );
      expect(pooledText).not.toContain("pools effects only in a meta-analysis");
      expect((result as unknown as { metaAnalysis: { analyses: unknown[] } }).metaAnalysis.analyses).toEqual([]);
      for (const theme of result.analysis.commonThemes as string[]) {
        expect(theme).toMatch(
          /^No outcome or intervention is shared|^[A-Z][^:]* \((outcome|intervention or exposure)\)|^“/,
        );
      }
      expect(summary.summary).not.toMatch(/\bT\d+\.S\d+\b/);
      const tooFew = await json(pro, "/api/uploaded-studies/bulk-analysis", "POST", { studyIds: [first!.id] });
      expect(tooFew.status).toBe(400);
      expect(((await tooFew.json()) as { message: string }).message).toBe(
        "Please select at least 2 studies for meta-analysis",
      );
      expect((await json(pro, "/api/uploaded-studies/bulk-summary", "POST", { studyIds: [] })).status).toBe(400);
    }, 60_000);

    it("isolates users: another user can neither see, read, summarise nor delete the studies", async () => {
      const other = await newProAccount();
      const mine = await list(pro);
      expect(await list(other)).toEqual([]);
      const id = mine[0]!.id;
      expect(
        (await SELF.fetch(`${BASE}/api/uploaded-studies/${id}`, { headers: { Cookie: other.cookie } })).status,
      ).toBe(404);
      expect((await json(other, `/api/uploaded-studies/${id}/summary`, "POST")).status).toBe(404);
      expect((await json(other, `/api/uploaded-studies/${id}/full-analysis`, "POST")).status).toBe(404);
      expect((await json(other, "/api/uploaded-studies/bulk-summary", "POST", { studyIds: [id] })).status).toBe(404);
      expect((await json(other, `/api/uploaded-studies/${id}`, "DELETE")).status).toBe(404);
      const bulk = await json(other, "/api/uploaded-studies/bulk", "DELETE", { studyIds: mine.map((s) => s.id) });
      expect(await bulk.json()).toEqual({ deletedCount: 0 });
      expect(await list(pro)).toHaveLength(mine.length);
      expect(await objectKeys(pro.userId)).toHaveLength(mine.length);
    });

    it("bulk delete removes R2 objects and rows together; single delete too", async () => {
      const mine = await list(pro);
      const res = await json(pro, "/api/uploaded-studies/bulk", "DELETE", { studyIds: [mine[0]!.id] });
      expect(await res.json()).toEqual({ deletedCount: 1 });
      expect(await objectKeys(pro.userId)).toHaveLength(1);
      const single = await json(pro, `/api/uploaded-studies/${mine[1]!.id}`, "DELETE");
      expect(single.status).toBe(200);
      expect(await list(pro)).toEqual([]);
      expect(await objectKeys(pro.userId)).toEqual([]);
      expect((await json(pro, "/api/uploaded-studies/abc", "DELETE")).status).toBe(400);
    });
  },
);

(hasPdfs ? describe : describe.skip)(
  `bad PDFs leave only a failed status row, never an object${hasPdfs ? "" : ` (${MISSING_PDFS})`}`,
  () => {
    it("an HTML page saved as .pdf is refused at upload (415) and nothing is stored", async () => {
      const pro = await newProAccount();
      const res = await upload(pro, [{ name: "bad_html_saved_as_pdf.pdf", bytes: pdf("bad_html_saved_as_pdf.pdf") }]);
      expect(res.status).toBe(415);
      const body = (await res.json()) as UploadResponse;
      expect(body.error).toBe("NOT_PDF");
      expect(body.results[0]).toMatchObject({ success: false, error: "NOT_PDF" });
      expect(body.results[0]!.message).toMatch(/web page \(HTML\)/);
      expect(await objectKeys(pro.userId)).toEqual([]);
      expect(await rowCount(pro.userId)).toBe(0);
    });

    it("encrypted, scanned (1 and 103 pages), corrupt and truncated PDFs fail with their reasons; their objects are deleted", async () => {
      const pro = await newProAccount();
      const bmj = pdf(BMJ);
      const res = await upload(pro, [
        {
          name: "bad_encrypted_copy_protected_layoutparser.pdf",
          bytes: pdf("bad_encrypted_copy_protected_layoutparser.pdf"),
        },
        {
          name: "bad_scanned_image_only_conference_paper.pdf",
          bytes: pdf("bad_scanned_image_only_conference_paper.pdf"),
        },
        { name: "bad_scanned_image_only_us_patent_103p.pdf", bytes: pdf("bad_scanned_image_only_us_patent_103p.pdf") },
        { name: "bad_corrupted_stream_zen_of_python.pdf", bytes: pdf("bad_corrupted_stream_zen_of_python.pdf") },
        { name: "truncated.pdf", bytes: bmj.slice(0, 150_000) },
      ]);
      expect(res.status).toBe(200);
      expect(((await res.json()) as UploadResponse).results.every((r) => r.success)).toBe(true);
      expect(await objectKeys(pro.userId)).toHaveLength(5);
      await runExtractionJobs(pro.userId);
      const studies = await list(pro);
      const byName = Object.fromEntries(studies.map((s) => [s.fileName, s]));
      expect(studies.every((s) => s.status === "failed")).toBe(true);
      expect(byName["bad_encrypted_copy_protected_layoutparser.pdf"]!.failureReason).toMatch(/encrypted/);
      expect(byName["bad_scanned_image_only_conference_paper.pdf"]!.failureReason).toBe(
        "This PDF has no text layer (scanned images)",
      );
      expect(byName["bad_scanned_image_only_us_patent_103p.pdf"]!.failureReason).toBe(
        "This PDF has no text layer (scanned images)",
      );
      expect(byName["bad_corrupted_stream_zen_of_python.pdf"]!.failureReason).toMatch(
        /characters of readable text, too little to be a paper/,
      );
      expect(byName["truncated.pdf"]!.failureReason).toMatch(/damaged|not a valid PDF/);
      expect(await objectKeys(pro.userId)).toEqual([]);
      const notReady = await json(pro, `/api/uploaded-studies/${studies[0]!.id}/summary`, "POST");
      expect(notReady.status).toBe(409);
      // The user dismisses them: nothing is left at all.
      const del = await json(pro, "/api/uploaded-studies/bulk", "DELETE", { studyIds: studies.map((s) => s.id) });
      expect(await del.json()).toEqual({ deletedCount: 5 });
      expect(await rowCount(pro.userId)).toBe(0);
    }, 120_000);

    it("a 400-page manual is processed within the page limit (60 of 400 pages)", async () => {
      const pro = await newProAccount();
      const res = await upload(pro, [
        { name: "bad_large_400p_irs_manual.pdf", bytes: pdf("bad_large_400p_irs_manual.pdf") },
      ]);
      expect(res.status).toBe(200);
      await runExtractionJobs(pro.userId);
      const [study] = await list(pro);
      expect(study).toMatchObject({ status: "ready", pagesRead: 60, totalPages: 400, fileSize: 3597121 });
    }, 120_000);
  },
);

describe("upload limits", () => {
  let pro: Account;
  beforeAll(async () => {
    pro = await newProAccount();
  });

  it("refuses non-PDF types (415), more than 10 files (400) and a body that is not multipart (400), storing nothing", async () => {
    const png = await upload(pro, [
      { name: "photo.png", type: "image/png", bytes: new Uint8Array([0x89, 0x50, 0x4e, 0x47]) },
    ]);
    expect(png.status).toBe(415);
    expect(((await png.json()) as UploadResponse).message).toMatch(/only PDF files are accepted/);
    const eleven = await upload(
      pro,
      Array.from({ length: 11 }, (_, i) => ({
        name: `f${i}.pdf`,
        bytes: new TextEncoder().encode(`%PDF-1.4 file ${i}`),
      })),
    );
    expect(eleven.status).toBe(400);
    expect(await eleven.json()).toEqual({
      error: "TOO_MANY_FILES",
      message: "At most 10 PDFs can be uploaded at once.",
    });
    const notMultipart = await json(pro, "/api/upload-pdfs", "POST", { pdfs: [] });
    expect(notMultipart.status).toBe(400);
    const empty = await upload(pro, []);
    expect(empty.status).toBe(400);
    expect(await objectKeys(pro.userId)).toEqual([]);
    expect(await rowCount(pro.userId)).toBe(0);
  });

  it("answers per file in a mixed upload: the PDF is stored, the PNG and the HTML page are refused", async () => {
    const mixed = await newProAccount();
    const html = new TextEncoder().encode("\n\n<!DOCTYPE html><html><body>Landing page</body></html>");
    const res = await upload(mixed, [
      { name: "paper.pdf", bytes: new TextEncoder().encode(`%PDF-1.7\n${"y".repeat(100)}`) },
      { name: "figure.png", type: "image/png", bytes: new Uint8Array([0x89, 0x50, 0x4e, 0x47]) },
      { name: "landing.pdf", bytes: html },
    ]);
    expect(res.status).toBe(200);
    const body = (await res.json()) as UploadResponse;
    expect(body.results.map((r) => [r.fileName, r.success, r.error ?? null])).toEqual([
      ["paper.pdf", true, null],
      ["figure.png", false, "NOT_PDF"],
      ["landing.pdf", false, "NOT_PDF"],
    ]);
    expect(body.results[2]!.message).toBe("landing.pdf is not a PDF: it is a web page (HTML) saved with a .pdf name.");
    expect(await objectKeys(mixed.userId)).toHaveLength(1);
    expect(await rowCount(mixed.userId)).toBe(1);
  });

  it("streams a 12 MB file in R2 multipart parts, and refuses one byte over 50 MB with 413 leaving no object", async () => {
    const ok = await streamedUpload(pro, 12 * 1024 * 1024, "twelve.pdf");
    expect(ok.status).toBe(200);
    const keys = await objectKeys(pro.userId);
    expect(keys).toHaveLength(1);
    expect((await env.BUCKET.head(keys[0]!))!.size).toBe(12 * 1024 * 1024);
    const tooBig = await streamedUpload(pro, MAX_UPLOAD_BYTES + 1, "huge.pdf");
    expect(tooBig.status).toBe(413);
    const body = (await tooBig.json()) as UploadResponse;
    expect(body).toMatchObject({
      error: "FILE_TOO_LARGE",
      message: "huge.pdf is larger than 50 MB, the largest PDF accepted.",
    });
    // No object of the refused file is left. The 12 MB file's own object may be gone by now: the upload
    // queue reads it in the background, finds a PDF header over blank filler it cannot read, and deletes it
    // (the row stays, failed).
    expect((await objectKeys(pro.userId)).filter((key) => !keys.includes(key))).toEqual([]);
    expect(await rowCount(pro.userId)).toBe(1);
  }, 120_000);
});

describe("the extraction job's retries", () => {
  it("throws on a transient storage error (so the queue retries) and on the last attempt records the failure and removes the object", async () => {
    const pro = await newProAccount();
    const res = await upload(pro, [
      { name: "retry.pdf", bytes: new TextEncoder().encode(`%PDF-1.4\n${"x".repeat(2000)}`) },
    ]);
    expect(res.status).toBe(200);
    const row = await env.DB.prepare(
      "SELECT id, user_id AS userId, r2_key AS r2Key FROM uploaded_studies WHERE user_id = ?",
    )
      .bind(pro.userId)
      .first<{ id: number; userId: string; r2Key: string }>();
    const failingBucket = {
      get: async () => {
        throw new Error("R2 is unavailable");
      },
      delete: (keys: string | string[]) => env.BUCKET.delete(keys),
    } as unknown as R2Bucket;
    const app = { db: createDb(env.DB), bindings: { ...env, BUCKET: failingBucket } };
    await expect(extractUpload(app, extractMessageFor(row!), { isLastAttempt: false })).rejects.toThrow(
      "R2 is unavailable",
    );
    expect(await objectKeys(pro.userId)).toHaveLength(1);
    expect((await list(pro))[0]).toMatchObject({ status: "extracting", failureReason: null });

    await expect(extractUpload(app, extractMessageFor(row!), { isLastAttempt: true })).rejects.toThrow(
      "R2 is unavailable",
    );
    expect(await objectKeys(pro.userId)).toEqual([]);
    expect((await list(pro))[0]).toMatchObject({
      status: "failed",
      failureReason: "The PDF could not be processed. Please try uploading it again.",
    });
  });
});

describe("bulk meta-analysis of uploads", () => {
  it("pools the studies' effect data through the /meta-analysis engine (same numbers as metafor)", async () => {
    const pro = await newProAccount();
    const abstracts = [
      [
        "Drug A versus placebo: a randomised controlled trial",
        "We randomly assigned 198 adults. Mortality was 12/100 vs 20/98 (p = 0.04).",
      ],
      [
        "Drug A in older adults: a randomized trial",
        "We randomly assigned 822 patients. Mortality occurred in 57 of 411 patients given drug A and 73 of 411 given placebo.",
      ],
      [
        "Drug A in primary care: a randomised trial",
        "We randomly assigned 390 adults. Mortality was 30/200 vs 35/190.",
      ],
    ];
    const ids: number[] = [];
    for (const [title, abstract] of abstracts) {
      const row = await env.DB.prepare(
        "INSERT INTO uploaded_studies (user_id, file_name, file_size, status, progress, title, abstract, full_text_content) VALUES (?, ?, 1000, 'ready', 100, ?, ?, ?) RETURNING id",
      )
        .bind(pro.userId, `${title}.pdf`, title, abstract, `${title}\n\n${abstract}`)
        .first<{ id: number }>();
      ids.push(row!.id);
    }
    const res = await json(pro, "/api/uploaded-studies/bulk-analysis", "POST", { studyIds: ids });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      analysis: {
        quantitativeFindings: { pooledEffectSize: string; confidenceIntervals: string[] };
        strengthOfEvidence: string;
      };
      metaAnalysis: {
        analyses: { outcome: string; measure: string; k: number; estimate: number; method: string; test: string }[];
      };
    };
    const [a] = body.metaAnalysis.analyses;
    expect([a!.outcome, a!.measure, a!.k, a!.method, a!.test]).toEqual(["mortality", "RR", 3, "REML", "knha"]);
    // R: rma(escalc("RR", ai=c(12,57,30), n1i=c(100,411,200), ci=c(20,73,35), n2i=c(98,411,190)), method="REML", test="knha")
    expect(a!.estimate).toBeCloseTo(-0.27303629, 6);
    expect(body.analysis.quantitativeFindings.pooledEffectSize).toMatch(
      /^Mortality: 3 studies pooled with a random-effects model \(REML estimate of tau²\) with the Hartung–Knapp adjustment gave RR 0\.76 \(95% CI /,
    );
    expect(body.analysis.quantitativeFindings.confidenceIntervals[0]).toMatch(
      /^mortality \(k = 3\): RR 0\.76 \(95% CI /,
    );
  }, 30_000);
});

describe("the extraction job's progress", () => {
  it.skipIf(!hasPdfs)(
    "the row is 'extracting' while the PDF is read and reports page by page, then ready at 100%",
    async () => {
      const pro = await newProAccount();
      expect((await upload(pro, [{ name: BMJ, bytes: pdf(BMJ) }])).status).toBe(200);
      const [queued] = await list(pro);
      expect(queued).toMatchObject({ status: "queued", progress: 0, stageDetail: null });
      const row = await env.DB.prepare(
        "SELECT id, user_id AS userId, r2_key AS r2Key FROM uploaded_studies WHERE user_id = ?",
      )
        .bind(pro.userId)
        .first<{ id: number; userId: string; r2Key: string }>();
      // What the list says at the moment the job reads the file from R2.
      let whileReading: Record<string, unknown> | undefined;
      const watchingBucket = {
        get: async (key: string) => {
          whileReading = (await list(pro))[0];
          return env.BUCKET.get(key);
        },
        delete: (keys: string | string[]) => env.BUCKET.delete(keys),
      } as unknown as R2Bucket;
      const writes: Record<string, unknown>[] = [];
      const app = {
        db: createDb(recordingD1(env.DB, "uploaded_studies", writes)),
        bindings: { ...env, BUCKET: watchingBucket },
      };
      await extractUpload(app, extractMessageFor(row!), { isLastAttempt: false });

      expect(whileReading).toMatchObject({ status: "extracting", progress: 5, stageDetail: "Reading the file" });
      const steps = writes.map((w) => [w.status, w.progress, w.stage_detail]);
      expect(steps[0]).toEqual(["extracting", 5, "Reading the file"]);
      expect(steps[1]).toEqual(["extracting", 10, "Opening the PDF"]);
      expect(steps).toContainEqual(["extracting", 18, "Reading page 1 of 10"]);
      expect(steps).toContainEqual(["extracting", 85, "Reading page 10 of 10"]);
      expect(steps.at(-2)).toEqual(["extracting", 90, "Finding the title, authors and DOI"]);
      expect(steps.at(-1)).toEqual(["ready", 100, null]);
      const percents = steps.map((s) => s[1] as number);
      expect(percents).toEqual([...percents].sort((a, b) => a - b));
      expect((await list(pro))[0]).toMatchObject({ status: "ready", progress: 100, stageDetail: null });
    },
    60_000,
  );
});
