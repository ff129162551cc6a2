import type { Db } from '../db/client'
import type { Config } from './config'
import type { Logger } from './log'
import type { Metrics } from './metrics'

/** What every feature's routes are built from; tests build as many sets as they like. */
export interface AppDeps {
  db: Db
  config: Config
  log: Logger
  metrics: Metrics
}
