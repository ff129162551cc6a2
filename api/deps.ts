import type { Db } from '../db/client'
import type { Config } from '../core/config'
import type { Logger } from '../core/log'
import type { Metrics } from '../core/metrics'

/** What every feature's routes are built from; tests build as many sets as they like. */
export interface AppDeps {
  db: Db
  config: Config
  log: Logger
  metrics: Metrics
}
