import { row } from '../rows'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestContext, enc, TEAM, type TestContext } from '../helpers'
import { nextChangeVector, putRevision } from '../../db/store'
import { encodeVersionRef } from '../../core/versions/service'

let ctx: TestContext
beforeAll(async () => { ctx = await createTestContext() })
afterAll(() => ctx.close())

const list = (q: string) => ctx.call('GET', `/content/versions/${TEAM}?${q}`)
const body = (q: string) => ctx.call('GET', `/content/version/${TEAM}?${q}`)
const err = (code: string) => ({ error: code, message: expect.any(String) })

async function createPublished(id: string, title = 'T') {
  await ctx.call('POST', `/content/${TEAM}`, { body: { id: `${id}/draft`, contentType: 'page', locales: { en: { title, slug: 's' } } } })
  const res = await ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: [id] } })
  return res.body[0].document
}

/** An unstamped revision, written through the store layer: no endpoint makes one. */
async function putUnstamped(id: string) {
  await ctx.db.transaction(async (tx) => {
    await putRevision(tx, { teamId: TEAM, documentId: id, changeVector: await nextChangeVector(tx), body: { id, contentType: 'page', fields: {}, locales: {} }, stamped: false })
  })
}

describe('errors of both read endpoints', () => {
  for (const [name, call] of [['list', list], ['body', body]] as const) {
    test(`${name}: no id is 400 missing_id`, async () => {
      const res = await call('')
      expect(res.status).toBe(400)
      expect(res.body).toEqual(err('missing_id'))
    })
    for (const sibling of ['pages/home/draft', 'pages/home/scheduled', 'pages/home/snapshot/AbCdEfGhIjKlMnOpQrStUv']) {
      test(`${name}: sibling ${sibling.split('/').slice(2).join('/')} is 400 sibling_id`, async () => {
        const res = await call(`id=${enc(sibling)}&version=QQ`)
        expect(res.status).toBe(400)
        expect(res.body).toEqual(err('sibling_id'))
      })
    }
    test(`${name}: an activity document is 400 not_content`, async () => {
      const res = await call(`id=${enc('pages/home/activity')}&version=QQ`)
      expect(res.status).toBe(400)
      expect(res.body).toEqual(err('not_content'))
    })
    test(`${name}: an unknown canonical is 404 not_found`, async () => {
      const res = await call(`id=pages/nope&version=QQ`)
      expect(res.status).toBe(404)
      expect(res.body).toEqual(err('not_found'))
    })
    test(`${name}: hostile ids are 404, never 500`, async () => {
      for (const id of ['../../etc/passwd', 'x'.repeat(10_000), 'páges/ünïcødé/🚀', '%00', "' OR 1=1 --"]) {
        const res = await call(`id=${enc(id)}&version=QQ`)
        expect(res.status).toBe(404)
        expect(res.body).toEqual(err('not_found'))
      }
    })
  }

  test('a soft-deleted canonical is 404 on both, although its revisions are kept', async () => {
    const doc = await createPublished('pages/gone')
    const versions = await list('id=pages/gone')
    expect(versions.body.rows).toHaveLength(1)
    await ctx.call('POST', `/content/delete/${TEAM}`, { body: { ids: ['pages/gone'] } })
    expect((await list('id=pages/gone')).body).toEqual(err('not_found'))
    const res = await body(`id=pages/gone&version=${versions.body.rows[0].version}`)
    expect(res.status).toBe(404)
    expect(res.body).toEqual(err('not_found'))
    expect(doc.id).toBe('pages/gone')
  })
})

describe('GET /content/versions/{activeTeam}', () => {
  test('a canonical with no revisions is 200 with empty rows', async () => {
    await ctx.call('POST', `/content/${TEAM}`, { body: { id: 'pages/never', contentType: 'page' } })
    const res = await list('id=pages/never')
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ rows: [], hasMore: false, nextStart: 0 })
  })

  test('rows have the spec fields', async () => {
    const doc = await createPublished('pages/row', 'R')
    const res = await list('id=pages/row')
    expect(res.body).toEqual({
      rows: [{ version: encodeVersionRef(doc['@metadata']['@change-vector']), publishedAt: doc.__publishedAt, publishedBy: 'u-editor', locales: ['en'], status: 'published' }],
      hasMore: false,
      nextStart: 1,
    })
    expect(res.body.rows[0].publishedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{7}Z$/)
  })

  // Only decimal digits: `Number` alone would read hex, exponents, a sign and spaces.
  for (const [start, code] of [['-1', 'bad_paging'], ['abc', 'bad_paging'], ['1.5', 'bad_paging'], ['0x1', 'bad_paging'], ['1e1', 'bad_paging'], ['%2B1', 'bad_paging'], ['%201', 'bad_paging']] as const) {
    test(`start=${start} is 400 ${code}`, async () => {
      const res = await list(`id=pages/home&start=${start}`)
      expect(res.status).toBe(400)
      expect(res.body).toEqual(err(code))
    })
  }
  test('a start past every revision, beyond 2^53 too, is an empty last page; an empty start or pageSize is left out', async () => {
    for (const start of ['5', '9007199254740991', '9007199254740992', '9'.repeat(400)]) {
      const res = await list(`id=pages/home&start=${start}`)
      const nextStart = Math.min(Number(start), Number.MAX_SAFE_INTEGER) // nothing read: the offset stays where it was asked
      expect({ start, status: res.status, body: res.body }).toEqual({ start, status: 200, body: { rows: [], hasMore: false, nextStart } })
    }
    const empty = await list('id=pages/home&start=&pageSize=')
    expect({ status: empty.status, body: empty.body }).toEqual({ status: 200, body: (await list('id=pages/home')).body })
  })

  for (const pageSize of ['0', '-5', 'many', '2.5', '0x10', '1e1']) {
    test(`pageSize=${pageSize} is 400 bad_paging`, async () => {
      const res = await list(`id=pages/home&pageSize=${pageSize}`)
      expect(res.status).toBe(400)
      expect(res.body).toEqual(err('bad_paging'))
    })
  }

  describe('paging over 130 published and 40 interleaved unstamped revisions', () => {
    // Oldest first: publish p1..p130, with an unstamped revision after every third publish
    // up to 40 of them. Expected newest-first raw order is built alongside.
    const raw: ({ stamped: true; title: string } | { stamped: false })[] = []
    beforeAll(async () => {
      let unstamped = 0
      for (let i = 1; i <= 130; i++) {
        await createPublished('pages/many', `p${i}`)
        raw.unshift({ stamped: true, title: `p${i}` })
        if (i % 3 === 0 && unstamped < 40) {
          await putUnstamped('pages/many')
          raw.unshift({ stamped: false })
          unstamped++
        }
      }
    })

    /** Pages through with `pageSize`, checking every page against the raw order. */
    async function walk(pageSize: number | undefined) {
      const effective = Math.min(pageSize ?? 25, 100)
      const titles: string[] = []
      let start = 0
      for (let pages = 0; pages < 500; pages++) {
        const res = await list(`id=pages/many&start=${start}${pageSize ? `&pageSize=${pageSize}` : ''}`)
        expect(res.status).toBe(200)
        // Expected page: scan raw from start until `effective` stamped rows are found.
        let offset = start
        const expected: string[] = []
        while (offset < raw.length && expected.length < effective) {
          const r = raw[offset++]!
          if (r.stamped) expected.push(r.title)
        }
        const got: string[] = []
        for (const row of res.body.rows) got.push((await body(`id=pages/many&version=${row.version}`)).body.locales.en.title)
        expect(got).toEqual(expected)
        expect(res.body.nextStart).toBe(offset)
        expect(res.body.hasMore).toBe(offset < raw.length)
        titles.push(...got)
        if (!res.body.hasMore) break
        start = res.body.nextStart
      }
      return titles
    }

    const all = () => raw.filter((r) => r.stamped).map((r) => (r as { title: string }).title)
    for (const size of [1, 25, 100, 500, undefined]) {
      test(`pageSize=${size ?? 'default'} visits every version once, newest first`, async () => {
        expect(await walk(size)).toEqual(all())
      }, 60_000)
    }

    test('a page that skips unstamped revisions still advances nextStart past them', async () => {
      // raw[0] is p130, raw[1] unstamped (after p129? no: after p129 only when 129%3==0), find one.
      const idx = raw.findIndex((r) => !r.stamped)
      const res = await list(`id=pages/many&start=${idx}&pageSize=1`)
      expect(res.body.rows).toHaveLength(1)
      expect(res.body.nextStart).toBe(idx + 2)
    })

    test('pageSize above 100 is capped at 100', async () => {
      const res = await list('id=pages/many&pageSize=500')
      expect(res.body.rows).toHaveLength(100)
    })

    test('a start past the end is an empty page', async () => {
      const res = await list('id=pages/many&start=100000')
      expect(res.body).toEqual({ rows: [], hasMore: false, nextStart: 100000 })
    })
  })
})

describe('GET /content/version/{activeTeam}', () => {
  test('answers the stored revision shaped as a live document', async () => {
    const doc = await createPublished('pages/body', 'B')
    const ref = encodeVersionRef(doc['@metadata']['@change-vector'])
    const res = await body(`id=pages/body&version=${ref}`)
    expect(res.status).toBe(200)
    const { '@metadata': _m, ...live } = doc
    expect(res.body).toEqual({ ...live, id: 'pages/body' })
    expect(res.body['@metadata']).toBeUndefined()
    expect(res.body.Id).toBeUndefined()
  })

  for (const ref of ['', '!!!', 'not base64 at all', encodeVersionRef('hello'), 'QQ', 'x'.repeat(10_000), '%F0%9F%9A%80']) {
    test(`a malformed reference ${JSON.stringify(ref.slice(0, 20))} is 400 bad_reference`, async () => {
      const res = await body(`id=pages/home&version=${ref}`)
      expect(res.status).toBe(400)
      expect(res.body).toEqual(err('bad_reference'))
    })
  }

  test('a reference of another document is the same 404 as an unknown one', async () => {
    const other = await createPublished('pages/other')
    const ref = encodeVersionRef(other['@metadata']['@change-vector'])
    const foreign = await body(`id=pages/home&version=${ref}`)
    const unknown = await body(`id=pages/home&version=${encodeVersionRef('A:999999-abc')}`)
    expect(foreign.status).toBe(404)
    expect(foreign.body).toEqual(unknown.body)
    expect(foreign.body).toEqual(err('not_found'))
  })

  test('a reference of an unstamped revision is 404', async () => {
    await createPublished('pages/unst')
    await putUnstamped('pages/unst')
    const cv = (await row(ctx.db, "SELECT change_vector AS cv FROM revisions WHERE document_id = 'pages/unst' AND NOT stamped")) as { cv: string }
    const res = await body(`id=pages/unst&version=${encodeVersionRef(cv.cv)}`)
    expect(res.status).toBe(404)
    expect(res.body).toEqual(err('not_found'))
  })

  test('a reference of another team is 404', async () => {
    const ref = (await list('id=pages/home')).body.rows[0].version
    const res = await ctx.call('GET', `/content/version/other?id=pages/home&version=${ref}`, { token: 'tok-outsider-000' })
    expect(res.status).toBe(404)
  })
})

test('a snapshot sibling with any token is 400 sibling_id, never looked up as a canonical', async () => {
  for (const id of ['pages/home/snapshot/x', 'pages/home/snapshot/' + 'y'.repeat(100)]) {
    const res = await list(`id=${enc(id)}`)
    expect(res.status).toBe(400)
    expect(res.body).toEqual(err('sibling_id'))
  }
})
