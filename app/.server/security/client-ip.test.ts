import { describe, expect, it } from "vitest";
import { clientIp, LOCAL_SOCKET_ADDRESS } from "./client-ip";

const withHeader = (ip?: string) =>
  new Request("https://metamind.test/", { headers: ip ? { "CF-Connecting-IP": ip } : {} });

describe("clientIp", () => {
  it("deployed: reads CF-Connecting-IP, which Cloudflare's edge sets on every request", () => {
    expect(clientIp(withHeader("203.0.113.7"), { ENVIRONMENT: "production" })).toBe("203.0.113.7");
    expect(clientIp(withHeader(" 2001:db8::1 "), { ENVIRONMENT: "production" })).toBe("2001:db8::1");
    expect(clientIp(withHeader(), { ENVIRONMENT: "production" })).toBe("unknown");
  });

  it("wrangler dev: ignores a client-chosen CF-Connecting-IP and uses the loopback socket address", () => {
    expect(clientIp(withHeader("198.51.100.1"), { ENVIRONMENT: "development" })).toBe(LOCAL_SOCKET_ADDRESS);
    expect(clientIp(withHeader("198.51.100.2"), { ENVIRONMENT: "development" })).toBe(LOCAL_SOCKET_ADDRESS);
    expect(clientIp(withHeader(), { ENVIRONMENT: "development" })).toBe(LOCAL_SOCKET_ADDRESS);
  });
});
