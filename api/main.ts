/** The api process: open the database, seed the demo team when empty, listen, stop on signals. */
import { openDb } from '../db/client'
import { seedDemoIfEmpty } from '../cli/seed'
import { createApp } from './app'
import { loadConfig } from './config'
import { createLogger } from './log'
import { createMetrics, primePublishOutcomes } from './metrics'

const config = loadConfig()
const log = createLogger(config.logLevel, 'api')
const db = openDb(config.databasePath)
const metrics = createMetrics()
primePublishOutcomes(metrics)
if (seedDemoIfEmpty(db, metrics)) log.info({ databasePath: config.databasePath }, 'seeded demo team "acme"')

// Elysia asks Bun for SO_REUSEPORT by default: a second api on a busy port would then share it
// and the kernel would split requests between two databases. A busy port is an error instead.
const app = createApp({ db, config, log, metrics }).listen({ port: config.port, reusePort: false })
log.info({ port: config.port, databasePath: config.databasePath }, 'api listening')

const stop = async (signal: string) => {
  log.info({ signal }, 'api stopping')
  await app.stop()
  db.$client.close()
  process.exit(0)
}
process.on('SIGINT', () => void stop('SIGINT'))
process.on('SIGTERM', () => void stop('SIGTERM'))
