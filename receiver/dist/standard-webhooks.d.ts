import { type RawBody } from './verify.js';
/** Request headers as a receiver has them: fetch's `Headers` (Bun, Deno, Next.js) or node:http's `req.headers`. */
export type HeaderSource = {
    get(name: string): string | null;
} | Readonly<Record<string, string | readonly string[] | undefined>>;
export interface StandardWebhookOptions {
    /** How far the timestamp may lie from now, either way, in seconds; default 300 (5 minutes), as the standard's libraries. */
    toleranceSeconds?: number;
    /** The clock, in ms since the epoch (for tests); default `Date.now`. */
    now?: () => number;
}
/** The standard's default tolerance: 5 minutes. */
export declare const DEFAULT_TOLERANCE_SECONDS = 300;
/**
 * True when the Standard Webhooks headers of a request are a valid signature of `rawBody` (the
 * bytes as received, before any JSON parsing) under `secret`, made within the tolerance of now.
 * A missing or malformed header, no matching `v1` signature among the space-separated ones, or a
 * timestamp further than `toleranceSeconds` from now is `false` (answer 401). A misuse throws a
 * `TypeError`: a secret that is empty or not `whsec_` + base64, a parsed body, a bad tolerance.
 * Deduplicate on `webhook-id` (the eventId) as on `X-Service-Delivery`: a retry has a new
 * timestamp and signature but the same id.
 */
export declare function verifyStandardWebhook(rawBody: RawBody, headers: HeaderSource, secret: string, opts?: StandardWebhookOptions): boolean;
