/**
 * mulberry32 (Tommy Ettinger's 32-bit generator): a seeded uniform generator on [0, 1), the same draws on every run
 * for the same seed. Used where results must be reproducible: metaregression's permutation test, the differential
 * tests against metafor, the API fuzz suite and the benches' folds and simulations. Not for anything secret.
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
