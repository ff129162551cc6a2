import { expect, test } from 'bun:test'
import { ConfigError, loadConfig } from '../../core/config'

test('every setting has the default docs/configuration.md lists', () => {
  expect(loadConfig({})).toEqual({
    port: 3000, host: '0.0.0.0', databasePath: './data/content.db', databaseUrl: null, databasePoolSize: undefined, logLevel: 'info', allowPrivateTargets: false,
    dispatcherPollMs: 250, siteChangeQuietMs: 30_000, siteChangeMaxHoldMs: 1_800_000, webhookTimeoutMs: 30_000,
    maxBodyBytes: 1_048_576, requestBodyTimeoutMs: 10_000, metricsPublic: false,
    dispatcherLeaseMs: undefined, dispatcherConcurrency: undefined, dispatcherPerWebhook: undefined, deliveryLogRetentionDays: 30,
  })
  // Set to the empty string is unset, as in a systemd `Environment=PORT=`.
  expect(loadConfig({ PORT: '', LOG_LEVEL: '' }).port).toBe(3000)
})

test('good values are read as given', () => {
  const config = loadConfig({
    PORT: '0', HOST: '::1', LOG_LEVEL: 'Silent', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'TRUE', METRICS_PUBLIC: 'false', WEBHOOK_TIMEOUT_MS: '300',
    DISPATCHER_LEASE_MS: '800', DISPATCHER_CONCURRENCY: '8', DISPATCHER_PER_WEBHOOK: '2', SITE_CHANGE_QUIET_MS: '0', MAX_BODY_BYTES: '2048',
    DELIVERY_LOG_RETENTION_DAYS: '0', REQUEST_BODY_TIMEOUT_MS: '250', DATABASE_URL: 'postgresql://app:s%40cret@db.internal:6543/content?sslmode=require',
    DATABASE_POOL_SIZE: '4',
  })
  expect(config).toMatchObject({
    port: 0, host: '::1', logLevel: 'silent', allowPrivateTargets: true, metricsPublic: false, webhookTimeoutMs: 300,
    dispatcherLeaseMs: 800, dispatcherConcurrency: 8, dispatcherPerWebhook: 2, siteChangeQuietMs: 0, maxBodyBytes: 2048,
    deliveryLogRetentionDays: 0, requestBodyTimeoutMs: 250, databaseUrl: 'postgresql://app:s%40cret@db.internal:6543/content?sslmode=require',
    databasePoolSize: 4,
  })
})

test('a value that is set but wrong is refused, naming the variable; never read as the default', () => {
  const bad: Record<string, string>[] = [
    { PORT: 'abc' }, { PORT: '-1' }, { PORT: '99999' }, { PORT: '3.5' }, { PORT: '0x10F3' }, { PORT: ' 80' }, { PORT: '1e3' },
    { MAX_BODY_BYTES: '0' }, { MAX_BODY_BYTES: '-1' }, { MAX_BODY_BYTES: 'abc' },
    { DISPATCHER_POLL_MS: '0' }, { DISPATCHER_POLL_MS: '-5' },
    { WEBHOOK_TIMEOUT_MS: '0' }, { WEBHOOK_TIMEOUT_MS: '-1' }, { WEBHOOK_TIMEOUT_MS: '9999999999' },
    { DISPATCHER_CONCURRENCY: '0' }, { DISPATCHER_CONCURRENCY: 'abc' }, { DISPATCHER_PER_WEBHOOK: '0.5' }, { DISPATCHER_PER_WEBHOOK: '-1' },
    { DISPATCHER_LEASE_MS: '-1' }, { SITE_CHANGE_QUIET_MS: '-1' }, { SITE_CHANGE_MAX_HOLD_MS: 'soon' },
    { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'yes' }, { WEBHOOK_ALLOW_PRIVATE_TARGETS: '1' }, { METRICS_PUBLIC: 'on' },
    { LOG_LEVEL: 'verbose' }, { LOG_LEVEL: 'in fo' },
    { HOST: 'http://localhost' }, { HOST: '127.0.0.1:3000' }, { HOST: 'local host' }, { HOST: '999.1.1.1' }, { HOST: '10.0.0' }, { HOST: '127.0.0.01' },
    { NODE_EXTRA_CA_CERTS: '/no/such/ca.pem' },
    { REQUEST_BODY_TIMEOUT_MS: '0' }, { REQUEST_BODY_TIMEOUT_MS: '10s' }, { REQUEST_BODY_TIMEOUT_MS: '9999999999' },
    { DELIVERY_LOG_RETENTION_DAYS: '-1' }, { DELIVERY_LOG_RETENTION_DAYS: '7d' }, { DELIVERY_LOG_RETENTION_DAYS: '36501' },
    { DATABASE_URL: 'localhost:5432' }, { DATABASE_URL: 'mysql://u:pw@h/db' }, { DATABASE_URL: 'postgres//h/db' }, { DATABASE_URL: 'postgres://u:pw@h:99999/db' },
    { DATABASE_URL: 'postgres:///db' }, { DATABASE_URL: 'sqlite:./data/content.db' },
    { DATABASE_POOL_SIZE: '0' }, { DATABASE_POOL_SIZE: 'ten' },
  ]
  for (const env of bad) {
    const [name] = Object.keys(env)
    let error: unknown
    try {
      loadConfig(env)
    } catch (e) {
      error = e
    }
    expect({ env, refused: error instanceof ConfigError, names: String((error as Error | undefined)?.message).startsWith(`${name} must be`) })
      .toEqual({ env, refused: true, names: true })
  }
})

test('HOST takes an address or a name; [::1] is read as ::1', () => {
  expect(['localhost', '127.0.0.1', '::', '[::1]', 'api.internal'].map((HOST) => loadConfig({ HOST }).host))
    .toEqual(['localhost', '127.0.0.1', '::', '::1', 'api.internal'])
})

test('a lease shorter than a whole send plus 500 ms is refused: the dispatcher would claim its own slow sends again', () => {
  expect(() => loadConfig({ DISPATCHER_LEASE_MS: '1500' })).toThrow('DISPATCHER_LEASE_MS must be at least WEBHOOK_TIMEOUT_MS + 500 (30500)')
  expect(() => loadConfig({ WEBHOOK_TIMEOUT_MS: '1000', DISPATCHER_LEASE_MS: '1499' })).toThrow(ConfigError)
  expect(loadConfig({ WEBHOOK_TIMEOUT_MS: '1000', DISPATCHER_LEASE_MS: '1500' }).dispatcherLeaseMs).toBe(1500)
})

test('a refused DATABASE_URL is shown with its password masked, whatever is wrong with it', () => {
  for (const DATABASE_URL of ['mysql://app:hunter2@db/content', 'postgres://app:hunter2@db:99999/content', 'app:hunter2@db/content', 'postgres://app:hun/ter2@db:x/content']) {
    let message = ''
    try {
      loadConfig({ DATABASE_URL })
    } catch (e) {
      message = (e as Error).message
    }
    expect({ DATABASE_URL, names: message.startsWith('DATABASE_URL must be'), leaks: /hunter2|hun\/ter2/.test(message) }).toEqual({ DATABASE_URL, names: true, leaks: false })
  }
})
