/**
 * A real HTTP receiver for webhook tests (style.md rule 8): Bun.serve on 127.0.0.1 with a
 * settable answer per request, recording every request it got.
 */
export interface Received {
  at: number
  method: string
  path: string
  headers: Record<string, string>
  body: string
}

export type Answer = { status: number; body?: string; delayMs?: number }

export interface TestReceiver {
  url: string
  port: number
  requests: Received[]
  /** Answers, used in order; the last one repeats. */
  answers: Answer[]
  stop(): void
}

/** The fixture certificate (self-signed, for `hook.test` and `localhost`) a TLS receiver serves. */
export const TLS_FIXTURE = { cert: new URL('./fixtures/tls/hook.test.pem', import.meta.url).pathname, key: new URL('./fixtures/tls/hook.test.key', import.meta.url).pathname }

/** With `tls`, the receiver speaks HTTPS with the fixture certificate and its url names `localhost`. */
export function startReceiver(answers: Answer[] = [{ status: 200, body: 'ok' }], opts: { tls?: boolean } = {}): TestReceiver {
  const r: Omit<TestReceiver, 'url' | 'port' | 'stop'> = { requests: [], answers }
  let n = 0
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    idleTimeout: 30,
    ...(opts.tls ? { tls: { cert: Bun.file(TLS_FIXTURE.cert), key: Bun.file(TLS_FIXTURE.key) } } : {}),
    async fetch(req) {
      const body = await req.text()
      r.requests.push({ at: Date.now(), method: req.method, path: new URL(req.url).pathname + new URL(req.url).search, headers: Object.fromEntries(req.headers), body })
      const answer = r.answers[Math.min(n++, r.answers.length - 1)] ?? { status: 200 }
      if (answer.delayMs) await Bun.sleep(answer.delayMs)
      return new Response(answer.body ?? '', { status: answer.status })
    },
  })
  const url = opts.tls ? `https://localhost:${server.port}/hook` : `http://127.0.0.1:${server.port}/hook`
  return Object.assign(r, { url, port: server.port!, stop: () => server.stop(true) })
}
