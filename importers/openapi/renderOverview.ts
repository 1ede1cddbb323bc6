import type { OperationInfo } from './operations.js';
import { securityText } from './renderOperation.js';
import { oneLine } from './renderSchema.js';
import type { SpecRefs } from './SpecRefs.js';
import { asArray, asJson, asString, type Json, type LoadedSpec } from './types.js';

const MAX_LISTED_SCHEMAS = 300;

/** A relative server URL (`/v1`) is relative to where the spec was served from. */
function absoluteServer(url: string, sourceUrl: string | null): string {
  if (!sourceUrl || !/^https?:/i.test(sourceUrl) || /^[a-z][a-z0-9+.-]*:|^\{/i.test(url)) return url;
  try {
    return new URL(url, sourceUrl).href;
  } catch {
    return url;
  }
}

/** Servers as `url — description` lines (3.x `servers`, or 2.0 schemes × host + basePath). */
export function serverList(doc: Json, v2: boolean, sourceUrl: string | null = null): string[] {
  if (v2) {
    const host = asString(doc.host);
    if (!host) return [];
    const schemes = asArray(doc.schemes).filter((s): s is string => typeof s === 'string');
    const base = asString(doc.basePath) ?? '';
    return (schemes.length > 0 ? schemes : ['https']).map((s) => `${s}://${host}${base}`);
  }
  return asArray(doc.servers).flatMap((s) => {
    const server = asJson(s);
    const written = asString(server?.url);
    if (!server || !written) return [];
    const url = absoluteServer(written, sourceUrl);
    const vars = Object.entries(asJson(server.variables) ?? {}).map(([k, v]) => {
      const values = asArray(asJson(v)?.enum).map(String);
      return `${k}: ${values.length > 0 ? values.join(' | ') : String(asJson(v)?.default ?? '')}`;
    });
    const description = asString(server.description);
    return [
      `${url}${description ? ` — ${oneLine(description, 200)}` : ''}${vars.length > 0 ? ` (${vars.join('; ')})` : ''}`,
    ];
  });
}

function describeScheme(name: string, s: Json): string {
  const type = asString(s.type) ?? 'unknown';
  const parts: string[] = [];
  if (type === 'apiKey') parts.push(`API key in ${asString(s.in) ?? '?'} "${asString(s.name) ?? '?'}"`);
  else if (type === 'http')
    parts.push(
      `HTTP ${asString(s.scheme) ?? ''}${asString(s.bearerFormat) ? ` (${asString(s.bearerFormat)})` : ''}`.trim(),
    );
  else if (type === 'basic') parts.push('HTTP basic');
  else if (type === 'openIdConnect') parts.push(`OpenID Connect (${asString(s.openIdConnectUrl) ?? '?'})`);
  else if (type === 'oauth2') {
    // 3.x nests flows; 2.0 has one flow with its URLs and scopes at the top level.
    const flows = asJson(s.flows) ?? { [asString(s.flow) ?? 'flow']: s };
    for (const [flow, f] of Object.entries(flows)) {
      const fj = asJson(f) ?? {};
      const urls = [asString(fj.authorizationUrl), asString(fj.tokenUrl)].filter(Boolean).join(', ');
      const scopes = Object.entries(asJson(fj.scopes) ?? {}).map(([k, v]) =>
        asString(v) ? `${k} (${oneLine(asString(v), 80)})` : k,
      );
      parts.push(
        `OAuth2 ${flow}${urls ? ` via ${urls}` : ''}${scopes.length > 0 ? `; scopes: ${scopes.join(', ')}` : ''}`,
      );
    }
  } else parts.push(type);
  const description = asString(s.description);
  return `- ${name}: ${parts.join('; ')}${description ? ` — ${oneLine(description)}` : ''}`;
}

/** Declared tags (with descriptions) followed by tags only operations mention, in first-seen order. */
export function tagCatalogue(doc: Json, ops: OperationInfo[]): { name: string; description?: string }[] {
  const out = new Map<string, { name: string; description?: string }>();
  for (const t of asArray(doc.tags)) {
    const name = asString(asJson(t)?.name);
    const description = asString(asJson(t)?.description);
    if (name && !out.has(name)) out.set(name, { name, ...(description ? { description } : {}) });
  }
  for (const op of ops) for (const name of op.tags) if (!out.has(name)) out.set(name, { name });
  return [...out.values()];
}

/** Markdown for the spec's overview document. */
export function renderOverview(spec: LoadedSpec, refs: SpecRefs, ops: OperationInfo[], title: string): string {
  const doc = spec.document;
  const v2 = spec.specVersion === '2.0';
  const info = asJson(doc.info) ?? {};
  const lines: string[] = [`# ${title}`, ''];
  lines.push(
    `- API version: ${spec.apiVersion || 'unspecified'}`,
    `- Specification: ${v2 ? 'Swagger' : 'OpenAPI'} ${spec.declaredVersion}`,
  );
  if (spec.sourceUrl) lines.push(`- Source: ${spec.sourceUrl}`);
  const contact = asJson(info.contact);
  const contactText = [asString(contact?.name), asString(contact?.email), asString(contact?.url)]
    .filter(Boolean)
    .join(', ');
  if (contactText) lines.push(`- Contact: ${contactText}`);
  const license = asJson(info.license);
  if (asString(license?.name))
    lines.push(`- License: ${asString(license?.name)}${asString(license?.url) ? ` (${asString(license?.url)})` : ''}`);
  if (asString(info.termsOfService)) lines.push(`- Terms of service: ${asString(info.termsOfService)}`);
  const webhooks = ops.filter((o) => o.kind === 'webhook');
  const operations = ops.filter((o) => o.kind === 'operation');
  lines.push(`- Operations: ${operations.length}${webhooks.length > 0 ? `; webhooks: ${webhooks.length}` : ''}`);
  if (asString(info.summary)) lines.push('', asString(info.summary)!);
  if (asString(info.description)) lines.push('', asString(info.description)!.trim());

  const servers = serverList(doc, v2, spec.sourceUrl);
  if (servers.length > 0) lines.push('', '## Servers', '', ...servers.map((s) => `- ${s}`));

  const schemes = asJson(v2 ? doc.securityDefinitions : asJson(doc.components)?.securitySchemes) ?? {};
  const global = securityText(asArray(doc.security).filter((s): s is Json => asJson(s) !== undefined));
  if (Object.keys(schemes).length > 0 || (Array.isArray(doc.security) && global)) {
    lines.push('', '## Authentication', '');
    for (const [name, s] of Object.entries(schemes)) lines.push(describeScheme(name, refs.deref(s) ?? {}));
    if (Array.isArray(doc.security) && global) lines.push('', `Required by default: ${global}`);
  }

  const tags = tagCatalogue(doc, ops);
  if (tags.length > 0) {
    lines.push('', '## Tags', '');
    for (const t of tags) {
      const count = ops.filter((o) => o.tags.includes(t.name)).length;
      lines.push(
        `- ${t.name} (${count} operation${count === 1 ? '' : 's'})${t.description ? `: ${oneLine(t.description)}` : ''}`,
      );
    }
  }
  const list = (o: OperationInfo) => {
    const label = oneLine(o.summary ?? '', 160);
    const head = o.kind === 'webhook' ? `${o.path} (${o.method})` : `${o.method} ${o.path}`;
    return `- ${head}${label ? ` — ${label}` : ''}${o.operationId ? ` (${o.operationId})` : ''}${o.deprecated ? ' [deprecated]' : ''}`;
  };
  if (operations.length > 0) lines.push('', `## Operations (${operations.length})`, '', ...operations.map(list));
  if (webhooks.length > 0) lines.push('', `## Webhooks (${webhooks.length})`, '', ...webhooks.map(list));
  const schemas = refs.namedSchemas().map(([name]) => name);
  // Every schema is also a graph entity; the overview names the first few hundred.
  if (schemas.length > 0)
    lines.push(
      '',
      `## Schemas (${schemas.length})`,
      '',
      schemas.slice(0, MAX_LISTED_SCHEMAS).join(', ') +
        (schemas.length > MAX_LISTED_SCHEMAS ? `, … and ${schemas.length - MAX_LISTED_SCHEMAS} more` : ''),
    );
  const docs = asJson(doc.externalDocs);
  if (asString(docs?.url))
    lines.push(
      '',
      `More documentation: ${asString(docs?.url)}${asString(docs?.description) ? ` — ${oneLine(asString(docs?.description))}` : ''}`,
    );
  return `${lines.join('\n').trim()}\n`;
}
