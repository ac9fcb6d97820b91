// Arm-level extraction through the upload path: real trial PDFs (../shared/pdfs) read by the product's PDF reader,
// then the arm bench's own contract (`node bench/arm-extraction.mjs --json OUT QUESTIONS`).
//
//   node bench/arm-extraction-pdfs.mjs
//
// Questions: bench/arm-extraction-pdfs.jsonl, one per line {id, pdf, intervention, comparator, outcome, reference},
// written and annotated by hand from two randomised trials' PDFs that are not part of ../shared/extraction-arms
// (issue 26 round 18; docs/methods/arm-extraction.md "Round 18"). The reference values were written down before the
// first run. The same questions run twice in one run: on the text as unpdf's `extractText` joins it (the baseline:
// every gap a single space) and on the product's text (`extractPdfDocument`: a table's column gaps kept as tabs).
// These reports were looked at while the round's rules were written, so the figures are development figures.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { extractText, getDocumentProxy } from "unpdf";
import { importBundled } from "./lib/bundled.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const pdfDir = resolve(root, "../shared/pdfs");
if (!existsSync(pdfDir)) {
  console.error(`skipped: real PDFs not found at ${pdfDir} (../shared/pdfs lives outside the repo)`);
  process.exit(0);
}
const { extractPdfDocument } = await importBundled(join(root, "app/.server/fulltext/fetch.ts"));
const questions = readFileSync(join(root, "bench/arm-extraction-pdfs.jsonl"), "utf8")
  .split("\n")
  .filter((line) => line.trim())
  .map((line) => JSON.parse(line));

const readers = {
  "unpdf extractText (baseline)": async (bytes) =>
    (await extractText(await getDocumentProxy(bytes), { mergePages: true })).text,
  "product (column gaps as tabs)": async (bytes) => (await extractPdfDocument(bytes, { maxPages: 50 })).text,
};

const dir = mkdtempSync(join(tmpdir(), "arm-pdfs-"));
try {
  for (const [name, read] of Object.entries(readers)) {
    const texts = new Map();
    for (const q of questions)
      if (!texts.has(q.pdf)) texts.set(q.pdf, await read(new Uint8Array(readFileSync(join(pdfDir, q.pdf)))));
    const file = join(dir, "questions.jsonl");
    writeFileSync(
      file,
      questions.map(({ pdf, ...q }) => JSON.stringify({ ...q, format: "text", text: texts.get(pdf) })).join("\n"),
    );
    const out = join(dir, "out.json");
    const printed = execFileSync(process.execPath, [join(root, "bench/arm-extraction.mjs"), "--json", out, file], {
      encoding: "utf8",
    });
    console.log(`== ${name}: ${questions.length} questions on ${texts.size} PDFs`);
    console.log(printed.trim());
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
