/**
 * Module boundaries of src/ (docs/ARCHITECTURE.md, "Module rules"), checked by dependency-cruiser:
 * `npm run lint:deps`, in CI before the tests, and by test/module-boundaries.test.ts under `npm test`.
 * A module is a folder directly under src/ (src/scans, src/runs, ...); the files directly in src/
 * (app.ts, main.ts, app-context.ts, config.ts) are the composition root that wires them.
 */

/** Driver and query-builder packages: only the store layer (src/db) and `*.queries.ts` touch them. */
const SQL_PACKAGES = '^node_modules/(kysely|pg|pg-[a-z-]+|@electric-sql/pglite)/';
/** HTTP framework packages: routes, src/http, the MCP endpoint and the composition root only. */
const HTTP_PACKAGES = '^node_modules/(fastify|@fastify/[^/]+|fastify-plugin|light-my-request)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No file-level import cycle, type-only imports included: move the shared part down.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-circular-modules',
      comment:
        'No cycle between modules (folders directly under src/): one of them must sit below the other. ' +
        'Invert the dependency (a port passed in, as ScanDeps.recordNamedTargets) or move the shared part down.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/[^/]+$' },
      to: { path: '^src/[^/]+$', circular: true },
    },
    {
      name: 'engine-imports-only-engine-contract',
      comment:
        'An engine folder imports only src/engines/engine.ts, its own folder, the shared parsers of ' +
        'src/engines/importers/, src/shared/ and npm packages: no sibling engine, no store, no HTTP module.',
      severity: 'error',
      from: { path: '^src/engines/([^/]+)/' },
      to: {
        path: '^src/',
        pathNot: ['^src/engines/engine\\.ts$', '^src/engines/$1/', '^src/engines/importers/', '^src/shared/'],
      },
    },
    {
      name: 'engine-contract-imports-only-shared',
      comment: 'src/engines/engine.ts (the contract every engine imports) depends on src/shared/ only.',
      severity: 'error',
      from: { path: '^src/engines/engine\\.ts$' },
      to: { path: '^src/', pathNot: '^src/shared/' },
    },
    {
      name: 'engine-registry-imports-only-engines',
      comment: 'Files directly in src/engines/ (the registry) import engines and src/shared/ only.',
      severity: 'error',
      from: { path: '^src/engines/[^/]+\\.ts$', pathNot: '^src/engines/engine\\.ts$' },
      to: { path: '^src/', pathNot: ['^src/engines/', '^src/shared/'] },
    },
    {
      name: 'agent-imports-only-engines-and-shared',
      comment:
        'The local agent (src/agent/, bundled into the file users run inside their network) imports ' +
        'engines and src/shared/ only: no store, no HTTP module, nothing of the service.',
      severity: 'error',
      from: { path: '^src/agent/' },
      to: { path: '^src/', pathNot: ['^src/agent/', '^src/engines/', '^src/shared/'] },
    },
    {
      name: 'agent-no-server-package',
      comment: 'The agent bundle stays small and server-free: no HTTP framework, no database package, no pino.',
      severity: 'error',
      from: { path: '^src/agent/' },
      to: { path: [HTTP_PACKAGES, SQL_PACKAGES, '^node_modules/pino'] },
    },
    {
      name: 'nothing-imports-agent',
      comment: 'Nothing of the service imports the agent: the service only serves its built bundle (dist/agent/agent.cjs).',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/agent/' },
      to: { path: '^src/agent/' },
    },
    {
      name: 'engine-no-http-or-sql-package',
      comment: 'Engines use no HTTP framework and no database package, not even for types.',
      severity: 'error',
      from: { path: '^src/engines/' },
      to: { path: [HTTP_PACKAGES, SQL_PACKAGES] },
    },
    {
      name: 'sql-only-in-queries',
      comment:
        "SQL lives in *.queries.ts (and src/db/): other files may import kysely's types (import type), " +
        'never its values (the sql tag, the builders) nor a driver.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['\\.queries\\.ts$', '^src/db/'] },
      to: { path: SQL_PACKAGES, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'queries-only-from-own-module',
      comment: "A module uses another through its service: src/<a>/ never imports src/<b>/*.queries.ts.",
      severity: 'error',
      from: { path: '^src/([^/]+)/' },
      to: { path: '\\.queries\\.ts$', pathNot: '^src/$1/' },
    },
    {
      name: 'queries-not-from-root',
      comment: 'The composition root (files directly in src/) uses modules through their services too.',
      severity: 'error',
      from: { path: '^src/[^/]+\\.ts$' },
      to: { path: '\\.queries\\.ts$' },
    },
    {
      name: 'service-no-http',
      comment: 'Services know nothing of HTTP: no Fastify, no routes; they throw AppError.',
      severity: 'error',
      from: { path: '\\.service\\.ts$' },
      to: { path: [HTTP_PACKAGES, '\\.routes\\.ts$', '^src/http/(error-handler|rate-limit|input-guard|openapi)\\.ts$'] },
    },
    {
      name: 'modules-not-to-root',
      comment:
        'Modules never import the composition root (app.ts, main.ts, app-context.ts); config.ts is shared. ' +
        'src/cli/ is the entry point the root starts from (serve builds the app).',
      severity: 'error',
      from: { path: '^src/[^/]+/', pathNot: '^src/cli/' },
      to: { path: '^src/(app|main|app-context)\\.ts$' },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'Every import resolves, so no rule above passes by not seeing a file.',
      severity: 'error',
      from: { path: '^src/' },
      to: { couldNotResolve: true },
    },
    {
      name: 'not-to-dev-dependency',
      comment: 'src/ ships: it may not need a devDependency at run time (type-only imports are erased).',
      severity: 'error',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    // npm packages are leaves: their own imports are not ours to check, and following them is slow.
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count: a type is a dependency too (only sql-only-in-queries lets them through).
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
