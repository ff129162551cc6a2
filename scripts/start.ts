/**
 * `bun start`: runs the api and the dispatcher side by side on the embedded default database
 * and stops both on Ctrl-C / SIGTERM. The api migrates first; the dispatcher's migrate waits
 * on the same lock, so the order does not matter.
 */
const root = new URL('..', import.meta.url).pathname
const procs = ['api/main.ts', 'dispatcher/main.ts'].map((entry) =>
  Bun.spawn(['bun', entry], { cwd: root, stdio: ['inherit', 'inherit', 'inherit'], env: process.env }),
)

let stopping = false
const stop = async (signal: NodeJS.Signals) => {
  if (stopping) return
  stopping = true
  for (const p of procs) p.kill(signal)
  await Promise.all(procs.map((p) => p.exited))
  process.exit(0)
}
process.on('SIGINT', () => void stop('SIGINT'))
process.on('SIGTERM', () => void stop('SIGTERM'))

// If either process dies on its own, take the other down too, so a supervisor sees the failure.
const first = await Promise.race(procs.map((p) => p.exited.then((code) => code)))
if (!stopping) {
  stopping = true
  for (const p of procs) p.kill('SIGTERM')
  await Promise.all(procs.map((p) => p.exited))
  process.exit(first || 1)
}
