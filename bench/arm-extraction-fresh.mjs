// Arm-level extraction on real reports that are not part of ../shared/extraction-arms (issue 26 round 18; methods note
// docs/methods/arm-extraction.md "Round 18"), through the arm bench's own contract
// (`node bench/arm-extraction.mjs --json OUT QUESTIONS`).
//
//   node bench/arm-extraction-fresh.mjs
//
// 1. PDFs (the upload path): bench/arm-extraction-pdfs.jsonl, {id, pdf, intervention, comparator, outcome, reference},
//    16 questions on the two randomised trials of ../shared/pdfs. Run twice in one go: on the text as unpdf's
//    `extractText` joins it (the baseline: every gap a single space) and on the product's text (`extractPdfDocument`:
//    a table's column gaps kept as tabs, ADR 0046). These reports were looked at while round 18's rules were written:
//    development figures.
// 2. Abstracts: bench/arm-extraction-abstracts.jsonl, {id, screening, recordId, …}, 20 questions on the nine records of
//    ../shared/screening whose abstracts report a randomised comparison with arm-level numbers ("a/N … vs … b/M",
//    "m ± s … vs … m ± s"). Questions and references were written by hand before the core first ran on them; the
//    first run's figures are in docs/performance.md as a measure on unseen text.
// 3. Abstracts, second set (round 19): bench/arm-extraction-abstracts-2.jsonl, 19 questions on twelve more records of
//    ../shared/screening (randomised comparisons whose abstracts give arm-level counts or means), including two
//    questions the abstract answers only with an effect estimate (every reference value null). Annotated by hand and
//    committed (1ad4841) before the core first ran on them.
//    A third set, bench/arm-extraction-abstracts-3.jsonl (16 questions on ten more records), was annotated and committed
//    (05bf334) after round 19's rules were final, to measure them blind.
//    A fourth set, bench/arm-extraction-abstracts-4.jsonl (21 questions on fourteen more records), was annotated by
//    another session that ran no code of the repo and committed (042f429) before the core first ran on it (round 20).
//    A fifth set, bench/arm-extraction-abstracts-5.jsonl (20 questions on fourteen more records), was annotated the same
//    way and committed (cc3afbe) before the core first ran on it, and held back until round 20's first rule was final;
//    a sixth, bench/arm-extraction-abstracts-6.jsonl (23 questions on fifteen more records), the same way after the
//    round's first three rules; a seventh, bench/arm-extraction-abstracts-7.jsonl (22 questions on sixteen more records), held
//    back (committed d638130) until the round's later rules were final. An eighth, bench/arm-extraction-abstracts-8.jsonl
//    (21 questions on fifteen more records), was annotated the same way and committed (f292031) unread, after round
//    21's rule was written, to measure it blind. A ninth and a tenth (bench/arm-extraction-abstracts-9.jsonl and -10,
//    20 questions on fifteen more records each) were annotated the same way and committed unread (e25f0b6) in round 22:
//    the ninth run first on round 21's code, the tenth held back until round 22's first rules were final. An eleventh
//    (bench/arm-extraction-abstracts-11.jsonl, 21 questions on fifteen more records) was annotated the same way and
//    committed unread (6c83572), and run first on round 22's rules before its last one; a twelfth (-12, 20 questions on
//    sixteen more records) committed unread (22376ee) and run first on round 22's rules but its trailing-period rule;
//    a thirteenth (-13, 21 questions on fifteen more records) committed unread (bd9dc97) and run first on every rule of
//    round 22 but its last two; a fourteenth (-14, 25 questions on sixteen more records) committed unread (024191c)
//    after the round's last rule and its adoption rule, and run first on them. Round 23 added nine more (-15 to -23,
//    about 21 questions on 15–17 records each), by helpers with their own partitions of the records and seeds, each
//    committed unread and run first as docs/methods/arm-extraction.md "Round 23" says. Round 24 added eight more (-24 to
//    -31, 6–22 questions each) the same way, in three batches, each committed unread and run first after the rules
//    before it (methods note "Round 24").
// 4. Provider records (round 19): bench/arm-extraction-records.jsonl, {id, source, format, …}, 9 questions on the two
//    randomised trials among ../shared/fixtures/providers: a Europe PMC full text (JATS, read by the product's JATS
//    parser) and a PubMed abstract (title and abstract as the product's PubMed normaliser gives them). Annotated by hand
//    and committed (dffd1a2) before the core first ran on them.
// Reference values follow the arm data's conventions: a field the text does not give is null.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import Papa from "papaparse";
import { extractText, getDocumentProxy } from "unpdf";
import { readJsonl } from "./lib/arm-data.mjs";
import { importBundled } from "./lib/bundled.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const shared = resolve(root, "../shared");
if (["pdfs", "screening", "fixtures/providers"].some((d) => !existsSync(join(shared, d)))) {
  console.error(
    `skipped: ../shared/pdfs, screening and fixtures/providers are not all at ${shared} (they live outside the repo)`,
  );
  process.exit(0);
}

const dir = mkdtempSync(join(tmpdir(), "arm-fresh-"));
/** Runs `questions` (each with its text) through the arm bench's --json contract and prints its figures. */
function run(title, questions) {
  const file = join(dir, "questions.jsonl");
  writeFileSync(file, questions.map((q) => JSON.stringify(q)).join("\n"));
  const printed = execFileSync(
    process.execPath,
    [join(root, "bench/arm-extraction.mjs"), "--json", join(dir, "out.json"), file],
    { encoding: "utf8" },
  );
  console.log(`== ${title}: ${questions.length} questions`);
  console.log(printed.trim());
}

try {
  const { extractPdfDocument } = await importBundled(join(root, "app/.server/fulltext/fetch.ts"));
  const pdfQuestions = readJsonl(join(root, "bench/arm-extraction-pdfs.jsonl"));
  const readers = {
    "PDFs, unpdf extractText (baseline)": async (bytes) =>
      (await extractText(await getDocumentProxy(bytes), { mergePages: true })).text,
    "PDFs, product text (column gaps as tabs)": async (bytes) =>
      (await extractPdfDocument(bytes, { maxPages: 50 })).text,
  };
  for (const [title, read] of Object.entries(readers)) {
    const texts = new Map();
    for (const q of pdfQuestions)
      if (!texts.has(q.pdf)) texts.set(q.pdf, await read(new Uint8Array(readFileSync(join(shared, "pdfs", q.pdf)))));
    run(
      title,
      pdfQuestions.map(({ pdf, ...q }) => ({ ...q, format: "text", text: texts.get(pdf) })),
    );
  }
  const records = new Map();
  /** The questions of a {screening, recordId, …} file, each with its record's title and abstract as plain text. */
  const abstractQuestions = (file) =>
    readJsonl(join(root, file)).map(({ screening, recordId, ...q }) => {
      if (!records.has(screening)) {
        const csv = readFileSync(join(shared, "screening", `${screening}.csv`), "utf8");
        const rows = Papa.parse(csv, { header: true, skipEmptyLines: true }).data;
        records.set(screening, new Map(rows.map((row) => [row.record_id, row])));
      }
      const record = records.get(screening).get(recordId);
      if (!record) throw new Error(`${screening} has no record ${recordId}`);
      return { ...q, format: "text", text: `${record.title}\n\n${record.abstract}` };
    });
  run(
    "screening abstracts (title and abstract as plain text)",
    abstractQuestions("bench/arm-extraction-abstracts.jsonl"),
  );
  run("screening abstracts, second set (round 19)", abstractQuestions("bench/arm-extraction-abstracts-2.jsonl"));
  run(
    "screening abstracts, third set (round 19, final rules)",
    abstractQuestions("bench/arm-extraction-abstracts-3.jsonl"),
  );
  run("screening abstracts, fourth set (round 20)", abstractQuestions("bench/arm-extraction-abstracts-4.jsonl"));
  run("screening abstracts, fifth set (round 20)", abstractQuestions("bench/arm-extraction-abstracts-5.jsonl"));
  run("screening abstracts, sixth set (round 20)", abstractQuestions("bench/arm-extraction-abstracts-6.jsonl"));
  run(
    "screening abstracts, seventh set (round 20, final rules)",
    abstractQuestions("bench/arm-extraction-abstracts-7.jsonl"),
  );
  run("screening abstracts, eighth set (round 21)", abstractQuestions("bench/arm-extraction-abstracts-8.jsonl"));
  run("screening abstracts, ninth set (round 22)", abstractQuestions("bench/arm-extraction-abstracts-9.jsonl"));
  run("screening abstracts, tenth set (round 22)", abstractQuestions("bench/arm-extraction-abstracts-10.jsonl"));
  run("screening abstracts, eleventh set (round 22)", abstractQuestions("bench/arm-extraction-abstracts-11.jsonl"));
  run("screening abstracts, twelfth set (round 22)", abstractQuestions("bench/arm-extraction-abstracts-12.jsonl"));
  run("screening abstracts, thirteenth set (round 22)", abstractQuestions("bench/arm-extraction-abstracts-13.jsonl"));
  run("screening abstracts, fourteenth set (round 22)", abstractQuestions("bench/arm-extraction-abstracts-14.jsonl"));
  for (const [n, name] of [
    [15, "fifteenth"],
    [16, "sixteenth"],
    [17, "seventeenth"],
    [18, "eighteenth"],
    [19, "nineteenth"],
    [20, "twentieth"],
    [21, "twenty-first"],
    [22, "twenty-second"],
    [23, "twenty-third"],
  ])
    run(`screening abstracts, ${name} set (round 23)`, abstractQuestions(`bench/arm-extraction-abstracts-${n}.jsonl`));
  for (const [n, name] of [
    [24, "twenty-fourth"],
    [25, "twenty-fifth"],
    [26, "twenty-sixth"],
    [27, "twenty-seventh"],
    [28, "twenty-eighth"],
    [29, "twenty-ninth"],
    [30, "thirtieth"],
    [31, "thirty-first"],
  ])
    run(`screening abstracts, ${name} set (round 24)`, abstractQuestions(`bench/arm-extraction-abstracts-${n}.jsonl`));
  const { normalisePubmedXml } = await importBundled(join(root, "app/.server/search/providers/pubmed.ts"));
  const providers = join(shared, "fixtures/providers");
  const recordQuestions = readJsonl(join(root, "bench/arm-extraction-records.jsonl")).map(
    ({ source, format, ...q }) => {
      const body = readFileSync(join(providers, source), "utf8");
      if (format === "jats") return { ...q, format, text: body };
      const [study] = normalisePubmedXml(body).studies;
      return { ...q, format: "text", text: `${study.title}\n\n${study.abstract}` };
    },
  );
  run("provider records (Europe PMC full text as JATS, PubMed abstract)", recordQuestions);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
