/**
 * The v2 event payload as a plain type, for receivers on any runtime (the portable build's
 * types carry it; no TypeBox needed). It is the type of the service's `EventPayload` schema
 * (core/webhooks/model.ts), which a type-level check in test/receiver/receiver-types.test.ts
 * keeps it equal to. Fields are only ever added within a version.
 */
export interface EventPayload {
    v: 2;
    /** Equals the `X-Service-Event` header. */
    eventType: 'content.published' | 'content.unpublished' | 'site.changed';
    /** Equals the `X-Service-Delivery` header; identical on every retry. */
    eventId: string;
    /** UTC timestamp (ISO 8601) of the event. */
    occurredAt: string;
    teamId: string;
    workspaceId: string;
    /** Acting user; `null` for a scheduled publish. */
    userId: string | null;
    /** The document; `null` on `site.changed` (a test send names `webhook-test`). */
    documentId: string | null;
    /** Collection of the document's content type; `null` on `site.changed`. */
    collection: string | null;
    /** Languages a publish covered; empty on other events. */
    locales: string[];
    status: 'published' | 'archived' | 'deleted' | 'template' | 'localization' | 'locales' | 'index';
    /** The default language's entry of `urls`; on `content.unpublished`, the first of `previousUrls`. */
    url: string;
    /** Language code to the path where the document is served after the change. */
    urls: {
        [locale: string]: string;
    };
    /** Paths that served the document before the change and no longer do. */
    previousUrls: string[];
    /** `site`: `urls` and `previousUrls` may be incomplete, refresh everything. */
    scope: 'document' | 'site';
}
