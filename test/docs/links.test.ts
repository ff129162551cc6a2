/**
 * The manual's links hold: every relative link in README.md and docs/ names a file the repository
 * has, and its `#anchor` a heading of that file (GitHub's slug, by github-slugger); every reference
 * to a markdown file in the code (comments, log lines: `docs/x.md#anchor`, `docs/x.md "Heading"`,
 * `spec.md "Section"`, `README "Heading"`) names a file that exists and, for the manual's own pages,
 * a heading it has.
 */
import { expect, test } from 'bun:test'
import GithubSlugger from 'github-slugger'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'

const root = join(import.meta.dir, '../..')
const git = (args: string[]) => new TextDecoder().decode(Bun.spawnSync(['git', ...args], { cwd: root }).stdout).split('\n').filter(Boolean)
// Tracked files and new ones not yet committed (a page written before its first commit counts too).
const files = [...new Set([...git(['ls-files']), ...git(['ls-files', '--others', '--exclude-standard'])])].filter((f) => existsSync(join(root, f)))
const markdown = files.filter((f) => f === 'README.md' || (f.startsWith('docs/') && f.endsWith('.md')))

/** The lines of a markdown file outside fenced code blocks, with inline code spans blanked. */
function prose(text: string): string[] {
  let fenced = false
  return text.split('\n').map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced
      return ''
    }
    return fenced ? '' : line.replace(/`[^`]*`/g, (code) => ' '.repeat(code.length))
  })
}

const headingsCache = new Map<string, { texts: string[]; slugs: Set<string> }>()
/** A markdown file's headings as written (inline code and links unwrapped) and as GitHub slugs them. */
function headings(file: string) {
  let found = headingsCache.get(file)
  if (!found) {
    const slugger = new GithubSlugger()
    let fenced = false
    const texts: string[] = []
    for (const line of readFileSync(join(root, file), 'utf8').split('\n')) {
      if (/^\s*(```|~~~)/.test(line)) fenced = !fenced
      const m = !fenced && /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line)
      if (m) texts.push(m[1]!.replace(/`([^`]*)`/g, '$1').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1'))
    }
    found = { texts, slugs: new Set(texts.map((t) => slugger.slug(t))) }
    headingsCache.set(file, found)
  }
  return found
}

/** What is wrong with a link from `from` to `target` (`path#anchor`, `#anchor`), or null. */
function brokenLink(from: string, target: string): string | null {
  const [path, anchor] = target.split('#', 2) as [string, string | undefined]
  const file = path === '' ? from : normalize(join(dirname(from), decodeURI(path)))
  if (file.startsWith('..')) return `${target}: outside the repository`
  if (!existsSync(join(root, file))) return `${target}: no file ${file}`
  if (anchor === undefined) return null
  if (!file.endsWith('.md') || statSync(join(root, file)).isDirectory()) return `${target}: an anchor into ${file}, which is no markdown page`
  return headings(file).slugs.has(anchor) ? null : `${target}: ${file} has no heading with the slug "${anchor}"`
}

export function brokenLinks(): string[] {
  const broken: string[] = []
  for (const file of markdown) {
    prose(readFileSync(join(root, file), 'utf8')).forEach((line, i) => {
      for (const m of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
        const target = m[1]!
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue // http:, https:, mailto:
        const wrong = brokenLink(file, target)
        if (wrong) broken.push(`${file}:${i + 1}: ${wrong}`)
      }
    })
  }
  return broken
}

/** Where a markdown file named in the code lives: root-relative, or in docs/ (spec.md, contract.md). */
function resolveCited(path: string): string | null {
  for (const candidate of [normalize(path), join('docs', path)]) if (existsSync(join(root, candidate))) return candidate
  return null
}

const SOURCE = /\.(ts|tsx|js|mjs|css|html|json|service|env|sh|toml)$|^\.ci\//
// These tests spell out the patterns they look for.
const SELF = new Set(['test/docs/links.test.ts'])

/** The given texts, cited by their own labels as well as by headings. */
const LABELLED = new Set(['docs/spec.md', 'docs/contract.md', 'docs/style.md'])
/** A labelled text as a citation names it: no backticks, no `{base_url}` before a path. */
const labelText = (file: string) => readFileSync(join(root, file), 'utf8').replaceAll('`', '').replaceAll('{base_url}', '')

export function brokenCitations(): string[] {
  const broken: string[] = []
  const sources = files.filter((f) => SOURCE.test(f) && !SELF.has(f) && !f.startsWith('docs/') && f !== 'bun.lock' && !f.includes('node_modules/'))
  for (const file of sources) {
    const text = readFileSync(join(root, file), 'utf8')
    // A README citation wrapped onto the next comment line.
    for (const m of text.matchAll(/\bREADME(?:\.md)?[ \t]*\n[ \t]*(?:\*|\/\/|#)?[ \t]*"([^"]+)"/g)) broken.push(`${file}: README "${m[1]}" (wrapped) is no heading of README.md`)
    text.split('\n').forEach((line, i) => {
      const at = `${file}:${i + 1}`
      // `README "Heading"`: the front door's headings are the only README sections left to cite.
      for (const m of line.matchAll(/\bREADME(?:\.md)?\s+"([^"]+)"/g)) {
        if (!headings('README.md').texts.includes(m[1]!)) broken.push(`${at}: README "${m[1]}" is no heading of README.md; cite the docs/ page that says it`)
      }
      for (const m of line.matchAll(/(?<![\w.\/-])((?:[\w-]+\/)*[\w.-]+\.md)(?:#([\w-]+)|\s+"([^"\n]+)")?/g)) {
        const [, path, anchor, quoted] = m as unknown as [string, string, string | undefined, string | undefined]
        const file = resolveCited(path)
        if (!file) {
          broken.push(`${at}: ${path} is no file of the repository`)
          continue
        }
        if (anchor !== undefined && !headings(file).slugs.has(anchor)) broken.push(`${at}: ${file} has no heading with the slug "${anchor}"`)
        // The manual's pages are cited by heading; spec.md, contract.md and style.md also by their
        // own labels ("Delivery rules" 4, "Outbox and leases"), which must at least appear in them.
        if (quoted !== undefined) {
          const own = !LABELLED.has(file)
          const ok = own ? headings(file).texts.includes(quoted) : labelText(file).includes(quoted.replaceAll('`', ''))
          if (!ok) broken.push(`${at}: ${file} has no ${own ? 'heading' : 'text'} "${quoted}"`)
        }
      }
    })
  }
  return broken
}

test('every relative link in README.md and docs/ names a file the repository has and a heading it has', () => {
  expect(markdown).toContain('README.md')
  expect(markdown.length).toBeGreaterThan(10)
  expect(brokenLinks()).toEqual([])
})

test('every markdown file and heading the code cites exists', () => {
  expect(brokenCitations()).toEqual([])
})

test('the checks find what they look for', () => {
  // A link to a real heading, one to a missing heading and one to a missing file.
  expect(brokenLink('README.md', 'docs/errors.md#503-busy')).toBeNull()
  expect(brokenLink('docs/api/restore.md', '../errors.md#body-shapes')).toBeNull()
  expect(brokenLink('README.md', 'docs/errors.md#no-such-heading')).toContain('no heading with the slug')
  expect(brokenLink('README.md', 'docs/no-such-page.md')).toContain('no file docs/no-such-page.md')
  expect(relative(root, join(root, resolveCited('spec.md')!))).toBe('docs/spec.md')
})
