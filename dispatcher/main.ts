/** The dispatcher process: open the shared database, run the loop, stop cleanly on signals. */
import { openDb } from '../db/client'
import { loadConfig } from '../api/config'
import { createLogger } from '../api/log'
import { createMetrics } from '../api/metrics'
import { createDispatcher } from './loop'

const config = loadConfig()
const log = createLogger(config.logLevel, 'dispatcher')
const db = openDb(config.databasePath)
const dispatcher = createDispatcher({ db, log, metrics: createMetrics(), pollMs: config.dispatcherPollMs })
dispatcher.start()
log.info({ databasePath: config.databasePath, pollMs: config.dispatcherPollMs }, 'dispatcher started')

const stop = async (signal: string) => {
  log.info({ signal }, 'dispatcher stopping')
  await dispatcher.stop()
  db.$client.close()
  process.exit(0)
}
process.on('SIGINT', () => void stop('SIGINT'))
process.on('SIGTERM', () => void stop('SIGTERM'))
