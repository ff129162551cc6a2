/**
 * The baseline of bench/dispatch.ts, in its own process like the dispatcher: `n` plain fetch
 * POSTs of `body` to `url`, `concurrency` at a time, with the headers of `headersFile` (a JSON
 * object; by default only the content type). Prints `{rate, cpuUs}` as one JSON line, `cpuUs` being the
 * loop's CPU per request by thread group (bench/proc-cpu.ts; null off Linux).
 *   bun bench/bare-fetch.ts <url> <n> <concurrency> <bodyFile> [headersFile]
 */
import { perItemUs, threadCpuMs } from './proc-cpu'

const [url, nText, cText, bodyFile, headersFile] = process.argv.slice(2)
const n = Number(nText)
const concurrency = Number(cText)
const body = await Bun.file(bodyFile!).text()
const headers: Record<string, string> = headersFile ? await Bun.file(headersFile).json() : { 'content-type': 'application/json; charset=utf-8' }
let next = 0
const cpu0 = threadCpuMs(process.pid)
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
const rate = n / ((performance.now() - t0) / 1000)
console.log(JSON.stringify({ rate, cpuUs: perItemUs(cpu0, threadCpuMs(process.pid), n) }))
