import { describe, expect, it } from "vitest";
import { constantTimeEqual, hashPassword, PBKDF2_ITERATIONS, verifyPassword } from "./password";

describe("password hashing", () => {
  it("verifies the password it hashed", async () => {
    const stored = await hashPassword("correct horse battery");
    expect(await verifyPassword("correct horse battery", stored)).toBe(true);
  });

  it("rejects a wrong password", async () => {
    const stored = await hashPassword("correct horse battery");
    expect(await verifyPassword("correct horse batterY", stored)).toBe(false);
    expect(await verifyPassword("", stored)).toBe(false);
  });

  it("stores the scheme and 100000 iterations", async () => {
    const stored = await hashPassword("secret12");
    expect(PBKDF2_ITERATIONS).toBe(100_000);
    const [scheme, iterations, salt, hash] = stored.split("$");
    expect(scheme).toBe("pbkdf2-sha256");
    expect(iterations).toBe("100000");
    expect(atob(salt!)).toHaveLength(16);
    expect(atob(hash!)).toHaveLength(32);
  });

  it("uses a fresh salt for every hash", async () => {
    const a = await hashPassword("same password");
    const b = await hashPassword("same password");
    expect(a).not.toBe(b);
    expect(a.split("$")[2]).not.toBe(b.split("$")[2]);
    expect(await verifyPassword("same password", a)).toBe(true);
    expect(await verifyPassword("same password", b)).toBe(true);
  });

  it("returns false for malformed stored hashes instead of throwing", async () => {
    const valid = await hashPassword("secret12");
    const [, , salt, hash] = valid.split("$");
    const malformed = [
      "",
      "not-a-hash",
      `bcrypt$100000$${salt}$${hash}`,
      `pbkdf2-sha256$abc$${salt}$${hash}`,
      `pbkdf2-sha256$0$${salt}$${hash}`,
      `pbkdf2-sha256$1000000$${salt}$${hash}`,
      `pbkdf2-sha256$100000$$${hash}`,
      `pbkdf2-sha256$100000$${salt}$`,
    ];
    for (const stored of malformed) {
      expect(await verifyPassword("secret12", stored), stored).toBe(false);
    }
  });
});

describe("constantTimeEqual", () => {
  it("is true only for equal byte arrays", () => {
    expect(constantTimeEqual(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 3]))).toBe(true);
    expect(constantTimeEqual(new Uint8Array([]), new Uint8Array([]))).toBe(true);
    expect(constantTimeEqual(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 4]))).toBe(false);
    expect(constantTimeEqual(new Uint8Array([9, 2, 3]), new Uint8Array([1, 2, 3]))).toBe(false);
  });

  it("is false for different lengths, including a prefix", () => {
    expect(constantTimeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2, 3]))).toBe(false);
    expect(constantTimeEqual(new Uint8Array([1, 2, 0]), new Uint8Array([1, 2]))).toBe(false);
  });
});
