/**
 * The baseline of bench/dispatch.ts, in its own process like the dispatcher: `n` plain fetch
 * POSTs of `body` to `url`, `concurrency` at a time. Prints `{rate}` as one JSON line.
 *   bun bench/bare-fetch.ts <url> <n> <concurrency> <bodyFile>
 */
const [url, nText, cText, bodyFile] = process.argv.slice(2)
const n = Number(nText)
const concurrency = Number(cText)
const body = await Bun.file(bodyFile!).text()
let next = 0
const t0 = performance.now()
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < n) {
      next++
      const res = await fetch(url!, { method: 'POST', body, headers: { 'content-type': 'application/json; charset=utf-8' } })
      await res.text()
    }
  }),
)
console.log(JSON.stringify({ rate: n / ((performance.now() - t0) / 1000) }))
export {}
