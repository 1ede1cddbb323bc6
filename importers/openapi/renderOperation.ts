import type { BodyInfo, MediaInfo, OperationInfo, ResponseInfo } from './operations.js';
import { oneLine, renderSchemaFields, schemaDetails, schemaLabel, type SchemaRenderContext } from './renderSchema.js';
import { asJson, asString, type Json } from './types.js';

/**
 * Document title: `GET /pets/{petId} — Info for a specific pet (showPetById)`, or `Webhook newPet (POST) — …`. The label
 * is the first sentence of the summary (else of the description), as plain text; the operationId follows, so both
 * identifiers sit in the title, which search weighs most.
 */
export function operationTitle(op: OperationInfo): string {
  const head = op.kind === 'webhook' ? `Webhook ${op.path} (${op.method})` : `${op.method} ${op.path}`;
  const label = firstSentence(plainText(op.summary ?? op.description ?? ''));
  const id = op.operationId && !label.includes(op.operationId) ? op.operationId : undefined;
  const tail = [label, id ? `(${id})` : ''].filter((x) => x !== '').join(' ');
  return tail ? `${head} — ${tail}` : head;
}

/** Markdown reduced to its text: links to their labels, code, emphasis and heading marks dropped. */
function plainText(markdown: string): string {
  return oneLine(
    markdown
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<[^>]+>/g, ' ')
      .replace(/[`*~]+|^#+\s*/gm, ''),
    2000,
  );
}

/** The first sentence, at most 160 characters. */
function firstSentence(text: string): string {
  const match = /^(.+?[.!?])(\s|$)/u.exec(text);
  const sentence = (match?.[1] ?? text).replace(/[.]$/u, '');
  return oneLine(sentence, 160);
}

function cell(text: string): string {
  return oneLine(text, 300).replace(/\|/g, '\\|') || ' ';
}

/** `oauth2 (read:pets, write:pets) or api_key`; `none` for an explicit empty requirement. */
export function securityText(security: Json[] | undefined): string | undefined {
  if (!security) return undefined;
  if (security.length === 0) return 'none';
  return security
    .map((req) => {
      const entries = Object.entries(req);
      if (entries.length === 0) return 'anonymous';
      return entries
        .map(([name, scopes]) => {
          const list = Array.isArray(scopes) ? scopes.filter((s): s is string => typeof s === 'string') : [];
          return list.length > 0 ? `${name} (${list.join(', ')})` : name;
        })
        .join(' and ');
    })
    .join(' or ');
}

function renderMedia(lines: string[], media: MediaInfo[], ctx: SchemaRenderContext): void {
  for (const m of media) {
    lines.push('', `${m.mediaTypes.map((t) => `\`${t}\``).join(', ')}: ${schemaLabel(m.schema, ctx.refs)}`);
    const fields = renderSchemaFields(m.schema, ctx);
    if (fields.length > 0) lines.push(...fields);
    else {
      const details = schemaDetails(m.schema, ctx.refs);
      if (details) lines.push(details);
    }
  }
}

function renderBody(lines: string[], body: BodyInfo, ctx: SchemaRenderContext): void {
  lines.push('', `## Request body${body.required ? ' (required)' : ''}`);
  if (body.description) lines.push('', body.description.trim());
  renderMedia(lines, body.media, ctx);
}

function renderResponse(lines: string[], r: ResponseInfo, ctx: SchemaRenderContext): void {
  lines.push('', `### ${r.status}${r.description ? ` — ${oneLine(r.description, 200)}` : ''}`);
  if (r.description && oneLine(r.description, 10_000).length > 200) lines.push('', r.description.trim());
  if (r.headers.length > 0) {
    lines.push('', 'Headers:');
    for (const h of r.headers)
      lines.push(
        `- ${h.name} (${schemaLabel(h.schema, ctx.refs)})${h.description ? `: ${oneLine(h.description)}` : ''}`,
      );
  }
  renderMedia(lines, r.media, ctx);
  if (r.links.length > 0) {
    lines.push('', 'Links:');
    for (const l of r.links) {
      const params = l.parameters.map(([k, v]) => `${k} = ${v}`).join(', ');
      lines.push(
        `- ${l.name}${l.target ? ` → ${l.target}` : ''}${params ? ` (${params})` : ''}${l.description ? `: ${oneLine(l.description)}` : ''}`,
      );
    }
  }
}

function renderParameters(lines: string[], op: OperationInfo, ctx: SchemaRenderContext): void {
  if (op.parameters.length === 0) return;
  lines.push(
    '',
    '## Parameters',
    '',
    '| Name | In | Required | Type | Description |',
    '| --- | --- | --- | --- | --- |',
  );
  for (const p of op.parameters) {
    const description = schemaDetails(p.schema, ctx.refs, p.description) + (p.deprecated ? ' (deprecated)' : '');
    lines.push(
      `| ${cell(p.name)} | ${cell(p.in)} | ${p.required ? 'yes' : 'no'} | ${cell(schemaLabel(p.schema, ctx.refs))} | ${cell(description)} |`,
    );
  }
}

function renderCallbacks(lines: string[], op: OperationInfo, ctx: SchemaRenderContext): void {
  if (op.callbacks.length === 0) return;
  lines.push('', '## Callbacks');
  for (const cb of op.callbacks) {
    for (const c of cb.operations) {
      const summary = oneLine(c.summary ?? c.description ?? '', 200);
      lines.push('', `### ${cb.name}: ${c.method} ${cb.expression}${summary ? ` — ${summary}` : ''}`);
      if (c.body) {
        lines.push(
          '',
          `Request body${c.body.required ? ' (required)' : ''}${c.body.description ? `: ${oneLine(c.body.description)}` : ''}`,
        );
        renderMedia(lines, c.body.media, ctx);
      }
      if (c.responses.length > 0) {
        lines.push(
          '',
          `Expected responses: ${c.responses.map((r) => `${r.status}${r.description ? ` (${oneLine(r.description, 120)})` : ''}`).join('; ')}`,
        );
      }
    }
  }
}

/** Markdown for one operation: header facts, description, parameters, body, responses, callbacks. */
export function renderOperation(
  op: OperationInfo,
  api: { title: string; version: string },
  ctx: SchemaRenderContext,
): string {
  const lines: string[] = [`# ${operationTitle(op)}`, ''];
  if (op.kind === 'webhook') lines.push(`- Webhook: ${op.path} (the API calls you with ${op.method})`);
  else lines.push(`- Method: ${op.method}`, `- Path: ${op.path}`);
  if (op.operationId) lines.push(`- Operation ID: ${op.operationId}`);
  if (op.tags.length > 0) lines.push(`- Tags: ${op.tags.join(', ')}`);
  lines.push(`- API: ${api.title}${api.version ? ` ${api.version}` : ''}`);
  const security = securityText(op.security);
  if (security) lines.push(`- Security: ${security}`);
  if (op.deprecated) lines.push('- Deprecated: yes — avoid in new code');
  const externalDocs = asJson(op.raw.externalDocs);
  const docsUrl = asString(externalDocs?.url);
  if (docsUrl) lines.push(`- Documentation: ${docsUrl}`);
  if (op.summary) lines.push('', op.summary);
  if (op.description) lines.push('', op.description.trim());
  renderParameters(lines, op, ctx);
  if (op.body) renderBody(lines, op.body, ctx);
  if (op.responses.length > 0) {
    lines.push('', '## Responses');
    for (const r of op.responses) renderResponse(lines, r, ctx);
  }
  renderCallbacks(lines, op, ctx);
  if (ctx.budget.truncated)
    lines.push('', '_Some schema fields were left out: this operation is too large to list completely._');
  return `${lines.join('\n').trim()}\n`;
}
