import { build } from "esbuild";
import { readFileSync } from "node:fs";
await build({ entryPoints: ["/work/wt-arms/app/lib/arms/index.ts"], bundle: true, format: "esm", platform: "node", outfile: "/tmp/armdbg/core2.mjs", logLevel: "error" });
const core = await import("/tmp/armdbg/core2.mjs?" + Date.now());
const ids = process.argv.slice(2).map(Number);
for (const line of readFileSync("/work/shared/extraction-arms/dev.jsonl", "utf8").trim().split("\n")) {
  const q = JSON.parse(line);
  if (!ids.includes(q.id)) continue;
  const r = core.parseReport(readFileSync(`/work/shared/extraction-arms/reports/${q.pmcid}.${process.env.FMT === "jats" ? "xml" : "md"}`, "utf8"), process.env.FMT ?? "markdown");
  const out = core.extractArms(r, q);
  console.log(q.id, JSON.stringify(out, null, 0).slice(0, 1500));
}
