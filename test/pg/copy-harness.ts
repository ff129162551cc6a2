/**
 * A fresh PostgreSQL database per use, on the server TEST_DATABASE_URL names (CI sets it to the
 * local server), dropped after: `CREATE DATABASE t_<random>`.
 */
import { SQL } from 'bun'

const base = process.env.TEST_DATABASE_URL

/** Why the PostgreSQL tests cannot run here, or null when they can. */
export const skipReason = base ? null : 'TEST_DATABASE_URL is not set (CI sets it, e.g. postgres://root@127.0.0.1:5432/test)'

/**
 * Creates an empty database and answers its URL, with `password` written into it when given (the
 * trust-auth test server ignores it; the tests check it is never printed), and a `drop`.
 */
export async function freshDatabase(password?: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `t_${crypto.randomUUID().replaceAll('-', '').slice(0, 16)}`
  const admin = new SQL({ url: base!, max: 1 })
  await admin.unsafe(`CREATE DATABASE ${name}`)
  await admin.close()
  const url = new URL(base!)
  url.pathname = `/${name}`
  if (password) url.password = password
  return {
    url: url.toString(),
    drop: async () => {
      const again = new SQL({ url: base!, max: 1 })
      try {
        await again.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      } finally {
        await again.close()
      }
    },
  }
}
