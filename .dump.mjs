import { build } from "esbuild";
import { readFileSync } from "node:fs";
await build({ entryPoints: ["/work/wt-arms/app/lib/arms/index.ts"], bundle: true, format: "esm", platform: "node", outfile: "/tmp/armdbg/core.mjs", logLevel: "error" });
const core = await import("/tmp/armdbg/core.mjs?" + Date.now());
const [file, fmt] = process.argv.slice(2);
const r = core.parseReport(readFileSync(file, "utf8"), fmt ?? "markdown");
for (const t of r.tables) {
  console.log(`== ${t.label}: ${t.caption.slice(0, 90)}`);
  for (const h of t.header) console.log("  H| " + h.join(" | "));
  for (const row of t.rows.slice(0, 40)) console.log("  R| " + row.join(" | "));
  if (t.footnotes.length) console.log("  F: " + t.footnotes.join(" // ").slice(0, 200));
}
console.log("paragraphs", r.paragraphs.length, "chars", r.text.length);
