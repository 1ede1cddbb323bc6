import { describe, expect, it } from '@jest/globals';
import type { DocumentTypeName } from '../../../src/documents/types.js';
import { detectDocumentType } from '../../../importers/url/detectDocumentType.js';

const expectType = (type: DocumentTypeName, urls: string[]) => {
  for (const url of urls) expect([url, detectDocumentType(url)]).toEqual([url, type]);
};

describe('detectDocumentType', () => {
  it('api_spec: an /api/ segment, spec-like api segments and OpenAPI documents', () => {
    expectType('api_spec', [
      'https://example.com/api/',
      'https://example.com/docs/api/charges',
      'https://example.com/API/v1',
      'https://example.com/api-docs',
      'https://example.com/api-v2/users',
      'https://example.com/v1/openapi.json',
      'https://example.com/swagger.yaml',
    ]);
    expect(detectDocumentType('https://example.com/spec.yaml', { isOpenApi: true })).toBe('api_spec');
  });

  it('faq: /faq, /faqs and faq pages', () => {
    expectType('faq', [
      'https://example.com/faq',
      'https://example.com/FAQs/',
      'https://example.com/help/faq.html',
      'https://example.com/faq-billing',
    ]);
  });

  it('policy: /policy, /policies, /legal and *-policy pages', () => {
    expectType('policy', [
      'https://example.com/policy',
      'https://example.com/policies/retention',
      'https://example.com/legal/imprint',
      'https://example.com/privacy-policy',
    ]);
  });

  it('tutorial: /tutorial, /guide, /getting-started, /how-to', () => {
    expectType('tutorial', [
      'https://example.com/tutorials/intro',
      'https://example.com/docs/guide/install',
      'https://example.com/guides',
      'https://example.com/getting-started',
      'https://example.com/how-to/rotate-keys',
      'https://example.com/kb/how-to-reset-a-password',
    ]);
  });

  it('manual: /runbook, /manual, /procedures, /sop', () => {
    expectType('manual', [
      'https://wiki.example.com/runbooks/ach-failures',
      'https://example.com/manual/ch3.pdf',
      'https://example.com/procedures/close-month',
      'https://example.com/sop/42',
    ]);
  });

  it('reference: /reference', () => {
    expectType('reference', ['https://example.com/reference/cli', 'https://example.com/docs/references']);
  });

  it('other: everything else, including look-alike words, hosts and query strings', () => {
    expectType('other', [
      'https://example.com/',
      'https://example.com/blog/release-notes',
      'https://example.com/guidelines',
      'https://example.com/faqtory',
      'https://example.com/policymakers',
      'https://example.com/api-keys',
      'https://example.com/soprano',
      'https://faq.example.com/',
      'https://example.com/search?q=faq#faq',
    ]);
  });

  it('the deepest matching segment wins; within one segment the first rule; an OpenAPI body wins over the path', () => {
    expect(detectDocumentType('https://example.com/legal/faq')).toBe('faq');
    expect(detectDocumentType('https://example.com/faq/refund-policy')).toBe('policy');
    expect(detectDocumentType('https://example.com/api/guides/pagination')).toBe('tutorial');
    expect(detectDocumentType('https://example.com/reference/api')).toBe('api_spec');
    expect(detectDocumentType('https://example.com/docs/api-reference')).toBe('api_spec');
    expect(detectDocumentType('https://example.com/faq', { isOpenApi: true })).toBe('api_spec');
    expect(detectDocumentType('https://example.com/faq', { isOpenApi: false })).toBe('faq');
  });

  it('accepts bare paths and file URLs', () => {
    expect(detectDocumentType('/runbooks/restart.md')).toBe('manual');
    expect(detectDocumentType('file:///handbook/Getting-Started.md')).toBe('tutorial');
    expect(detectDocumentType('file:///notes/todo.txt')).toBe('other');
  });
});
