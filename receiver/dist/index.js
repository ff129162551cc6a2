// receiver/verify.ts
import { createHmac, timingSafeEqual } from "node:crypto";
var isArrayBuffer = (x) => x instanceof ArrayBuffer || Object.prototype.toString.call(x) === "[object ArrayBuffer]";
function verifySignature(rawBody, header, secret) {
  if (!(typeof secret === "string" ? secret.length > 0 : ArrayBuffer.isView(secret) && secret.byteLength > 0)) {
    throw new TypeError("verifySignature: the secret is empty or not a string; set it to the secret shown when the webhook was created");
  }
  const bytes = typeof rawBody === "string" ? rawBody : isArrayBuffer(rawBody) ? new Uint8Array(rawBody) : ArrayBuffer.isView(rawBody) ? new Uint8Array(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength) : null;
  if (bytes === null)
    throw new TypeError("verifySignature: pass the raw body (string, bytes or ArrayBuffer) as received, not a parsed object");
  const value = typeof header === "string" ? header : Array.isArray(header) && header.length === 1 ? header[0] : null;
  if (typeof value !== "string" || !value.startsWith("sha256="))
    return false;
  const hex = value.slice("sha256=".length);
  if (!/^[0-9a-f]{64}$/.test(hex))
    return false;
  const expected = createHmac("sha256", secret).update(bytes).digest();
  return timingSafeEqual(Buffer.from(hex, "hex"), expected);
}
// receiver/dedupe.ts
function positive(name, value, whole) {
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0 || whole && !Number.isInteger(value)) {
    throw new RangeError(`createDedupe: ${name} must be a positive ${whole ? "whole number" : "number"}; got ${String(value)}`);
  }
  return value;
}
function createDedupe(opts = {}) {
  const max = positive("max", opts.max ?? 1e4, true);
  const ttlMs = positive("ttlMs", opts.ttlMs ?? 24 * 60 * 60 * 1000, false);
  const now = opts.now ?? Date.now;
  const seen = new Map;
  const running = new Map;
  const sweep = (t) => {
    while (seen.size > 0) {
      const [id, expiry] = seen.entries().next().value;
      if (expiry > t)
        break;
      seen.delete(id);
    }
  };
  const dedupe = {
    firstTime(id) {
      const t = now();
      sweep(t);
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
    async run(id, handler) {
      const first = running.get(id);
      if (first) {
        await first;
        return "duplicate";
      }
      if (!dedupe.firstTime(id))
        return "duplicate";
      const handling = (async () => {
        await handler();
      })();
      running.set(id, handling);
      try {
        await handling;
        return "handled";
      } catch (e) {
        dedupe.forget(id);
        throw e;
      } finally {
        running.delete(id);
      }
    },
    get size() {
      sweep(now());
      return seen.size;
    }
  };
  return dedupe;
}
export {
  createDedupe,
  verifySignature
};
