import { describe, expect, it } from '@jest/globals';
import { openApiToPlan } from '../../../../importers/openapi/specToPlan.js';
import { assertValidPlan, edges, loadFixture, loadText, specWithSchemas } from './support.js';

/** Loads a one-operation spec and returns its operation document's markdown. */
async function render(
  schemas: Record<string, unknown>,
  response: unknown,
  maxSchemaDepth?: number,
  maxSchemaLines?: number,
) {
  const spec = await loadText(specWithSchemas(schemas, response));
  const plan = openApiToPlan(spec, {
    specId: 's',
    tags: [],
    source: null,
    ...(maxSchemaDepth ? { maxSchemaDepth } : {}),
    ...(maxSchemaLines ? { maxSchemaLines } : {}),
  });
  return { content: plan.documents[1]!.content, plan };
}

describe('schema rendering', () => {
  it('renders the circular fixture with (circular: …) markers and terminates', async () => {
    const spec = await loadFixture('circular.yaml');
    const plan = openApiToPlan(spec, { specId: 'org', tags: [], source: null });
    assertValidPlan(plan);
    const tree = plan.documents.find((d) => d.metadata.operationId === 'getTree')!.content;
    expect(tree).toContain(
      '`application/json`: TreeNode\n- label (string, required)\n- parent (TreeNode) (circular: TreeNode)\n- children (array of TreeNode) (circular: TreeNode)',
    );
    const person = plan.documents.find((d) => d.metadata.operationId === 'updatePerson')!.content;
    expect(person).toContain(
      '- employer (Company)\n  - name (string)\n  - ceo (Person) (circular: Person)\n  - subsidiaries (array of all of: Company)\n    - (circular: Company)',
    );
    // The response repeats Person: listed once, then referred to.
    expect(person).toContain('`application/json`: Person\n- (fields of Person: see above)');
    expect(edges(plan, 'org')).toEqual(
      expect.arrayContaining([
        'schema:TreeNode REFERENCES schema:TreeNode',
        'schema:Person REFERENCES schema:Company',
        'schema:Company REFERENCES schema:Person',
        'schema:Company REFERENCES schema:Company',
      ]),
    );
  });

  it('shows enums, formats, defaults, constraints, flags and array item types', async () => {
    const { content } = await render(
      {
        Status: { type: 'string', enum: ['active', 'retired'], description: 'Lifecycle state' },
        Item: {
          type: 'object',
          required: ['id', 'status'],
          properties: {
            id: { type: 'string', format: 'uuid', readOnly: true },
            status: { $ref: '#/components/schemas/Status' },
            count: { type: 'integer', minimum: 0, maximum: 10, default: 1 },
            labels: { type: 'array', items: { type: 'string' }, maxItems: 5 },
            note: { type: 'string', nullable: true, deprecated: true, description: 'Free\ntext   here.' },
            extra: { type: 'object', additionalProperties: { type: 'integer' } },
          },
        },
      },
      { $ref: '#/components/schemas/Item' },
    );
    expect(content).toContain('- id (string, uuid, required, read-only)');
    expect(content).toContain('- status (Status: string, required): Lifecycle state. Enum: `active`, `retired`.');
    expect(content).toContain('- count (integer): Default: `1`. Constraints: min 0, max 10.');
    expect(content).toContain('- labels (array of string): Constraints: max items 5.');
    expect(content).toContain('- note (string | null, deprecated): Free text here.');
    expect(content).toContain('- extra (map of integer)\n  - [any key] (integer)');
  });

  it('lists oneOf / anyOf alternatives and the discriminator; merges allOf', async () => {
    const { content } = await render(
      {
        Base: { type: 'object', properties: { kind: { type: 'string' } } },
        Cat: {
          allOf: [
            { $ref: '#/components/schemas/Base' },
            { type: 'object', properties: { lives: { type: 'integer' } } },
          ],
        },
        Dog: { type: 'object', properties: { barks: { type: 'boolean' } } },
        Pet: {
          oneOf: [{ $ref: '#/components/schemas/Cat' }, { $ref: '#/components/schemas/Dog' }],
          discriminator: { propertyName: 'kind', mapping: { cat: '#/components/schemas/Cat' } },
        },
      },
      {
        type: 'object',
        properties: {
          pet: { $ref: '#/components/schemas/Pet' },
          either: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
        },
      },
    );
    expect(content).toContain(
      '- pet (Pet)\n  - one of #1: Cat\n    - kind (string)\n    - lives (integer)\n  - one of #2: Dog\n    - barks (boolean)\n  - discriminator: kind (cat → Cat)',
    );
    expect(content).toContain('- either (any of: string | integer)\n');
    expect(content).not.toContain('any of #1');
  });

  it('stops at the depth limit (default 4, configurable)', async () => {
    const level = (n: number): unknown =>
      n === 0 ? { type: 'string' } : { type: 'object', properties: { [`l${n}`]: level(n - 1) } };
    const deep = await render({}, level(6));
    expect(deep.content).toContain('      - l3 (object) (nested fields omitted: depth limit)');
    expect(deep.content).not.toContain('- l2');
    const shallow = await render({}, level(6), 2);
    expect(shallow.content).toContain('  - l5 (object) (nested fields omitted: depth limit)');
    expect(shallow.content).not.toContain('- l4');
  });

  it('leaves out fields beyond the line budget and warns', async () => {
    const properties = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`field${i}`, { type: 'string' }]));
    const { content, plan } = await render({}, { type: 'object', properties }, undefined, 10);
    expect(content).toContain('- field9 (string)');
    expect(content).not.toContain('- field10 (string)');
    expect(content).toContain('Some schema fields were left out');
    expect(plan.warnings).toEqual(['GET /thing: schemas too large to list completely; some fields were left out']);
  });
});
