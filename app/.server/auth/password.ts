/**
 * Password hashing with PBKDF2-HMAC-SHA256 through WebCrypto, the strongest KDF available in the
 * Workers runtime. 100,000 iterations is the Workers maximum (higher counts throw NotSupportedError).
 * Stored format: `pbkdf2-sha256$<iterations>$<salt b64>$<hash b64>`.
 */

export const PBKDF2_ITERATIONS = 100_000;
const SALT_BYTES = 16;
const HASH_BITS = 256;

function toBase64(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  const s = atob(text);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

async function derive(password: string, salt: Uint8Array<ArrayBuffer>, iterations: number): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(password), "PBKDF2", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations }, key, HASH_BITS);
  return new Uint8Array(bits);
}

/** Hashes a password with a fresh random 16-byte salt. */
export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(SALT_BYTES));
  const hash = await derive(password, salt, PBKDF2_ITERATIONS);
  return `pbkdf2-sha256$${PBKDF2_ITERATIONS}$${toBase64(salt)}$${toBase64(hash)}`;
}

/** Compares two byte arrays in time independent of where they differ. */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length;
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) diff |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return diff === 0;
}

/** Checks a password against a stored hash; false for malformed hashes, never throws. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, iterText, saltText, hashText] = stored.split("$");
  const iterations = Number(iterText);
  if (scheme !== "pbkdf2-sha256" || !Number.isInteger(iterations) || !saltText || !hashText) {
    return false;
  }
  if (iterations < 1 || iterations > PBKDF2_ITERATIONS) return false;
  let expected: Uint8Array;
  let salt: Uint8Array<ArrayBuffer>;
  try {
    expected = fromBase64(hashText);
    salt = fromBase64(saltText);
  } catch {
    return false;
  }
  const actual = await derive(password, salt, iterations);
  return constantTimeEqual(actual, expected);
}
