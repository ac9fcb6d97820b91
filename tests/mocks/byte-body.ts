/**
 * A byte stream (what a fetch response's body is) that would deliver `totalBytes` in chunks of
 * `chunkBytes`, each made only when pulled, so a test never allocates the whole; byte `i` of the
 * body is `i % 251`. `state.produced` counts the bytes handed out, `state.cancelled` tells whether
 * the reader gave up.
 */
export function byteBody(totalBytes: number, chunkBytes: number) {
  const state = { produced: 0, cancelled: false };
  const stream = new ReadableStream({
    type: "bytes",
    pull(controller) {
      if (state.produced >= totalBytes) {
        controller.close();
        // A reader waiting with its own buffer is answered "no more bytes" (Streams spec).
        controller.byobRequest?.respond(0);
        return;
      }
      const size = Math.min(chunkBytes, totalBytes - state.produced);
      const chunk = new Uint8Array(size);
      for (let i = 0; i < size; i++) chunk[i] = (state.produced + i) % 251;
      state.produced += size;
      controller.enqueue(chunk);
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { stream, state };
}
