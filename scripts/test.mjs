#!/usr/bin/env node
// `npm test`: the stages of scripts/lib/test-stages.mjs, each stage's steps side by side
// (scripts/lib/run-stages.mjs); exits with the first failing step's code.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { runStages } from "./lib/run-stages.mjs";
import { stages } from "./lib/test-stages.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const bin = path.join(root, "node_modules", ".bin");
// Buffered steps write to a pipe, not a terminal: keep their colours when the terminal has them.
const color = process.stdout.isTTY ? { FORCE_COLOR: "1" } : {};
const env = { ...process.env, ...color, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ""}` };
process.exitCode = await runStages(stages, { cwd: root, env });
