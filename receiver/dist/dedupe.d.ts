/**
 * spec.md "Delivery rules" 1: delivery is at least once, so receivers deduplicate on
 * X-Service-Delivery. A bounded map (oldest evicted first) with a time-to-live is enough:
 * retries of one event arrive within seconds of each other.
 */
export interface Dedupe {
    /** Records `deliveryId`; true the first time it is seen within the TTL, false for a repeat. */
    firstTime(deliveryId: string): boolean;
    /** Forgets an id, e.g. when handling it failed and the retry must be processed. */
    forget(deliveryId: string): void;
    readonly size: number;
}
export declare function createDedupe(opts?: {
    max?: number;
    ttlMs?: number;
    now?: () => number;
}): Dedupe;
