// The operations GraphiQL opens with, one tab each: a tour of the API that runs as-is, in any order and again, on a
// fresh or a used store (writes are upserts by stable id).
// Plain data, without GraphiQL's types, so a Node test can run every tab against a real server.

/** One tab as GraphiQL's `defaultTabs` takes it. */
export interface TabDefinition {
  query: string;
  variables?: string;
}

const upsertDocuments = `# Write documents by stable id: each is chunked, embedded and searchable when this returns.
# Press the run button (or Ctrl-Enter); run it again and nothing is re-embedded (embeddedChunkCount: 0).
# The Docs panel on the left documents every type.
mutation UpsertDocuments {
  upsertDocuments(input: [{
    id: "runbook:ach-failures"
    title: "ACH failures"
    content: "ACH payments fail when the receiving bank rejects the transfer. Verify the routing number, then retry."
    documentType: MANUAL
    tags: ["payments", "ach"]
  }]) {
    chunkCount
    embeddedChunkCount
    document { id title tags createdAt }
  }
}
`;

const search = `# Ranked chunks: VECTOR, KEYWORD or HYBRID (both fused). Tag expressions: a+b both, a|b either.
query Search($q: String!) {
  search(input: { query: $q, topK: 5, mode: HYBRID, filter: { tags: "payments|billing" } }) {
    score
    vectorScore
    keywordScore
    document { id title }
    chunk { ordinal content }
  }
}
`;

const enrichContext = `# Context for an agent's system prompt: documents and graph, cited and within a budget.
query Enrich($q: String!) {
  enrichContext(input: { query: $q, topK: 5, maxEntities: 5, maxChars: 4000 }) {
    context
    citations { number documentId title url }
    entities { why depth entity { id name } }
    truncated
    warnings
  }
}
`;

const entityNeighbors = `# An entity with its neighbourhood (create some with upsertGraph first).
query EntityNeighbors($id: ID!) {
  entity(id: $id) {
    id
    type
    name
    neighbors(depth: 2, direction: BOTH, limit: 20) {
      depth
      entity { id type name }
      relationship { type from { id } to { id } }
    }
    documents(first: 5) { id title }
  }
  graphStats { entityCount relationshipCount }
}
`;

const importUrl = `# Import a web page (HTML becomes markdown), a file or an OpenAPI spec by URL.
# With async: true the job comes back QUEUED; poll importJob(id) for progress.
mutation ImportUrl($url: String!) {
  importUrl(input: { url: $url, tags: ["imported"], async: true }) {
    job { id status progress { done total } errors { item code message } }
  }
}
`;

/** The default tabs: upsertDocuments, search, enrichContext, an entity with its neighbours, importUrl. */
export const EXAMPLE_TABS: TabDefinition[] = [
  { query: upsertDocuments },
  { query: search, variables: JSON.stringify({ q: 'why did the ACH payment fail?' }, null, 2) },
  { query: enrichContext, variables: JSON.stringify({ q: 'how do I retry a failed ACH payment?' }, null, 2) },
  { query: entityNeighbors, variables: JSON.stringify({ id: 'svc:payments' }, null, 2) },
  { query: importUrl, variables: JSON.stringify({ url: 'https://docs.example.com/guide/getting-started' }, null, 2) },
];
