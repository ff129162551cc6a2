/** Small shared pieces: error notes, confirmations (Radix Dialog: focus trap, Escape, labelled), badges. */
import * as Dialog from '@radix-ui/react-dialog'
import { useCallback, useEffect, useState, type ReactNode } from 'react'
import { ApiProblem } from './api/client'

/** An error in words with its code; nothing the api answers is swallowed. */
export function ErrorNote({ error, children }: { error: unknown; children?: ReactNode }) {
  if (!error) return null
  const text = error instanceof ApiProblem ? error.text : error instanceof Error ? error.message : String(error)
  return (
    <div role="alert" className="error">
      <strong>Error:</strong> {text}
      {children}
    </div>
  )
}

export function Badge({ tone, children }: { tone: 'draft' | 'live' | 'changed' | 'scheduled' | 'archived' | 'muted'; children: ReactNode }) {
  return <span className={`badge badge-${tone}`}>{children}</span>
}

/** Loads once (and again on `reload()`); `error` holds the problem of the last try. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]) {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true })
  const run = useCallback(() => {
    setState((s) => ({ ...s, loading: true }))
    load().then((data) => setState({ data, loading: false }), (error) => setState({ error, loading: false }))
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps)
  useEffect(run, [run])
  return { ...state, reload: run }
}

/** A modal dialog with a title, a description and the caller's body. */
export function Modal({ open, onOpenChange, title, description, children, wide }: { open: boolean; onOpenChange: (open: boolean) => void; title: string; description?: ReactNode; children: ReactNode; wide?: boolean }) {
  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Portal>
        <Dialog.Overlay className="overlay" />
        <Dialog.Content className={wide ? 'dialog dialog-wide' : 'dialog'} aria-describedby={description ? undefined : undefined}>
          <Dialog.Title>{title}</Dialog.Title>
          {description ? <Dialog.Description>{description}</Dialog.Description> : <Dialog.Description className="sr-only">{title}</Dialog.Description>}
          {children}
          <Dialog.Close asChild>
            <button className="close" aria-label="Close">×</button>
          </Dialog.Close>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  )
}

/**
 * A button that asks first: the dialog says what happens (to the live site, above all) and
 * runs `action` on "confirm"; a refusal stays in the dialog, in words with its code.
 */
export function ConfirmButton({ label, title, consequence, confirmLabel, action, disabled, danger }: { label: string; title: string; consequence: ReactNode; confirmLabel?: string; action: () => Promise<unknown>; disabled?: boolean; danger?: boolean }) {
  const [open, setOpen] = useState(false)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>(null)
  const confirm = async () => {
    setBusy(true)
    setError(null)
    try {
      await action()
      setOpen(false)
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }
  return (
    <>
      <button type="button" className={danger ? 'danger' : undefined} disabled={disabled} onClick={() => { setError(null); setOpen(true) }}>{label}</button>
      <Modal open={open} onOpenChange={setOpen} title={title} description={consequence}>
        <ErrorNote error={error} />
        <div className="actions">
          <button type="button" className={danger ? 'danger' : 'primary'} onClick={confirm} disabled={busy}>{confirmLabel ?? label}</button>
          <Dialog.Close asChild><button type="button">Cancel</button></Dialog.Close>
        </div>
      </Modal>
    </>
  )
}

/** A timestamp as the reader's local date and time (the exact UTC value in the tooltip). */
export function When({ at }: { at: string | null | undefined }) {
  if (!at) return <span>never</span>
  const d = new Date(at)
  return <time dateTime={at} title={at}>{Number.isNaN(d.getTime()) ? at : d.toLocaleString()}</time>
}
