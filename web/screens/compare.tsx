/**
 * Side by side: any two History rows (a version, a snapshot, the draft), per locale and field,
 * added, removed and changed values marked (word diff from jsdiff), with a "changed only" toggle.
 * Every value is rendered as text.
 */
import { diffWords } from 'diff'
import { useState } from 'react'
import type { Doc } from '../api/client'
import { asText, loadSource, sourceKey, sourceLabel, type Source } from '../doc-data'
import { compareDocs } from '../compare-lines'
import { ErrorNote, useLoad } from '../ui'

function Marked({ from, to, side }: { from: unknown; to: unknown; side: 'left' | 'right' }) {
  if (typeof from !== 'string' || typeof to !== 'string') return <>{asText(side === 'left' ? from : to)}</>
  return (
    <>
      {diffWords(from, to).map((part, i) => {
        if (part.added) return side === 'right' ? <ins key={i}>{part.value}</ins> : null
        if (part.removed) return side === 'left' ? <del key={i}>{part.value}</del> : null
        return <span key={i}>{part.value}</span>
      })}
    </>
  )
}

/** The comparison table of two loaded bodies. */
export function CompareTable({ left, right, leftLabel, rightLabel, locales, fields, changedOnly }: { left: Doc | null; right: Doc | null; leftLabel: string; rightLabel: string; locales?: string[]; fields?: boolean; changedOnly: boolean }) {
  const lines = compareDocs(left, right, { locales, fields }).filter((l) => !changedOnly || l.change !== 'same')
  const sections = [...new Set(lines.map((l) => l.section))]
  if (lines.length === 0) return <p>{changedOnly ? 'No differences.' : 'Nothing to compare.'}</p>
  return (
    <table className="compare">
      <caption className="sr-only">{leftLabel} compared with {rightLabel}</caption>
      <thead><tr><th scope="col">Field</th><th scope="col">{leftLabel}</th><th scope="col">{rightLabel}</th></tr></thead>
      {sections.map((s) => (
        <tbody key={s}>
          <tr><th scope="rowgroup" colSpan={3} className="section">{s}</th></tr>
          {lines.filter((l) => l.section === s).map((l) => (
            <tr key={l.field} className={`change-${l.change}`}>
              <th scope="row">{l.field}{l.change !== 'same' && <span className="change-label"> ({l.change})</span>}</th>
              <td>{l.change === 'added' ? <em className="none">(none)</em> : <Marked from={l.left} to={l.right} side="left" />}</td>
              <td>{l.change === 'removed' ? <em className="none">(none)</em> : <Marked from={l.left} to={l.right} side="right" />}</td>
            </tr>
          ))}
        </tbody>
      ))}
    </table>
  )
}

/** Compare any two of `rows`; starts with `initial` against the draft. */
export function CompareView({ teamId, docId, rows, initial }: { teamId: string; docId: string; rows: Source[]; initial: Source }) {
  const draft = rows.find((r) => r.kind === 'draft') ?? { kind: 'draft' as const }
  const [leftKey, setLeftKey] = useState(sourceKey(initial))
  const [rightKey, setRightKey] = useState(sourceKey(initial.kind === 'draft' ? rows.find((r) => r.kind !== 'draft') ?? draft : draft))
  const [changedOnly, setChangedOnly] = useState(false)
  const left = rows.find((r) => sourceKey(r) === leftKey) ?? initial
  const right = rows.find((r) => sourceKey(r) === rightKey) ?? draft
  const bodies = useLoad(async () => Promise.all([loadSource(teamId, docId, left), loadSource(teamId, docId, right)]), [teamId, docId, leftKey, rightKey])
  const pick = (label: string, value: string, set: (v: string) => void) => (
    <label>
      {label}{' '}
      <select value={value} onChange={(e) => set(e.target.value)}>
        {rows.map((r) => <option key={sourceKey(r)} value={sourceKey(r)}>{sourceLabel(r)}</option>)}
      </select>
    </label>
  )
  return (
    <div className="compare-view">
      <div className="toolbar">
        {pick('Left', leftKey, setLeftKey)}
        {pick('Right', rightKey, setRightKey)}
        <label><input type="checkbox" checked={changedOnly} onChange={(e) => setChangedOnly(e.target.checked)} /> Changed only</label>
      </div>
      <ErrorNote error={bodies.error} />
      {bodies.loading && <p role="status">Loading…</p>}
      {bodies.data && <CompareTable left={bodies.data[0]} right={bodies.data[1]} leftLabel={sourceLabel(left)} rightLabel={sourceLabel(right)} changedOnly={changedOnly} />}
    </div>
  )
}

/** A read-only view of one row's body. */
export function Preview({ teamId, docId, source }: { teamId: string; docId: string; source: Source }) {
  const body = useLoad(() => loadSource(teamId, docId, source), [teamId, docId, sourceKey(source)])
  return (
    <div className="preview">
      <ErrorNote error={body.error} />
      {body.loading && <p role="status">Loading…</p>}
      {body.data === null && <p>Nothing stored for this row.</p>}
      {body.data && (
        <table className="compare">
          <caption className="sr-only">{sourceLabel(source)}</caption>
          <thead><tr><th scope="col">Field</th><th scope="col">Value</th></tr></thead>
          {[...new Set(compareDocs(body.data ?? null, body.data ?? null).map((l) => l.section))].map((s) => (
            <tbody key={s}>
              <tr><th scope="rowgroup" colSpan={2} className="section">{s}</th></tr>
              {compareDocs(body.data ?? null, body.data ?? null).filter((l) => l.section === s).map((l) => (
                <tr key={l.field}><th scope="row">{l.field}</th><td>{asText(l.left)}</td></tr>
              ))}
            </tbody>
          ))}
        </table>
      )}
    </div>
  )
}
