/**
 * Webhook management (contract.md "Webhooks"): plain functions over the database, called by
 * the routes. The secret is shown in full only by create and by an update that sets a new
 * one; afterwards only its last four characters (spec.md "Webhook configuration").
 */
import { randomBytes } from 'node:crypto'
import { writeLockFree, type Conn, type Db, type Tx } from '../../db/client'
import { deleteFinishedDeliveries, deleteWebhookRow, insertWebhook, updateWebhookRow, webhookOf, webhooksOfTeam } from '../../db/queries/webhooks'
import type { WebhookRow } from '../../db/schema'
import { checkTargetSyntax, targetFormProblem } from '../delivery/ssrf'
import { GITHUB_DISPATCH } from '../delivery/providers'
import { STANDARD_SECRET_PREFIX } from '../delivery/sign'
import { badRequest, notFound } from '../errors'
import { DEFAULT_EVENTS, signatureSchemeOf, type EventType, type SignatureScheme, type WebhookCreate, type WebhookPatch, type WebhookRecord } from './model'

/** contract.md: secrets are at least 32 random bytes. */
export const generateSecret = () => randomBytes(32).toString('base64url')

/** A Standard Webhooks secret: `whsec_` + base64 of 32 random bytes (the standard asks for 24 to 64). */
export const generateStandardSecret = () => STANDARD_SECRET_PREFIX + randomBytes(32).toString('base64')

/** The fewest key bytes a Standard Webhooks secret may carry (the standard's lower bound). */
export const MIN_STANDARD_KEY_BYTES = 24

/**
 * Is `secret` a Standard Webhooks key: `whsec_` + canonical base64 (padded, standard alphabet,
 * as the standard's libraries decode it) of at least 24 bytes? Other text would make us sign
 * with one key and the receiver's library verify with another, or refuse to load it.
 */
export function isStandardSecret(secret: string): boolean {
  if (!secret.startsWith(STANDARD_SECRET_PREFIX)) return false
  const b64 = secret.slice(STANDARD_SECRET_PREFIX.length)
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) return false
  const key = Buffer.from(b64, 'base64')
  return key.length >= MIN_STANDARD_KEY_BYTES && key.toString('base64') === b64
}

const STANDARD_SECRET_RULE = 'A standard-webhooks secret is `whsec_` followed by the base64 (standard alphabet, padded) of at least '
  + `${MIN_STANDARD_KEY_BYTES} random bytes; leave it empty to have one generated.`

/**
 * The shortest secret a user may enter. contract.md asks for 32 random bytes; a typed secret
 * is text, so 32 characters is the floor (a generated one is 43 base64url characters).
 */
export const MIN_SECRET_LENGTH = 32

/**
 * Why a user-entered secret is refused, or null. Whitespace is refused because it is almost
 * always a copy-paste accident (a trailing newline), and the receiver would sign with a
 * different key than the one we use. Empty means "generate one" and never gets here.
 */
export function secretProblem(secret: string): string | null {
  if (/\s/.test(secret)) return 'The secret must not contain whitespace.'
  // Stored as UTF-8: a lone surrogate would become U+FFFD, so we would sign with another key
  // than the one answered; a control character is no more a key anyone can type than whitespace.
  if (!secret.isWellFormed() || /[\u0000-\u001f\u007f]/.test(secret)) return 'The secret must be well-formed text without control characters.'
  if (secret.length < MIN_SECRET_LENGTH) {
    return `The secret must be at least ${MIN_SECRET_LENGTH} characters (leave it empty to have one generated).`
  }
  return null
}

function checkSecret(secret: string, scheme: SignatureScheme): void {
  const problem = secretProblem(secret) ?? (scheme === 'standard-webhooks' && !isStandardSecret(secret) ? STANDARD_SECRET_RULE : null)
  if (problem) throw badRequest('invalid_secret', problem)
}

/** The stored options with the scheme in them: named only when it is not the default. */
function withScheme(options: Record<string, unknown>, scheme: SignatureScheme): Record<string, unknown> {
  const { signatureScheme: _old, ...rest } = options
  return scheme === 'service' ? rest : { ...rest, signatureScheme: scheme }
}

/**
 * The last four characters of a credential, but only of one long enough that they give little
 * away: the last four of a 5-character secret would be most of it (spec.md: never shown again).
 * Secrets stored before the length rule, and provider tokens under 16 characters (a real GitHub
 * token has 40+), show nothing. Four characters, not UTF-16 units: an emoji is never cut in half
 * (a lone surrogate is no text a strict JSON decoder takes).
 */
const last4 = (s: string, minLength: number) => (s.length >= minLength ? [...s.slice(-8)].slice(-4).join('') : '')
const MIN_TOKEN_SHOWN = 16

/** A stored webhook as management endpoints show it: no secret, no token. */
export function toRecord(row: WebhookRow): WebhookRecord {
  const options = row.options as { token?: string; eventType?: string }
  return {
    id: row.id, label: row.label, provider: row.provider, target: row.target,
    events: row.events as EventType[], secretLast4: last4(row.secret, MIN_SECRET_LENGTH),
    options: {
      ...(options.eventType ? { eventType: options.eventType } : {}),
      ...(options.token ? { tokenLast4: last4(options.token, MIN_TOKEN_SHOWN) } : {}),
    },
    signatureScheme: signatureSchemeOf(row.options),
    createdAt: row.createdAt, updatedAt: row.updatedAt,
  }
}

/** `newTarget`: the target is new or changed (an older stored one is not held to `targetFormProblem`). */
function validate(w: Pick<WebhookRow, 'label' | 'provider' | 'target' | 'options'>, allowPrivate: boolean, newTarget: boolean) {
  // SQLite stores UTF-8: a lone surrogate would be read back as U+FFFD, not what was answered.
  if (!w.label.isWellFormed()) throw badRequest('invalid_body', '`label` must be well-formed text (no lone surrogates).')
  if (w.label.trim() === '') throw badRequest('invalid_body', '`label` must not be only spaces: it is how the team tells its webhooks apart.')
  const problem = checkTargetSyntax(w.target, allowPrivate) ?? (newTarget ? targetFormProblem(w.target) : null)
  if (problem) throw badRequest('invalid_target', problem)
  if (w.provider === 'github') {
    // As written and as a URL alike: `repos/../../dispatches` matches the pattern but is sent to /dispatches.
    if (!GITHUB_DISPATCH.test(w.target) || new URL(w.target).href !== w.target) {
      throw badRequest('invalid_target', 'A github webhook targets https://api.github.com/repos/{owner}/{repo}/dispatches.')
    }
    if (!(w.options as { token?: string }).token) throw badRequest('invalid_body', 'A github webhook needs `options.token`.')
  }
}

/**
 * The options are github's (a token is a credential, kept only for the provider that sends it;
 * an `eventType` no other provider sends would sit there unused): refused for another provider.
 */
function refuseUnusedOptions(provider: WebhookRow['provider'], options: { token?: string; eventType?: string | null } | undefined) {
  if (provider === 'github' || !options) return
  for (const key of ['token', 'eventType'] as const) {
    if (options[key] !== undefined && options[key] !== null) throw badRequest('invalid_body', `\`options.${key}\` is only for github webhooks; this provider sends none.`)
  }
}

export async function createWebhook(db: Db, teamId: string, input: WebhookCreate, allowPrivate: boolean) {
  const scheme = input.signatureScheme ?? 'service'
  if (input.secret) checkSecret(input.secret, scheme)
  refuseUnusedOptions(input.provider, input.options)
  const secret = input.secret ? input.secret : scheme === 'standard-webhooks' ? generateStandardSecret() : generateSecret()
  const now = new Date().toISOString()
  const row: WebhookRow = {
    id: crypto.randomUUID(), teamId, label: input.label, provider: input.provider, target: input.target,
    events: input.events ?? DEFAULT_EVENTS, secret, options: withScheme(input.options ?? {}, scheme), createdAt: now, updatedAt: now,
  }
  validate(row, allowPrivate, true)
  await insertWebhook(db, row)
  return { ...toRecord(row), secret }
}

/** The stored row of a team's webhook, or 404 (also for another team's webhook). */
export async function getWebhookRow(db: Conn, teamId: string, id: string): Promise<WebhookRow> {
  const row = await webhookOf(db, teamId, id)
  if (!row) throw notFound('Webhook not found.')
  return row
}

export async function listWebhooks(db: Db, teamId: string): Promise<WebhookRecord[]> {
  return (await webhooksOfTeam(db, teamId)).map(toRecord)
}

/** Applies a partial update; a non-empty `secret` replaces the old one and is answered once. */
export async function updateWebhook(db: Db, teamId: string, id: string, input: WebhookPatch, allowPrivate: boolean) {
  // Read and written in one write transaction: a PATCH of another api process in between would
  // otherwise be overwritten with the values read before it (a secret rotation or events undone).
  return await db.transaction(async (tx) => await applyUpdate(tx, teamId, id, input, allowPrivate), { behavior: 'immediate' })
}

async function applyUpdate(db: Tx, teamId: string, id: string, input: WebhookPatch, allowPrivate: boolean) {
  const current = await getWebhookRow(db, teamId, id)
  const scheme = input.signatureScheme ?? signatureSchemeOf(current.options)
  // A webhook moving to standard-webhooks with a secret that is no `whsec_` key gets a new one,
  // answered once as a rotation is: its receiver has to be set up for the new scheme anyway.
  const newSecret = input.secret ? input.secret
    : scheme === 'standard-webhooks' && !isStandardSecret(current.secret) ? generateStandardSecret() : null
  if (input.secret) checkSecret(input.secret, scheme)
  const provider = input.provider ?? current.provider
  refuseUnusedOptions(provider, input.options)
  // A given option replaces the stored one; `eventType: null` removes it. A github webhook
  // switched to another provider keeps no option (its token least of all).
  const merged: Record<string, unknown> = { ...current.options, ...input.options }
  const providerOptions = provider === 'github' ? Object.fromEntries(Object.entries(merged).filter(([, v]) => v !== null && v !== undefined)) : {}
  const options = withScheme(providerOptions, scheme)
  const next: WebhookRow = {
    ...current,
    label: input.label ?? current.label,
    provider,
    target: input.target ?? current.target,
    events: input.events ?? current.events,
    secret: newSecret ?? current.secret,
    options,
    updatedAt: new Date().toISOString(),
  }
  validate(next, allowPrivate, next.target !== current.target)
  // An update that changes nothing (`{}`, a form sent back as it was) writes nothing: `updatedAt` says when it last changed.
  const unchanged = (['label', 'provider', 'target', 'events', 'secret', 'options'] as const).every((k) => JSON.stringify(next[k]) === JSON.stringify(current[k]))
  if (!unchanged) await updateWebhookRow(db, id, next)
  const record = toRecord(unchanged ? current : next)
  return newSecret ? { ...record, secret: newSecret } : record
}

/** Deliveries one step of a webhook's deletion removes, each with its attempts (a few ms of write lock). */
export const DELETE_STEP = 500

/**
 * Removes up to `max` of a webhook's finished deliveries (delivered or failed), with their
 * attempts and the stored bytes of events no other delivery points at, in one short write
 * transaction. Returns how many it removed: fewer than `max` means none of those is left.
 * Pending deliveries are never taken here: they go with the webhook itself, so a deletion cut
 * short (a crash, a `503 busy`) leaves a live webhook with all its work still to send, not a
 * live webhook with events silently gone; only part of its finished log may be gone.
 */
export async function deleteDeliveriesStep(db: Db, webhookId: string, max: number): Promise<number> {
  return await deleteFinishedDeliveries(db, webhookId, max)
}

/**
 * Between two write steps: the lock stays free at least as long as the step held it (5 ms at
 * least), so another process's writer, which looks again only every few ms (SQLite's busy
 * handler sleeps up to 100 ms, `writeLockFree` up to 25 ms), gets its turn; this process's other
 * requests run meanwhile. Then it waits, on timers, for a free lock.
 */
export async function between(db: Db, stepMs: number): Promise<void> {
  await Bun.sleep(Math.max(5, stepMs))
  await writeLockFree(db)
}

/**
 * Deletes a webhook; its outbox rows go with it, and its attempt log, and the stored bytes of
 * events no other webhook's row points at (a test send's always), which nothing could read or
 * clean up afterwards. A long log goes first in steps of `DELETE_STEP`, each a short write
 * transaction; between two, the api's other requests run and a free lock is awaited on timers,
 * so the dispatcher and the api's other writers are never held for the whole log (200,000
 * deliveries held them 1.4 s). The pending rows (in flight, due, or written meanwhile) go in the
 * last transaction with the webhook itself (the outbox's foreign key cascade), so the webhook
 * and its unsent events are gone together or both still there.
 */
export async function deleteWebhook(db: Db, teamId: string, id: string): Promise<void> {
  await getWebhookRow(db, teamId, id)
  for (;;) {
    const t = performance.now()
    if (await deleteDeliveriesStep(db, id, DELETE_STEP) < DELETE_STEP) break
    await between(db, performance.now() - t)
  }
  await deleteWebhookNow(db, id)
}

/** The webhook and whatever is left of its deliveries, in one transaction (the last step of `deleteWebhook`). */
export async function deleteWebhookNow(db: Db, id: string): Promise<void> {
  await db.transaction(async (tx) => await deleteWebhookRow(tx, id), { behavior: 'immediate' })
}
