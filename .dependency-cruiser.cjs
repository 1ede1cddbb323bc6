/**
 * Cairn's module boundaries (docs/architecture.md#dependency-rules), checked by `npm run lint:deps` in `npm test`.
 * Type-only imports count: a boundary holds for types too.
 * @type {import('dependency-cruiser').IConfiguration}
 */
const CORE = '^src/(documents|retrieval|graph|db|embeddings|enrichment|chunking)/';

module.exports = {
  forbidden: [
    {
      name: 'resolvable',
      severity: 'error',
      comment: 'An import the cruiser cannot resolve would slip past every rule below.',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'A cycle makes two modules one: neither can change or be tested without the other.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'postgres-only-in-db',
      severity: 'error',
      comment: 'Only src/db/ talks to pg, pgvector and PGlite; everything else uses the Db interface.',
      from: { pathNot: '^src/db/' },
      to: {
        dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer'],
        path: '^node_modules/(@types/)?(pg|pg-[^/]+|pgvector|@electric-sql/pglite[^/]*)/',
      },
    },
    {
      name: 'neo4j-only-in-graph-neo4j',
      severity: 'error',
      comment: 'Only src/graph/neo4j/ talks to neo4j-driver; everything else uses GraphStore.',
      from: { pathNot: '^src/graph/neo4j/' },
      to: { path: '^node_modules/neo4j-driver[^/]*/' },
    },
    {
      name: 'core-not-edge',
      severity: 'error',
      comment: 'Domain modules (and auth) do not depend on the API, the server, the CLI or the composition root.',
      from: { path: [CORE, '^src/auth/'] },
      to: { path: '^src/(graphql/|mcp/|server/|cli/|services\\.ts$)' },
    },
    {
      name: 'shared-is-a-leaf',
      severity: 'error',
      comment: 'src/shared/ holds helpers every module may use, so it depends on nothing of Cairn but src/errors.ts.',
      from: { path: '^src/shared/' },
      to: { path: '^(src|importers|web)/', pathNot: '^src/(shared/|errors\\.ts$)' },
    },
    {
      name: 'importers-through-port',
      severity: 'error',
      comment:
        'Importers use of src/ only their port, src/importerPort.ts, and the leaves every module may use (src/errors.ts, src/shared/); the composition root hands them the services.',
      from: { path: '^importers/' },
      to: { path: '^src/', pathNot: '^src/(importerPort\\.ts$|errors\\.ts$|shared/)' },
    },
    {
      name: 'core-not-importers',
      severity: 'error',
      comment: 'The core of src/ knows nothing of importers; importers build on it.',
      from: { path: CORE },
      to: { path: '^importers/' },
    },
    {
      name: 'importers-through-index',
      severity: 'error',
      comment: 'src/ reaches importers only through their public entry, importers/index.ts.',
      from: { path: '^src/' },
      to: { path: '^importers/', pathNot: '^importers/index\\.ts$' },
    },
    {
      name: 'importers-only-from-the-edge',
      severity: 'error',
      comment: 'Only the edge of src/ uses importers: the composition root, GraphQL, MCP, the CLI and the server.',
      from: { path: '^src/', pathNot: '^src/(services\\.ts$|graphql/|mcp/|cli/|server/)' },
      to: { path: '^importers/' },
    },
    {
      name: 'api-through-services',
      severity: 'error',
      comment:
        'GraphQL resolvers and MCP tools call services: never a repository, the graph store or its traversals (the generated types may name their records).',
      from: { path: '^src/(graphql|mcp)/', pathNot: '^src/graphql/generated/' },
      to: {
        path: ['Repository\\.ts$', '^src/graph/(GraphStore|traversal)\\.ts$', '^src/graph/(mentions|postgres|neo4j)/'],
      },
    },
    {
      name: 'web-only-generated-types-from-src',
      severity: 'error',
      comment: 'The admin pages are a browser bundle: from src/ they may use only the generated GraphQL types.',
      from: { path: '^web/' },
      to: { path: '^src/', pathNot: '^src/graphql/generated/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // 'typings' resolves type-only packages such as @graphql-typed-document-node/core (the generated page types).
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    cache: false,
  },
};
