/** The raw body as it came off the wire: text, bytes (`Buffer`, `Uint8Array`, a view) or an `ArrayBuffer` (`await req.arrayBuffer()`). */
export type RawBody = string | ArrayBuffer | ArrayBufferView;
/**
 * The raw body as text or bytes, for an HMAC; `fn` names the caller in the `TypeError` thrown
 * for anything else (a parsed object: `express.json()` ran where `express.raw()` should have).
 */
export declare function rawBytes(rawBody: RawBody, fn: string): string | Uint8Array;
/**
 * True when `header` (X-Service-Signature) is the signature of `rawBody` under `secret`.
 * A missing or malformed header is `false` (answer 401), and so is a header sent twice (node:http
 * joins it, `a, b`, in `req.headers`; `req.headersDistinct` gives an array of two). An array of
 * one value (`req.headersDistinct` gives every header as an array) is that value. A misuse throws a `TypeError` instead,
 * so it shows at once rather than as deliveries refused or, worse, accepted: an empty or
 * missing secret (an unset `WEBHOOK_SECRET` would make anyone's signature valid), or a body
 * that is not the raw bytes (e.g. the object `express.json()` parsed: use `express.raw()`).
 */
export declare function verifySignature(rawBody: RawBody, header: string | readonly string[] | null | undefined, secret: string | Uint8Array): boolean;
