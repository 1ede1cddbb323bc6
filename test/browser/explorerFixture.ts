// The explorer's fixture graph: a small platform (services, teams, databases, concepts), two documents,
// one orphan (mentioned, but with no relationship) and one entity no document mentions.
import type { TestServer } from '../helpers/testServer.js';
import { gqlOk, upsertGraphInBatches } from './explorerSupport.js';

/** Ids the tests look for. */
export const FIXTURE = {
  payments: 'svc:payments',
  fraud: 'svc:fraud',
  riskTeam: 'team:risk',
  shipping: 'svc:shipping',
  kyc: 'concept:kyc',
  ledgerDb: 'db:ledger',
  orphan: 'concept:quantum',
  unmentioned: 'svc:dormant',
  runbook: 'runbook:payments/failures',
} as const;

const E = (id: string, type: string, name: string, extra: Record<string, unknown> = {}) => ({
  id,
  type,
  name,
  ...extra,
});

const ENTITIES = [
  E('svc:payments', 'Service', 'Payments API', {
    aliases: ['pay-api', 'payments'],
    description: 'Takes card and ACH payments for checkout.',
    properties: { tier: 1, language: 'TypeScript', oncall: { rotation: 'payments-primary', pager: true } },
  }),
  E('svc:ledger', 'Service', 'Ledger'),
  E('svc:billing', 'Service', 'Billing'),
  E('svc:invoices', 'Service', 'Invoices'),
  E('svc:auth', 'Service', 'Auth Gateway', { aliases: ['sso'] }),
  E('svc:notifications', 'Service', 'Notifications'),
  E('svc:search', 'Service', 'Search Indexer'),
  E('svc:reports', 'Service', 'Reporting'),
  E('svc:fraud', 'Service', 'Fraud Scoring'),
  E('svc:checkout', 'Service', 'Checkout'),
  E('svc:catalog', 'Service', 'Catalog'),
  E('svc:shipping', 'Service', 'Shipping'),
  E('svc:dormant', 'Service', 'Dormant Cron Runner', { description: 'Nobody writes about it.' }),
  E('team:payments', 'Team', 'Payments Team'),
  E('team:platform', 'Team', 'Platform Team'),
  E('team:growth', 'Team', 'Growth Team'),
  E('team:risk', 'Team', 'Risk Team'),
  E('team:fulfilment', 'Team', 'Fulfilment Team'),
  E('db:ledger', 'Database', 'Ledger DB', { properties: { engine: 'postgres', replicas: 2 } }),
  E('db:orders', 'Database', 'Orders DB'),
  E('db:users', 'Database', 'Users DB'),
  E('db:catalog', 'Database', 'Catalog DB'),
  E('db:events', 'Database', 'Event Store'),
  E('concept:idempotency', 'Concept', 'Idempotency'),
  E('concept:ach', 'Concept', 'ACH Transfers'),
  E('concept:pci', 'Concept', 'PCI Compliance'),
  E('concept:retry', 'Concept', 'Retry Budget'),
  E('concept:kyc', 'Concept', 'KYC', { aliases: ['know your customer'] }),
  E('concept:sharding', 'Concept', 'Sharding'),
  E('concept:quantum', 'Concept', 'Quantum Ledger Sync'),
];

const R = (fromId: string, type: string, toId: string) => ({ fromId, type, toId });

const RELATIONSHIPS = [
  R('svc:payments', 'DEPENDS_ON', 'svc:ledger'),
  R('svc:payments', 'DEPENDS_ON', 'svc:auth'),
  R('svc:payments', 'DEPENDS_ON', 'svc:fraud'),
  R('svc:payments', 'OWNED_BY', 'team:payments'),
  R('svc:payments', 'STORES_IN', 'db:orders'),
  R('svc:payments', 'IMPLEMENTS', 'concept:idempotency'),
  R('svc:payments', 'IMPLEMENTS', 'concept:ach'),
  R('svc:payments', 'IMPLEMENTS', 'concept:pci'),
  R('svc:ledger', 'STORES_IN', 'db:ledger'),
  R('svc:ledger', 'OWNED_BY', 'team:payments'),
  R('svc:ledger', 'IMPLEMENTS', 'concept:sharding'),
  R('svc:billing', 'DEPENDS_ON', 'svc:ledger'),
  R('svc:billing', 'DEPENDS_ON', 'svc:invoices'),
  R('svc:billing', 'OWNED_BY', 'team:payments'),
  R('svc:invoices', 'STORES_IN', 'db:orders'),
  R('svc:invoices', 'DEPENDS_ON', 'svc:notifications'),
  R('svc:auth', 'STORES_IN', 'db:users'),
  R('svc:auth', 'OWNED_BY', 'team:platform'),
  R('svc:notifications', 'OWNED_BY', 'team:platform'),
  R('svc:notifications', 'IMPLEMENTS', 'concept:retry'),
  R('svc:search', 'DEPENDS_ON', 'svc:catalog'),
  R('svc:search', 'STORES_IN', 'db:events'),
  R('svc:search', 'OWNED_BY', 'team:growth'),
  R('svc:reports', 'DEPENDS_ON', 'svc:ledger'),
  R('svc:reports', 'STORES_IN', 'db:events'),
  R('svc:reports', 'OWNED_BY', 'team:growth'),
  R('svc:fraud', 'OWNED_BY', 'team:risk'),
  R('svc:fraud', 'IMPLEMENTS', 'concept:kyc'),
  R('svc:fraud', 'STORES_IN', 'db:events'),
  R('team:risk', 'RESPONSIBLE_FOR', 'concept:kyc'),
  R('team:risk', 'RESPONSIBLE_FOR', 'concept:pci'),
  R('svc:checkout', 'DEPENDS_ON', 'svc:payments'),
  R('svc:checkout', 'DEPENDS_ON', 'svc:catalog'),
  R('svc:checkout', 'DEPENDS_ON', 'svc:shipping'),
  R('svc:checkout', 'OWNED_BY', 'team:growth'),
  R('svc:catalog', 'STORES_IN', 'db:catalog'),
  R('svc:catalog', 'OWNED_BY', 'team:growth'),
  R('svc:shipping', 'OWNED_BY', 'team:fulfilment'),
  R('svc:shipping', 'DEPENDS_ON', 'svc:notifications'),
  R('svc:shipping', 'IMPLEMENTS', 'concept:retry'),
  R('svc:dormant', 'OWNED_BY', 'team:platform'),
  R('svc:dormant', 'STORES_IN', 'db:events'),
];

const DOCUMENTS = [
  {
    id: FIXTURE.runbook,
    title: 'Payments failures runbook',
    documentType: 'MANUAL',
    source: 'wiki/payments/runbook',
    content: 'When card payments fail, check the fraud scores and the ledger balance before retrying any transfer.',
    entityIds: ['svc:payments', 'svc:fraud', 'svc:ledger', 'concept:quantum'],
  },
  {
    id: 'faq:kyc',
    title: 'KYC questions',
    documentType: 'FAQ',
    source: 'wiki/risk/faq',
    content: 'Customers are verified once; the risk team reviews flagged accounts within a day.',
    entityIds: ['concept:kyc', 'team:risk', 'svc:payments'],
  },
];

/** Writes the fixture through GraphQL. */
export async function seedFixture(t: TestServer): Promise<void> {
  await upsertGraphInBatches(t, ENTITIES, RELATIONSHIPS);
  await gqlOk(t, `mutation($docs: [CreateDocumentInput!]!) { upsertDocuments(input: $docs) { document { id } } }`, {
    docs: DOCUMENTS,
  });
  await t.services.outbox?.drain();
}
