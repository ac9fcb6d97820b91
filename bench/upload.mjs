#!/usr/bin/env node
// Upload benchmark (issue 6 "bench/upload"): real PDFs of 5, 25 and 50 MB streamed through the
// real route POST /api/upload-pdfs of the Worker under `wrangler dev` into local R2, while the
// Worker's memory is sampled. It shows that the route does not hold a file in memory: the peak
// resident memory of the workerd process during an upload stays flat as the file grows 10-fold.
//
// - The PDFs are valid (one page of text plus a large padding stream object with a correct xref
//   table), generated on the fly while they are sent, so the client holds none of them either.
// - Memory: the RSS of every workerd process of the dev server (found through /proc by process
//   group), sampled every 10 ms from just before the request until its response; printed as the
//   RSS right before the upload, the peak during it and the difference. Between uploads the queue
//   job extracts the PDF (PDF.js reads it whole in the consumer, outside the upload route), and
//   the benchmark waits for it to finish so every upload starts from a settled baseline.
// - Throughput: file bytes divided by the time from the request start to the response.
//
// Usage: npm run bench:upload  (env SIZES_MB, default "5,25,50"; SKIP_BUILD=1 to reuse the build).
// Linux only (reads /proc). Uses its own ports (8873, replay 8874) and .wrangler/bench-upload-state.
import { readdirSync, readFileSync } from "node:fs";
import { loginPro, startDevServer, waitForServer } from "./lib/dev-server.mjs";

const SIZES_MB = (process.env.SIZES_MB ?? "5,25,50")
  .split(",")
  .map(Number)
  .filter((n) => n > 0);
const ROUNDS = Math.max(1, Number(process.env.ROUNDS ?? 3));
const PORT = 8873;
const REPLAY_PORT = 8874;
const BASE = `http://127.0.0.1:${PORT}`;
const MiB = 1024 * 1024;
const enc = new TextEncoder();

/** A one-page PDF of exactly `size` bytes: text page + padding stream, as a stream of chunks. */
function pdfStream(size) {
  const lines = Array.from(
    { length: 40 },
    (_, i) =>
      `BT /F1 10 Tf 50 ${760 - i * 18} Td (Line ${i + 1}: MetaMind upload benchmark, a streamed PDF of ${size} bytes for the R2 upload route.) Tj ET`,
  ).join("\n");
  const head = [];
  const offsets = [];
  let length = 0;
  const push = (s) => {
    const b = enc.encode(s);
    head.push(b);
    length += b.length;
  };
  const obj = (n, body) => {
    offsets[n] = length;
    push(`${n} 0 obj\n${body}\nendobj\n`);
  };
  push("%PDF-1.4\n%\xE2\xE3\xCF\xD3\n");
  obj(1, "<< /Type /Catalog /Pages 2 0 R >>");
  obj(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>");
  obj(
    3,
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
  );
  obj(4, `<< /Length ${enc.encode(lines).length} >>\nstream\n${lines}\nendstream`);
  obj(5, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>");
  offsets[6] = length;
  const open = (pad) => enc.encode(`6 0 obj\n<< /Length ${String(pad).padStart(10, "0")} >>\nstream\n`);
  const padClose = enc.encode("\nendstream\nendobj\n");
  const tailFor = (xrefAt) => {
    const rows = ["0000000000 65535 f "];
    for (let n = 1; n <= 6; n++) rows.push(`${String(offsets[n]).padStart(10, "0")} 00000 n `);
    return enc.encode(
      `xref\n0 7\n${rows.join("\n")}\ntrailer\n<< /Size 7 /Root 1 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`,
    );
  };
  // The tail's length depends on the digits of the xref offset, which depends on the padding:
  // try each digit count until they agree, so the file is exactly `size` bytes.
  let pad = -1;
  let tail = null;
  for (let digits = String(size).length; digits > 0 && pad < 0; digits--) {
    const guessTail = tailFor("9".repeat(digits));
    const p = size - (length + open(0).length + padClose.length + guessTail.length);
    const xrefAt = length + open(0).length + p + padClose.length;
    if (p >= 0 && String(xrefAt).length === digits) {
      pad = p;
      tail = tailFor(xrefAt);
    }
  }
  if (pad < 0) throw new Error(`size ${size} too small`);
  const openBytes = open(pad);
  const block = new Uint8Array(MiB).fill(0x41);
  let left = pad;
  let stage = 0;
  return new ReadableStream({
    pull(controller) {
      if (stage === 0) {
        for (const b of head) controller.enqueue(b);
        controller.enqueue(openBytes);
        stage = 1;
      } else if (left > 0) {
        const n = Math.min(left, block.length);
        left -= n;
        controller.enqueue(block.subarray(0, n));
      } else if (stage === 1) {
        controller.enqueue(padClose);
        controller.enqueue(tail);
        stage = 2;
      } else {
        controller.close();
      }
    },
  });
}

/** A multipart body with one file part 'pdfs' streaming the PDF. */
function multipart(size, fileName, boundary) {
  const open = enc.encode(
    `--${boundary}\r\nContent-Disposition: form-data; name="pdfs"; filename="${fileName}"\r\nContent-Type: application/pdf\r\n\r\n`,
  );
  const close = enc.encode(`\r\n--${boundary}--\r\n`);
  const reader = pdfStream(size).getReader();
  let stage = 0;
  return {
    length: open.length + size + close.length,
    body: new ReadableStream({
      async pull(controller) {
        if (stage === 0) {
          stage = 1;
          controller.enqueue(open);
          return;
        }
        if (stage === 1) {
          const { done, value } = await reader.read();
          if (!done) return controller.enqueue(value);
          stage = 2;
          controller.enqueue(close);
          return;
        }
        controller.close();
      },
    }),
  };
}

/** PIDs of the workerd processes in the dev server's process group. */
function workerdPids(pgid) {
  const pids = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      if (Number(fields[2]) === pgid && comm.startsWith("workerd")) pids.push(Number(name));
    } catch {
      // the process went away
    }
  }
  return pids;
}

function rssBytes(pids) {
  let total = 0;
  for (const pid of pids) {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
      if (m) total += Number(m[1]) * 1024;
    } catch {
      // gone
    }
  }
  return total;
}

/** Waits until no upload of the user is queued or extracting, then lets memory settle. */
async function waitForJobs(cookie) {
  for (let i = 0; i < 240; i++) {
    const res = await fetch(`${BASE}/api/uploaded-studies`, { headers: { Cookie: cookie } });
    const studies = await res.json();
    if (!studies.some((s) => s.status === "queued" || s.status === "extracting")) return studies;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error("extraction jobs did not finish");
}

async function oneUpload(cookie, pgid, size) {
  const boundary = `----metamind-bench-${size}`;
  const { body, length } = multipart(size, `bench-${size / MiB}mb.pdf`, boundary);
  const pids = workerdPids(pgid);
  const before = rssBytes(pids);
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, rssBytes(pids));
  }, 10);
  const started = performance.now();
  const res = await fetch(`${BASE}/api/upload-pdfs`, {
    method: "POST",
    headers: {
      Origin: BASE,
      Cookie: cookie,
      "Content-Type": `multipart/form-data; boundary=${boundary}`,
      "Content-Length": String(length),
    },
    body,
    duplex: "half",
  });
  const answer = await res.json();
  const seconds = (performance.now() - started) / 1000;
  clearInterval(timer);
  peak = Math.max(peak, rssBytes(pids));
  if (res.status !== 200 || !answer.results?.[0]?.success)
    throw new Error(`upload of ${size} bytes answered ${res.status}: ${JSON.stringify(answer)}`);
  return { size, before, peak, seconds, stored: answer.results[0].fileSize, processes: pids.length };
}

const { child: server, stop } = startDevServer({ port: PORT, replayPort: REPLAY_PORT, stateDir: "bench-upload-state" });
try {
  await waitForServer(BASE);
  const cookie = await loginPro(BASE);
  // Warm the route and the queue consumer with a small upload.
  await oneUpload(cookie, server.pid, 1 * MiB);
  await waitForJobs(cookie);
  // Rounds of 5, 25, 50 MB (interleaved, so a drifting baseline affects every size alike).
  const rows = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const mb of SIZES_MB) {
      await new Promise((r) => setTimeout(r, 1000));
      const row = await oneUpload(cookie, server.pid, mb * MiB);
      const studies = await waitForJobs(cookie);
      row.job = `${studies[0].status}${studies[0].failureReason ? ` (${studies[0].failureReason})` : ""}`;
      rows.push(row);
    }
  }
  const mbs = (b) => (b / MiB).toFixed(1).padStart(8);
  const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
  console.log(
    `\nUpload benchmark: POST /api/upload-pdfs on wrangler dev → local R2 (workerd processes sampled: ${rows[0]?.processes ?? 0}; ${ROUNDS} rounds)`,
  );
  console.log(
    "  file MB | stored MB | RSS before MB | RSS peak MB | peak − before MB | seconds | MB/s   | extraction job",
  );
  for (const r of rows) {
    console.log(
      `  ${mbs(r.size)} | ${mbs(r.stored)}  | ${mbs(r.before)}      | ${mbs(r.peak)}    | ${mbs(r.peak - r.before)}         | ${r.seconds.toFixed(2).padStart(7)} | ${(r.size / MiB / r.seconds).toFixed(1).padStart(6)} | ${r.job}`,
    );
  }
  console.log("\n  per size (median of rounds): peak − before MB | MB/s");
  for (const mb of SIZES_MB) {
    const mine = rows.filter((r) => r.size === mb * MiB);
    console.log(
      `  ${mbs(mb * MiB)} | ${mbs(med(mine.map((r) => r.peak - r.before)))} (max ${mbs(Math.max(...mine.map((r) => r.peak - r.before)))}) | ${med(mine.map((r) => r.size / MiB / r.seconds)).toFixed(1)}`,
    );
  }
} finally {
  stop();
}
