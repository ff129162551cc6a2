/**
 * The layer rule of docs/architecture.md, checked by test/architecture/imports.test.ts:
 * core imports only db (and libraries), and runs no SQL of its own; api, dispatcher and cli import
 * core and db, never each other; nothing imports the api or the dispatcher; no circle between
 * files at run time.
 */
module.exports = {
  forbidden: [
    { name: 'core-stands-on-db-only', severity: 'error', comment: 'core/ is shared by every process: it may import db/ and libraries, nothing of api/, dispatcher/, cli/, scripts/ or web/',
      from: { path: '^core/' }, to: { path: '^(api|dispatcher|cli|scripts|web|receiver)/' } },
    { name: 'core-runs-no-sql', severity: 'error', comment: 'core/ awaits its store (docs/architecture.md "The store is async"): no bun:sqlite, no drizzle query builder, no drizzle table or outbox statement of db/ (their types are fine); every query is a named async operation of db/',
      from: { path: '^core/' }, to: { path: '^bun:sqlite$|^drizzle-orm|node_modules/drizzle-orm/|^db/(schema\\.ts$|outbox/)', dependencyTypesNot: ['type-only'] } },
    { name: 'db-stands-alone', severity: 'error', comment: 'db/ is the bottom layer',
      from: { path: '^db/' }, to: { path: '^(core|api|dispatcher|cli|scripts|web)/' } },
    { name: 'api-not-dispatcher-or-cli', severity: 'error', comment: 'the HTTP layer and the worker share core/, never each other',
      from: { path: '^api/' }, to: { path: '^(dispatcher|cli|scripts)/' } },
    { name: 'dispatcher-not-api-or-cli', severity: 'error', comment: 'the dispatcher never loads the HTTP layer (nor Elysia through it)',
      from: { path: '^dispatcher/' }, to: { path: '^(api|cli|scripts)/' } },
    { name: 'cli-not-api-or-dispatcher', severity: 'error', comment: 'the CLI calls the same core functions the api does',
      from: { path: '^cli/' }, to: { path: '^(api|dispatcher)/' } },
    { name: 'no-elysia-below-api', severity: 'error', comment: 'Elysia is the HTTP layer\'s alone',
      from: { path: '^(core|db|dispatcher|cli)/' }, to: { path: 'node_modules/(elysia|@elysiajs)/' } },
    { name: 'no-run-time-circle', severity: 'error', comment: 'a circle between files at run time (type-only imports do not count)',
      from: { path: '^(core|db|api|dispatcher|cli|scripts|receiver)/' }, to: { circular: true, dependencyTypesNot: ['type-only'], viaOnly: { dependencyTypesNot: ['type-only'] } } },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(test|bench|node_modules|receiver/dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['bun', 'import', 'require', 'node', 'default'], extensions: ['.ts', '.tsx', '.js', '.mjs', '.json'] },
  },
}
