import { readFileSync } from "node:fs";
const core = await import("/tmp/armdbg/core2.mjs?" + Date.now());
const r = core.parseReport(readFileSync("/work/shared/extraction-arms/reports/PMC5498715.xml", "utf8"), "jats");
const t = r.tables.find((t) => t.label === "Table 2");
console.log(JSON.stringify(t.header), t.rows[3]);
const only = { ...r, tables: [t] };
console.log(JSON.stringify(core.extractArms(only, { intervention: "Motivational interviewing through self-determination theory sessions", comparator: "Standard education session", outcome: "Scores of external regulation" })).slice(0, 300));
