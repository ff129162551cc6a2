/**
 * The document store on PostgreSQL: async twins of db/store.ts, under the same names, with the
 * same rows, errors and revision body encoding (docs/postgresql.md "The document store on
 * PostgreSQL"). Every function takes a Bun.sql client: the pool, or the client of an open
 * transaction (`sql.begin(tx => ...)`); the writes that must be atomic with others (a saved
 * document, its change vector, its revision) belong in one such transaction.
 */
export { ACTIVITY_COLLECTION, CHANGE_VECTOR, ConcurrencyError, summaryOf } from '../store-common'
export type { DocKind, RevisionEntry, SaveDoc } from '../store'
export { nextChangeVector } from './store/change-vector'
export { deleteDoc, loadDoc, saveDoc } from './store/documents'
export {
  countRevisions, ENTRIES_PAGE, listRevisions, REVISIONS_PAGE, putRevision, revisionByChangeVector, revisionEntriesFrom, revisionsFrom,
} from './store/revisions'
export { encodeRevision } from './store/revision-bodies'
