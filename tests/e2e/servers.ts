/**
 * The suite's web servers: one MetaMind Worker (wrangler dev, fresh local state) and its replay
 * server per Playwright worker, so specs that run at the same time never share an account's state
 * (settings, history, bookmarks, the 10 saved searches) or a guest counter. Worker i (Playwright's
 * `parallelIndex`) uses port E2E_PORT + 10·i (default 8797), replay port E2E_REPLAY_PORT + 10·i
 * (default 8798) and its own state directory.
 */
export interface E2eServer {
  port: number;
  replayPort: number;
  /** wrangler's --persist-to directory, relative to the repository root. */
  persistDir: string;
}

/** Playwright workers (and so servers): E2E_WORKERS, default 2 — the machines we run on have 2 cores. */
export const E2E_WORKERS = Math.max(1, Number(process.env.E2E_WORKERS ?? 2) || 1);

/** The server Playwright worker `parallelIndex` (0 … E2E_WORKERS − 1) talks to. */
export function e2eServer(parallelIndex: number): E2eServer {
  const port = Number(process.env.E2E_PORT ?? 8797) + 10 * parallelIndex;
  const replayPort = Number(process.env.E2E_REPLAY_PORT ?? 8798) + 10 * parallelIndex;
  return { port, replayPort, persistDir: `.wrangler/e2e-state-${parallelIndex}` };
}
