#!/usr/bin/env node
// Memory of a 50,000-record screening corpus (issue 27: the import limit, a Worker has 128 MB):
// the records of ../shared/screening repeated with " (copy k)" titles to 50,000 (env RECORDS), term
// counts made in chunks of 2,000 as an import stores them (app/lib/screening/term-counts.ts), then
// the corpus assembled from those chunks, read one at a time as loadCorpus reads them from R2. Each
// phase runs in its own process, so its peak resident memory (maxRSS) is its own; the baseline is
// the same process after loading the data and the code, before the phase, and a garbage
// collection runs after each chunk (what must be alive at once, not what a roomy heap leaves).
//
// Usage: node bench/corpus-memory.mjs   (env RECORDS, default 50000)
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";
import { DEFAULT_FILES, readDataset, root } from "./lib/screening-data.mjs";

const RECORDS = Number(process.env.RECORDS ?? 50_000);
const CHUNK = 2000;
const [phase, dir] = process.argv.slice(2);

async function core(workDir) {
  const out = path.join(workDir, "term-counts.mjs");
  await build({
    entryPoints: [path.join(root, "app/lib/screening/term-counts.ts")],
    bundle: true,
    format: "esm",
    platform: "neutral",
    outfile: out,
    logLevel: "silent",
  });
  return import(pathToFileURL(out).href);
}

function records() {
  const base = DEFAULT_FILES.flatMap((f) => readDataset(f));
  return Array.from({ length: RECORDS }, (_, i) => {
    const r = base[i % base.length];
    const copy = Math.floor(i / base.length);
    return { id: String(i + 1), title: copy ? `${r.title} (copy ${copy})` : r.title, abstract: r.abstract };
  });
}

const mb = (bytes) => (bytes / 1024 / 1024).toFixed(1);

if (!phase) {
  const work = mkdtempSync(path.join(tmpdir(), "corpus-memory-"));
  try {
    const run = (p) =>
      JSON.parse(
        execFileSync(process.execPath, ["--expose-gc", fileURLToPath(import.meta.url), p, work], { encoding: "utf8" }),
      );
    const counted = run("count");
    const assembled = run("assemble");
    console.log(
      `${RECORDS} records, term counts in ${counted.chunks} chunks of ${CHUNK}: ${mb(counted.bytes)} MB stored (${(counted.bytes / RECORDS).toFixed(0)} bytes per record); counting: peak +${mb(counted.peak)} MB over the baseline`,
    );
    console.log(
      `assembling the corpus from the chunks: peak +${mb(assembled.peak)} MB over the baseline; the corpus holds ${mb(assembled.corpusBytes)} MB (${assembled.postings} weights, ${assembled.vocab} features); ${assembled.ms.toFixed(0)} ms`,
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
} else {
  const tc = await core(dir);
  if (phase === "count") {
    const all = records();
    globalThis.gc();
    const baseline = process.memoryUsage().rss;
    let bytes = 0;
    let chunks = 0;
    for (let at = 0; at < all.length; at += CHUNK) {
      const encoded = tc.encodeTermCounts(tc.countTerms(all.slice(at, at + CHUNK)));
      writeFileSync(path.join(dir, `${String(at).padStart(8, "0")}.tc`), encoded);
      bytes += encoded.length;
      chunks++;
      globalThis.gc();
    }
    process.stdout.write(JSON.stringify({ bytes, chunks, peak: process.resourceUsage().maxRSS * 1024 - baseline }));
  } else {
    const files = readdirSync(dir)
      .filter((f) => f.endsWith(".tc"))
      .sort();
    globalThis.gc();
    const baseline = process.memoryUsage().rss;
    const started = performance.now();
    // Postings from the chunks' headers, as loadCorpus takes them from the objects' metadata.
    let postings = 0;
    for (const f of files) {
      postings += tc.decodeTermCounts(new Uint8Array(readFileSync(path.join(dir, f))).buffer).cols.length;
      globalThis.gc();
    }
    const merger = tc.termCountsMerger(undefined, { postings });
    // A collection after each chunk, as a Worker near its 128 MB would run one: what is measured
    // is what must be alive at once (the merger's arrays and one chunk), not uncollected garbage.
    for (const f of files) {
      merger.add(tc.decodeTermCounts(new Uint8Array(readFileSync(path.join(dir, f))).buffer));
      globalThis.gc();
    }
    const corpus = merger.finish();
    const ms = performance.now() - started;
    const corpusBytes =
      corpus.cols.byteLength +
      corpus.vals.byteLength +
      corpus.rowPtr.byteLength +
      corpus.idf.byteLength +
      48 * (corpus.ids.length + corpus.vocab.length);
    process.stdout.write(
      JSON.stringify({
        peak: process.resourceUsage().maxRSS * 1024 - baseline,
        corpusBytes,
        postings: corpus.cols.length,
        vocab: corpus.vocab.length,
        ms,
      }),
    );
  }
}
