/**
 * The `write-lock` plugin: last before a write's handler (after authorisation and validation),
 * wait for another process's write lock here, on timers, so that a large seed holding it does
 * not stop every other request of the api (db/client.ts `writeLockFree`). Every method but GET
 * and HEAD writes. The MCP route is a POST for reads too: its tools that write wait themselves
 * (api/assistant/tools.ts).
 */
import { Elysia } from 'elysia'
import { writeLockFree, type Db } from '../../db/client'

export function writeLock(db: Db) {
  return new Elysia({ name: 'write-lock' }).onBeforeHandle({ as: 'global' }, async ({ request, route }) => {
    if (request.method !== 'GET' && request.method !== 'HEAD' && !route.startsWith('/mcp/')) await writeLockFree(db)
  })
}
