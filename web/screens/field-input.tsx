/** One field: text in, text out (a value that is no string is edited as JSON). Never HTML. */
import { asText } from '../doc-data'

export function FieldInput({ id, label, value, onChange, readOnly }: { id: string; label: string; value: unknown; onChange: (v: unknown) => void; readOnly?: boolean }) {
  const isText = value === undefined || value === null || typeof value === 'string'
  const long = typeof value === 'string' && (value.length > 80 || value.includes('\n'))
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {isText && !long ? (
        <input id={id} value={asText(value)} readOnly={readOnly} onChange={(e) => onChange(e.target.value)} />
      ) : (
        <textarea id={id} value={asText(value)} readOnly={readOnly} rows={4} onChange={(e) => {
          if (isText) return onChange(e.target.value)
          try { onChange(JSON.parse(e.target.value)) } catch { onChange(e.target.value) }
        }} />
      )}
    </div>
  )
}
