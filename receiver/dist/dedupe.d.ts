/**
 * spec.md "Delivery rules" 1: delivery is at least once, so receivers deduplicate on
 * X-Service-Delivery. A bounded map (oldest evicted first) with a time-to-live is enough:
 * retries of one event arrive within seconds of each other. It lives in this process's memory:
 * several instances (or serverless functions) each keep their own, so a repeat that reaches
 * another instance is handled again; make the handling safe to repeat (a cache purge is).
 */
export interface Dedupe {
    /** Records `deliveryId`; true the first time it is seen within the TTL, false for a repeat. */
    firstTime(deliveryId: string): boolean;
    /** Forgets an id, e.g. when handling it failed and the retry must be processed. */
    forget(deliveryId: string): void;
    /**
     * Handles a delivery once: runs `handler` the first time `deliveryId` is seen and answers
     * `'handled'`; a repeat after that answers `'duplicate'` without running it. A repeat that
     * arrives while the first is still running (a handler slower than the sender's timeout) waits
     * for it and gets its outcome: `'duplicate'`, or the same error. A handler that throws leaves
     * the id forgotten, so the next retry runs it again. Answer 2xx for both results, 5xx on a throw.
     */
    run(deliveryId: string, handler: () => unknown): Promise<'handled' | 'duplicate'>;
    /** Ids seen within the TTL (expired ones are dropped as time goes on). */
    readonly size: number;
}
export interface DedupeOptions {
    /** Ids kept at most (oldest evicted first); a positive whole number, default 10,000. */
    max?: number;
    /** How long an id counts as seen, in ms; positive, default 24 hours. */
    ttlMs?: number;
    now?: () => number;
}
export declare function createDedupe(opts?: DedupeOptions): Dedupe;
