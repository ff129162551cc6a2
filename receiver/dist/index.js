// receiver/verify.ts
import { createHmac, timingSafeEqual } from "node:crypto";
var isArrayBuffer = (x) => x instanceof ArrayBuffer || Object.prototype.toString.call(x) === "[object ArrayBuffer]";
function rawBytes(rawBody, fn) {
  const bytes = typeof rawBody === "string" ? rawBody : isArrayBuffer(rawBody) ? new Uint8Array(rawBody) : ArrayBuffer.isView(rawBody) ? new Uint8Array(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength) : null;
  if (bytes === null)
    throw new TypeError(`${fn}: pass the raw body (string, bytes or ArrayBuffer) as received, not a parsed object`);
  return bytes;
}
function verifySignature(rawBody, header, secret) {
  if (!(typeof secret === "string" ? secret.length > 0 : ArrayBuffer.isView(secret) && secret.byteLength > 0)) {
    throw new TypeError("verifySignature: the secret is empty or not a string; set it to the secret shown when the webhook was created");
  }
  const bytes = rawBytes(rawBody, "verifySignature");
  const value = typeof header === "string" ? header : Array.isArray(header) && header.length === 1 ? header[0] : null;
  if (typeof value !== "string" || !value.startsWith("sha256="))
    return false;
  const hex = value.slice("sha256=".length);
  if (!/^[0-9a-f]{64}$/.test(hex))
    return false;
  const expected = createHmac("sha256", secret).update(bytes).digest();
  return timingSafeEqual(Buffer.from(hex, "hex"), expected);
}
// receiver/standard-webhooks.ts
import { createHmac as createHmac2, timingSafeEqual as timingSafeEqual2 } from "node:crypto";
var DEFAULT_TOLERANCE_SECONDS = 300;
function header(headers, name) {
  if (typeof headers.get === "function")
    return headers.get(name);
  const record = headers;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return typeof value === "string" ? value : Array.isArray(value) && value.length === 1 ? value[0] : null;
}
function keyOf(secret) {
  if (typeof secret !== "string")
    throw new TypeError("verifyStandardWebhook: the secret must be the `whsec_...` text shown when the webhook was created");
  const b64 = secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret;
  const key = /^[A-Za-z0-9+/]+={0,2}$/.test(b64) ? Buffer.from(b64, "base64") : Buffer.alloc(0);
  if (key.length === 0)
    throw new TypeError("verifyStandardWebhook: the secret is empty or not `whsec_` + base64; set it to the secret shown when the webhook was created");
  return key;
}
function verifyStandardWebhook(rawBody, headers, secret, opts = {}) {
  const key = keyOf(secret);
  const bytes = rawBytes(rawBody, "verifyStandardWebhook");
  const tolerance = opts.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (typeof tolerance !== "number" || !(tolerance >= 0) || !Number.isFinite(tolerance)) {
    throw new TypeError(`verifyStandardWebhook: toleranceSeconds must be a number of seconds, 0 or more; got ${String(tolerance)}`);
  }
  if (headers === null || typeof headers !== "object")
    throw new TypeError("verifyStandardWebhook: pass the request headers (Headers or req.headers)");
  const id = header(headers, "webhook-id");
  const timestamp = header(headers, "webhook-timestamp");
  const signatures = header(headers, "webhook-signature");
  if (!id || !signatures || !timestamp || !/^\d{1,15}$/.test(timestamp))
    return false;
  const nowSeconds = Math.floor((opts.now ?? Date.now)() / 1000);
  if (Math.abs(nowSeconds - Number(timestamp)) > tolerance)
    return false;
  const expected = createHmac2("sha256", key).update(`${id}.${timestamp}.`).update(bytes).digest();
  return signatures.split(" ").some((candidate) => {
    if (!candidate.startsWith("v1,"))
      return false;
    const b64 = candidate.slice(3);
    if (!/^[A-Za-z0-9+/]{43}=$/.test(b64))
      return false;
    return timingSafeEqual2(Buffer.from(b64, "base64"), expected);
  });
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
  DEFAULT_TOLERANCE_SECONDS,
  createDedupe,
  verifySignature,
  verifyStandardWebhook
};
