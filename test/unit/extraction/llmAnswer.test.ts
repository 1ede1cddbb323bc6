import { describe, expect, it } from '@jest/globals';
import { parseAnswer, repairAnswer } from '../../../src/extraction/llm/answer.js';
import {
  candidatesOf,
  entityTypeOf,
  relationshipTypeOf,
  toPascalCase,
  toUpperSnake,
} from '../../../src/extraction/llm/candidates.js';

const types = {
  entityTypes: ['Technology', 'Concept', 'ConfigOption', 'API'],
  relationshipTypes: ['RELATED_TO', 'USES', 'PART_OF', 'CONFIGURES'],
};
const VALID = '{"entities":[{"name":"Vite","type":"Technology"}],"relationships":[]}';

describe('repairAnswer', () => {
  it('strips <think> blocks, even when they contain braces', () => {
    expect(repairAnswer(`<think>The user wants {json}. Fine.</think>\n${VALID}`)).toBe(VALID);
    expect(repairAnswer(`<THINK>a}{b</THINK>${VALID}`)).toBe(VALID);
  });

  it('takes the JSON out of a code fence with prose around it', () => {
    expect(repairAnswer(`Here is the graph:\n\`\`\`json\n${VALID}\n\`\`\`\nHope this helps! {"x":1}`)).toBe(VALID);
  });

  it('drops leading and trailing prose, braces inside strings included', () => {
    const withBrace = '{"entities":[{"name":"a } b","type":"Concept"}]}';
    expect(repairAnswer(`Sure. ${withBrace} Let me know {if} you need more.`)).toBe(withBrace);
  });
});

describe('parseAnswer', () => {
  it('accepts a valid answer and defaults missing relationships', () => {
    const parsed = parseAnswer('{"entities":[{"name":"Vite","type":"Technology"}]}');
    expect(parsed).toEqual({
      ok: true,
      answer: { entities: [{ name: 'Vite', type: 'Technology' }], relationships: [] },
    });
  });

  it('says why invalid JSON is invalid', () => {
    const parsed = parseAnswer('{"entities": [ {"name": "Vite"');
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.problems).toMatch(/not valid JSON/);
  });

  it('names the path of every schema violation', () => {
    const parsed = parseAnswer('{"entities":[{"title":"Vite","type":"Technology"}],"relationships":[{"source":1}]}');
    expect(parsed.ok).toBe(false);
    const problems = parsed.ok ? '' : parsed.problems;
    expect(problems).toContain('entities[0].name');
    expect(problems).toContain('relationships[0].source');
    expect(problems).toContain('relationships[0].target');
  });

  it('rejects an empty answer', () => {
    expect(parseAnswer(null).ok).toBe(false);
    expect(parseAnswer('  ').ok).toBe(false);
  });
});

describe('type normalisation', () => {
  it('writes entity types in PascalCase and maps them to the configured spelling', () => {
    expect(toPascalCase('config option')).toBe('ConfigOption');
    expect(toPascalCase('configOption')).toBe('ConfigOption');
    expect(entityTypeOf('config_option', types.entityTypes)).toBe('ConfigOption');
    expect(entityTypeOf('api', types.entityTypes)).toBe('API');
    expect(entityTypeOf('Spaceship', types.entityTypes)).toBe('Concept');
  });

  it('writes relationship types in UPPER_SNAKE and maps unknown ones to RELATED_TO', () => {
    expect(toUpperSnake('dependsOn')).toBe('DEPENDS_ON');
    expect(toUpperSnake('part of')).toBe('PART_OF');
    expect(relationshipTypeOf('Part-Of', types.relationshipTypes)).toBe('PART_OF');
    expect(relationshipTypeOf('uses', types.relationshipTypes)).toBe('USES');
    expect(relationshipTypeOf('INSPIRED_BY', types.relationshipTypes)).toBe('RELATED_TO');
  });
});

describe('candidatesOf', () => {
  const passage =
    'Vite uses Rollup to bundle code for production. Hot Module Replacement (HMR) updates modules in place.\n' +
    'The server.port option configures the dev server.';

  it('maps entities to name candidates with a quote, and relationships between them', () => {
    const result = candidatesOf(
      {
        entities: [
          { name: 'Vite', type: 'technology', description: 'A build tool.' },
          { name: 'Hot Module Replacement', type: 'concept', aliases: ['HMR', 'hmr', ''] },
          { name: 'server.port', type: 'config option' },
          { name: 'vite', type: 'Technology' },
        ],
        relationships: [
          { source: 'vite', target: 'HMR', type: 'provides', description: 'Vite offers HMR.' },
          { source: 'server.port', target: 'Vite', type: 'configures' },
          { source: 'Vite', target: 'Webpack', type: 'USES' },
          { source: 'Vite', target: 'Vite', type: 'USES' },
        ],
      },
      passage,
      types,
    );
    expect(result.entities).toEqual([
      {
        name: 'Vite',
        type: 'Technology',
        kind: 'name',
        quote: 'Vite uses Rollup to bundle code for production.',
        confidence: 0.8,
        description: 'A build tool.',
      },
      {
        name: 'Hot Module Replacement',
        type: 'Concept',
        kind: 'name',
        quote: 'Hot Module Replacement (HMR) updates modules in place.',
        confidence: 0.8,
        aliases: ['HMR'],
      },
      {
        name: 'server.port',
        type: 'ConfigOption',
        kind: 'name',
        quote: 'The server.port option configures the dev server.',
        confidence: 0.8,
      },
    ]);
    expect(result.relationships).toEqual([
      {
        from: 'Vite',
        to: 'Hot Module Replacement',
        type: 'RELATED_TO',
        quote: 'Vite uses Rollup to bundle code for production.',
        confidence: 0.7,
        description: 'Vite offers HMR.',
      },
      {
        from: 'server.port',
        to: 'Vite',
        type: 'CONFIGURES',
        quote: 'The server.port option configures the dev server.',
        confidence: 0.7,
      },
    ]);
    expect(result.warnings).toEqual(["dropped 1 relationships whose ends are not among the chunk's entities"]);
  });

  it('drops names the passage does not contain, and says so', () => {
    const result = candidatesOf(
      {
        entities: [
          { name: 'Webpack', type: 'Technology' },
          { name: 'Rollup', type: 'Technology' },
        ],
        relationships: [],
      },
      passage,
      types,
    );
    expect(result.entities.map((e) => e.name)).toEqual(['Rollup']);
    expect(result.warnings).toEqual(['dropped 1 entities the passage does not name: Webpack']);
  });

  it('finds a name with a disambiguator by its bare form', () => {
    const result = candidatesOf(
      { entities: [{ name: 'Kiss and Tell (1945 film)', type: 'Concept' }], relationships: [] },
      'Kiss and Tell is a comedy starring Shirley Temple.',
      types,
    );
    expect(result.entities.map((e) => e.quote)).toEqual(['Kiss and Tell is a comedy starring Shirley Temple.']);
  });
});
