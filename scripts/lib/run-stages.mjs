import { spawn } from "node:child_process";

/**
 * Runs shell commands in stages: the commands of one stage at the same time, the stages in order.
 * A stage of one command inherits the terminal; in a stage of several, each command's stdout and
 * stderr are collected and printed whole, in the stage's order, when the stage is done, followed
 * by one line per command with its result and time. The first stage with a failing command stops
 * the run.
 * @param {string[][]} stages shell commands, run from `options.cwd`
 * @param {{cwd: string, env?: NodeJS.ProcessEnv, write?: (text: string) => void}} options
 * @returns {Promise<number>} 0 when every command passed, else the first failing command's exit code
 *   (a shell reports a step killed by a signal as 128 + the signal's number)
 */
export async function runStages(stages, { cwd, env = process.env, write = (text) => process.stdout.write(text) }) {
  const started = performance.now();
  const seconds = (from) => ((performance.now() - from) / 1000).toFixed(0);
  for (const stage of stages) {
    const buffered = stage.length > 1;
    const results = await Promise.all(stage.map((command) => run(command, { cwd, env, buffered })));
    for (const [i, result] of results.entries()) {
      if (buffered) write(`\n> ${stage[i]}\n${result.output}`);
    }
    for (const [i, result] of results.entries()) {
      const outcome = result.code === 0 ? "ok" : `failed (exit ${result.code})`;
      write(`test: ${stage[i]} — ${outcome} in ${result.seconds.toFixed(0)} s\n`);
    }
    const failed = results.find((result) => result.code !== 0);
    if (failed) {
      write(`test: stopped at the failing step above, ${seconds(started)} s in all\n`);
      return failed.code;
    }
  }
  write(`test: every step passed in ${seconds(started)} s\n`);
  return 0;
}

/** One command through the shell; `buffered` collects stdout and stderr as they come. */
function run(command, { cwd, env, buffered }) {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(command, { cwd, env, shell: true, stdio: buffered ? ["ignore", "pipe", "pipe"] : "inherit" });
    let output = "";
    if (buffered) {
      child.stdout.on("data", (chunk) => (output += chunk));
      child.stderr.on("data", (chunk) => (output += chunk));
    }
    child.on("close", (code) => resolve({ code: code ?? 1, output, seconds: (performance.now() - started) / 1000 }));
  });
}
