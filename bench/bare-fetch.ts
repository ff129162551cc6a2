/**
 * The baseline of bench/dispatch.ts, in its own process like the dispatcher: `n` plain fetch
 * POSTs of `body` to `url`, `concurrency` at a time, with the headers of `headersFile` (a JSON
 * object; by default only the content type). Prints `{rate}` as one JSON line.
 *   bun bench/bare-fetch.ts <url> <n> <concurrency> <bodyFile> [headersFile]
 */
const [url, nText, cText, bodyFile, headersFile] = process.argv.slice(2)
const n = Number(nText)
const concurrency = Number(cText)
const body = await Bun.file(bodyFile!).text()
const headers: Record<string, string> = headersFile ? await Bun.file(headersFile).json() : { 'content-type': 'application/json; charset=utf-8' }
let next = 0
const t0 = performance.now()
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < n) {
      next++
      const res = await fetch(url!, { method: 'POST', body, headers })
      await res.text()
    }
  }),
)
console.log(JSON.stringify({ rate: n / ((performance.now() - t0) / 1000) }))
export {}
