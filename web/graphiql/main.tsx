// GraphiQL 4, bundled with React 19 and served from /assets/graphiql/: no CDN, works offline, no eval (CSP-safe).
import { createRoot } from 'react-dom/client';
import { GraphiQL } from 'graphiql';
import { createGraphiQLFetcher, type Fetcher } from '@graphiql/toolkit';
import 'graphiql/style.css';
import '../shared/topbar.css';
import './graphiql.css';
import { authFetch } from './authFetch';
import { EXAMPLE_TABS } from './examples';
import { effectiveOperationName } from './operationName';

const httpFetcher = createGraphiQLFetcher({
  url: new URL('/graphql', window.location.origin).href,
  // Cairn answers plain JSON (no @defer/@stream), so the multipart fetcher would only add weight.
  enableIncrementalDelivery: false,
  fetch: authFetch,
});
const fetcher: Fetcher = (params, opts) =>
  httpFetcher({ ...params, operationName: effectiveOperationName(params.query, params.operationName) }, opts);

const container = document.getElementById('graphiql');
if (!container) throw new Error('index.html has no #graphiql element');
container.textContent = '';
createRoot(container).render(
  <GraphiQL
    fetcher={fetcher}
    defaultTabs={EXAMPLE_TABS}
    defaultEditorToolsVisibility="variables"
    isHeadersEditorEnabled
  >
    <GraphiQL.Logo>
      <a className="cairn-graphiql-logo" href="/knowledge" title="Back to the knowledge pages">
        Cairn
      </a>
    </GraphiQL.Logo>
  </GraphiQL>,
);
