// receiver/verify.ts
import { createHmac, timingSafeEqual } from "node:crypto";
function verifySignature(rawBody, header, secret) {
  if (typeof header !== "string" || !header.startsWith("sha256="))
    return false;
  const hex = header.slice("sha256=".length);
  if (!/^[0-9a-f]{64}$/.test(hex))
    return false;
  const expected = createHmac("sha256", secret).update(rawBody).digest();
  return timingSafeEqual(Buffer.from(hex, "hex"), expected);
}
// receiver/dedupe.ts
function createDedupe(opts = {}) {
  const max = opts.max ?? 1e4;
  const ttlMs = opts.ttlMs ?? 24 * 60 * 60 * 1000;
  const now = opts.now ?? Date.now;
  const seen = new Map;
  return {
    firstTime(id) {
      const t = now();
      const expiry = seen.get(id);
      if (expiry !== undefined && expiry > t)
        return false;
      seen.delete(id);
      seen.set(id, t + ttlMs);
      while (seen.size > max)
        seen.delete(seen.keys().next().value);
      return true;
    },
    forget(id) {
      seen.delete(id);
    },
    get size() {
      return seen.size;
    }
  };
}
export {
  createDedupe,
  verifySignature
};
