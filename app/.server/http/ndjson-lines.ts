/**
 * NDJSON lines of a streamed search, written as they come except one: when several databases are
 * asked, the line of the last of `providers` to answer (the `providers`-th `{type:'provider'}`
 * event) is held and goes out in one chunk with the line after it — the merged page or the error.
 * Every chunk costs a hop through each proxy between the Worker and the browser, and the last
 * database's line and the merged page are made in the same moment, so they leave together; earlier
 * databases' lines are not delayed at all. A search of one database sends its line at once, as
 * before (its results show while the page is put together).
 *
 * @param providers how many databases the search asks (each sends exactly one provider event).
 * @param write writes one chunk (one or more whole lines, each ending in "\n"); it must not throw.
 * @returns `send(event)` writes (or holds) `JSON.stringify(event)` as a line; `flush()` writes a
 *   line still held (a stream that ends without a final line).
 */
export function searchLines(
  providers: number,
  write: (chunk: string) => void,
): { send: <E extends { type: string }>(event: E) => void; flush: () => void } {
  let held = "";
  let providerLines = 0;
  const flush = () => {
    if (held) write(held);
    held = "";
  };
  const send = <E extends { type: string }>(event: E) => {
    const line = `${JSON.stringify(event)}\n`;
    if (event.type === "provider" && ++providerLines === providers && providers > 1) {
      held = line;
      return;
    }
    write(held + line);
    held = "";
  };
  return { send, flush };
}
