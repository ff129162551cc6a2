/**
 * The `json-only` plugin: request bodies are UTF-8 JSON and nothing else (README "API
 * overview"), read strictly and refused when nested absurdly deep.
 */
import { Elysia } from 'elysia'
import { checkDepth, isJsonMediaType, isUtf8Charset, readJsonBody } from '../../core/body'
import { json } from './error-mapping'

export function jsonOnly() {
  return new Elysia({ name: 'json-only' })
    // A form or multipart body is refused, not parsed into fields and stored;
    // `APPLICATION/JSON; charset=utf-8` is JSON too. A body sent with any method counts.
    .onRequest(({ request }) => {
      if (!request.body || request.headers.get('content-length') === '0') return
      const type = request.headers.get('content-type')
      if (!isJsonMediaType(type) || !isUtf8Charset(type)) {
        return json(415, { error: 'unsupported_media_type', message: 'Send the body as UTF-8 JSON with `Content-Type: application/json`.' })
      }
      // A compressed body is not decoded here: refused (RFC 9110 8.4.1) rather than read as
      // malformed JSON, or, when it is not really compressed, accepted under a false label.
      const coding = request.headers.get('content-encoding')?.trim().toLowerCase()
      if (coding && coding !== 'identity') {
        return json(415, { error: 'unsupported_media_type', message: 'Content-Encoding is not supported: send the body uncompressed.' })
      }
    })
    // Every JSON body, under any spelling of its media type (`APPLICATION/JSON`,
    // `application/vnd.acme+json`), is read here, as strict UTF-8 (core/body.ts `readBodyText`;
    // Elysia's own parser would replace bad bytes). The restore routes read their raw text
    // themselves (api/restore/index.ts), with the same strict decoding.
    .onParse({ as: 'global' }, ({ request, contentType, route }) => {
      if (!request.body || !isJsonMediaType(contentType) || route.startsWith('/content/apply-')) return
      return readJsonBody(request)
    })
    // Right after parsing, before the schemas: a body nested absurdly deep is refused before any
    // code walks it. Elysia's validation error builder recurses into it (a stack overflow, 500,
    // after seconds of blocking every request), as would JSON.stringify and JSON Patch.
    .onTransform({ as: 'global' }, ({ body }) => checkDepth(body))
}
