// The benches' shared harness: the real Worker under `wrangler dev` with every provider pointed at
// the replay server (scripts/start-offline.mjs), on the bench's own ports and state directory.
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/**
 * Starts the offline dev server in its own process group with fresh state under
 * `.wrangler/{stateDir}`; `env` adds variables (REPLAY_LATENCY_MS, EXTRA_VARS…). SKIP_BUILD=1 in
 * the bench's environment reuses the existing build. The server is stopped when the bench exits.
 * Returns the child process, the base URL and `stop()`.
 */
export function startDevServer({ port, replayPort, stateDir, env = {} }) {
  const child = spawn(process.execPath, [path.join(root, "scripts/start-offline.mjs")], {
    cwd: root,
    env: {
      ...process.env,
      PATH: `${path.join(root, "node_modules/.bin")}${path.delimiter}${process.env.PATH}`,
      PORT: String(port),
      REPLAY_PORT: String(replayPort),
      PERSIST_DIR: path.join(".wrangler", stateDir),
      FRESH_STATE: "1",
      SKIP_BUILD: process.env.SKIP_BUILD ?? "0",
      ...env,
    },
    stdio: ["ignore", "ignore", "inherit"],
    detached: true,
  });
  const stop = () => {
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {
      // already gone
    }
  };
  process.on("exit", stop);
  return { child, base: `http://127.0.0.1:${port}`, stop };
}

/** Resolves once `base` answers 200 (polled every 500 ms for up to 2 minutes). */
export async function waitForServer(base) {
  for (let i = 0; i < 240; i++) {
    try {
      const res = await fetch(`${base}/`);
      if (res.ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error("server did not start");
}

/** Signs in the Professional demo account; returns its session cookie (`name=value`). */
export async function loginPro(base) {
  const res = await fetch(`${base}/api/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: base },
    body: JSON.stringify({ email: "pro@metamind.local", password: "metamind-demo" }),
  });
  if (!res.ok) throw new Error(`login failed: ${res.status}`);
  return res.headers.get("set-cookie").split(";")[0];
}
