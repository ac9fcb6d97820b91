// The Worker isolate's own memory under `wrangler dev`: its V8 heap, read through the runtime's
// inspector (the DevTools protocol workerd serves per Worker), after a full garbage collection.
import { readFileSync, readdirSync, readlinkSync } from "node:fs";

/** TCP ports (numbers) on which any of `pids` listens, from /proc (Linux). */
function listeningPorts(pids) {
  const inodes = new Map();
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text = "";
    try {
      text = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    for (const line of text.trim().split("\n").slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols[3] === "0A") inodes.set(cols[9], parseInt(cols[1].split(":")[1], 16));
    }
  }
  const ports = [];
  for (const pid of pids) {
    let fds = [];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
        if (inode && inodes.has(inode)) ports.push(inodes.get(inode));
      } catch {
        // fd closed meanwhile
      }
    }
  }
  return ports;
}

/**
 * The DevTools WebSocket URL of the user Worker (`core:user:<name>`) among the inspector ports of
 * the workerd processes `pids`, or null when none answers.
 */
export async function findWorkerInspector(pids) {
  for (const port of listeningPorts(pids)) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/json/list`, { signal: AbortSignal.timeout(1000) });
      const targets = await res.json();
      const worker = Array.isArray(targets) && targets.find((t) => String(t.id).startsWith("core:user:"));
      if (worker) return worker.webSocketDebuggerUrl;
    } catch {
      // not an inspector
    }
  }
  return null;
}

/**
 * The Worker isolate's used V8 heap (MB) after a full collection (HeapProfiler.collectGarbage,
 * then Runtime.getHeapUsage). workerd handles inspector messages while the isolate runs, so
 * `pumpUrl` (a cheap request) is fetched until the answers are in; a session's first message can
 * go unanswered, so an unanswered session is replaced (three tries).
 */
export async function workerHeapMb(wsUrl, pumpUrl) {
  let lastError;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await heapOnce(wsUrl, pumpUrl);
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}

async function heapOnce(wsUrl, pumpUrl) {
  const ws = new WebSocket(wsUrl);
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = () => reject(new Error(`inspector ${wsUrl} refused the connection`));
  });
  let id = 0;
  const waiting = new Map();
  ws.onmessage = (message) => {
    const data = JSON.parse(message.data);
    waiting.get(data.id)?.(data);
    waiting.delete(data.id);
  };
  const call = (method) =>
    new Promise((resolve) => {
      waiting.set(++id, resolve);
      ws.send(JSON.stringify({ id, method, params: {} }));
    });
  const pumped = async (method) => {
    const answer = call(method);
    let done = false;
    void answer.then(() => (done = true));
    for (let i = 0; !done && i < 300; i++) await (await fetch(pumpUrl)).arrayBuffer();
    if (!done) throw new Error(`inspector did not answer ${method}`);
    return answer;
  };
  try {
    await pumped("HeapProfiler.collectGarbage");
    const usage = await pumped("Runtime.getHeapUsage");
    return usage.result.usedSize / 1024 / 1024;
  } finally {
    ws.close();
  }
}
