/**
 * What both document stores (db/store.ts on SQLite, db/pg/store/ on PostgreSQL) share at run
 * time: kept apart so db/store.ts can pick its PostgreSQL twins without an import circle.
 */

/** Raised when the change vector a writer expected is not the stored one. Nothing was written. */
export class ConcurrencyError extends Error {
  constructor(readonly id: string) {
    super(`Document ${id} was changed by someone else`)
  }
}

/** The collection given to activity documents: present in the keyspace, but not content. */
export const ACTIVITY_COLLECTION = '@activity'

/** Well-formed change vectors, the only thing a version reference may decode to. */
export const CHANGE_VECTOR = /^A:\d{1,18}-[A-Za-z0-9]{1,64}$/

/**
 * The `summary` column of a Published Version (db/schema.ts): what its version row shows. Null
 * when the stamp is not two strings, so the list reads such a row's body and shows it as it is.
 */
export function summaryOf(body: Record<string, unknown>): string | null {
  const { __publishedAt: at, __publishedBy: by } = body
  if (typeof at !== 'string' || typeof by !== 'string') return null
  return JSON.stringify([at, by, Object.keys((body.locales ?? {}) as object)])
}
