import { describe, expect, it } from "vitest";
import { multipartBoundary, MultipartError, readMultipart } from "./multipart";

const enc = new TextEncoder();

/** A stream that delivers `bytes` in chunks of `size` bytes. */
function chunked(bytes: Uint8Array, size: number): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(offset, offset + size));
      offset += size;
    },
  });
}

/** A real multipart body as the platform's FormData serialiser writes it. */
async function formBody(form: FormData): Promise<{ bytes: Uint8Array; boundary: string }> {
  const request = new Request("https://x.test/", { method: "POST", body: form });
  const boundary = multipartBoundary(request.headers.get("Content-Type"))!;
  return { bytes: new Uint8Array(await request.arrayBuffer()), boundary };
}

async function collect(stream: ReadableStream<Uint8Array>, boundary: string) {
  const parts: { name: string | null; fileName: string | null; contentType: string; body: string; size: number }[] = [];
  for await (const part of readMultipart(stream, boundary)) {
    const chunks: Uint8Array[] = [];
    for await (const chunk of part.body) chunks.push(chunk);
    const size = chunks.reduce((n, c) => n + c.length, 0);
    const all = new Uint8Array(size);
    let o = 0;
    for (const c of chunks) {
      all.set(c, o);
      o += c.length;
    }
    parts.push({
      name: part.name,
      fileName: part.fileName,
      contentType: part.contentType,
      body: new TextDecoder().decode(all),
      size,
    });
  }
  return parts;
}

describe("multipartBoundary", () => {
  it("reads plain and quoted boundaries of multipart/form-data only", () => {
    expect(multipartBoundary("multipart/form-data; boundary=----abc123")).toBe("----abc123");
    expect(multipartBoundary('multipart/form-data; charset=utf-8; boundary="a b"')).toBe("a b");
    expect(multipartBoundary("application/json")).toBeNull();
    expect(multipartBoundary("multipart/form-data")).toBeNull();
    expect(multipartBoundary(null)).toBeNull();
  });
});

describe("readMultipart", () => {
  it("gives every part, byte for byte, whatever the chunk size (1 byte to all at once)", async () => {
    // A body that contains the boundary's prefix and CRLFs, to catch delimiters split across chunks.
    const tricky = `%PDF-1.4\r\n--not-the-boundary\r\n\r\n${"x".repeat(3000)}\r\n-`;
    const form = new FormData();
    form.append("note", "hello");
    form.append("pdfs", new File([tricky], "a.pdf", { type: "application/pdf" }));
    form.append("pdfs", new File(["%PDF-1.7 second"], "résumé 2.pdf", { type: "application/pdf" }));
    form.append("pdfs", new File([""], "empty.pdf", { type: "application/pdf" }));
    const { bytes, boundary } = await formBody(form);
    for (const size of [1, 2, 3, 7, 64, 1000, bytes.length]) {
      const parts = await collect(chunked(bytes, size), boundary);
      expect(
        parts.map((p) => [p.name, p.fileName, p.contentType, p.size]),
        `chunk size ${size}`,
      ).toEqual([
        ["note", null, "", 5],
        ["pdfs", "a.pdf", "application/pdf", tricky.length],
        ["pdfs", "résumé 2.pdf", "application/pdf", 15],
        ["pdfs", "empty.pdf", "application/pdf", 0],
      ]);
      expect(parts[1]!.body).toBe(tricky);
      expect(parts[0]!.body).toBe("hello");
    }
  });

  it("skips the rest of a part the consumer left unread", async () => {
    const form = new FormData();
    form.append("pdfs", new File(["A".repeat(10_000)], "a.pdf", { type: "application/pdf" }));
    form.append("pdfs", new File(["second"], "b.pdf", { type: "application/pdf" }));
    const { bytes, boundary } = await formBody(form);
    const seen: string[] = [];
    for await (const part of readMultipart(chunked(bytes, 100), boundary)) {
      for await (const chunk of part.body) {
        seen.push(`${part.fileName}:${new TextDecoder().decode(chunk).slice(0, 6)}`);
        break;
      }
    }
    expect(seen).toEqual(["a.pdf:AAAAAA", "b.pdf:second"]);
  });

  it("refuses a body without the boundary, a truncated body and endless headers", async () => {
    const run = (text: string, boundary = "B") => collect(chunked(enc.encode(text), 5), boundary);
    await expect(run("no boundary here at all")).rejects.toThrow(MultipartError);
    await expect(
      run('--B\r\nContent-Disposition: form-data; name="pdfs"; filename="a.pdf"\r\n\r\n%PDF-1.4 cut off'),
    ).rejects.toThrow(/ends inside a part/);
    await expect(run(`--B\r\nX: ${"y".repeat(20_000)}`)).rejects.toThrow(/headers are too long/);
    await expect(run('--B\r\nContent-Disposition: form-data; name="a"\r\n\r\nv\r\n--B--\r\n')).resolves.toHaveLength(1);
  });
});
