import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import {
  loadApiQuestionSet,
  OPENAPI_DIR,
  QUESTION_KINDS,
  type ApiQuestion,
  type OperationRef,
} from '../../../bench/apiQuestionSet.js';

// The question set of the API questions bench (bench/apiQuestions.ts): its shape, and that every answer is real.
const set = loadApiQuestionSet();
const specFile = new Map(set.specs.map((s) => [s.id, s.file]));
const optional = new Set(set.specs.filter((s) => s.optional).map((s) => s.id));
const group = (spec: string) => (spec.startsWith('oai-') ? 'oai' : spec);

describe('API questions: the set', () => {
  it('has at least 48 questions and at least 12 of each kind, also without the optional specs', () => {
    expect(set.questions.length).toBeGreaterThanOrEqual(48);
    for (const kind of QUESTION_KINDS) {
      expect(set.questions.filter((q) => q.kind === kind).length).toBeGreaterThanOrEqual(12);
      // An optional spec (DigitalOcean) may fail to import; the run must still have 12 of each kind.
      expect(set.questions.filter((q) => q.kind === kind && !optional.has(q.spec)).length).toBeGreaterThanOrEqual(12);
    }
  });

  it('asks every kind over Box, DigitalOcean and the OAI examples', () => {
    for (const kind of QUESTION_KINDS) {
      expect(new Set(set.questions.filter((q) => q.kind === kind).map((q) => group(q.spec)))).toEqual(
        new Set(['box', 'digitalocean', 'oai']),
      );
    }
  });

  it('has no duplicate question', () => {
    const normalised = set.questions.map((q) => q.question.toLowerCase().replace(/\s+/g, ' ').trim());
    const duplicates = normalised.filter((q, i) => normalised.indexOf(q) !== i);
    expect(duplicates).toEqual([]);
  });

  it('names only known kinds and specs, and each spec once', () => {
    expect(new Set(set.specs.map((s) => s.id)).size).toBe(set.specs.length);
    for (const q of set.questions) {
      expect(QUESTION_KINDS).toContain(q.kind);
      expect(specFile.has(q.spec)).toBe(true);
      for (const a of q.alsoAccepted ?? []) expect(specFile.has(a.spec)).toBe(true);
    }
  });

  it('asks identifier questions by the expected operationId or path', () => {
    for (const q of set.questions.filter((x) => x.kind === 'identifier')) {
      const named = [q.expected.operationId, q.expected.path].filter((n): n is string => n !== undefined);
      expect({ question: q.question, names: named.some((n) => q.question.includes(n)) }).toEqual({
        question: q.question,
        names: true,
      });
    }
  });
});

/** One spec read from disk, following the file `$ref`s that split multi-file specs (DigitalOcean, petstore-separate). */
class SpecReader {
  private readonly files = new Map<string, unknown>();

  constructor(private readonly root: string) {}

  /** The value at `ref` (`file#/pointer`, relative to `from`), with the file it came from. */
  resolve(value: unknown, from: string): { value: unknown; file: string } {
    let current = value;
    let file = from;
    for (let hops = 0; hops < 10 && isObject(current) && typeof current.$ref === 'string'; hops++) {
      const [target = '', pointer = ''] = current.$ref.split('#');
      file = target ? path.resolve(path.dirname(file), target) : file;
      current = pointer
        .split('/')
        .filter(Boolean)
        .map((p) => decodeURIComponent(p).replace(/~1/g, '/').replace(/~0/g, '~'))
        .reduce<unknown>((node, key) => (isObject(node) ? node[key] : undefined), this.read(file));
    }
    return { value: current, file };
  }

  /** The operation at method and path of the spec file, or undefined. */
  operation(specPath: string, op: OperationRef): { operationId?: string; parameters: string[] } | undefined {
    const main = path.join(this.root, specPath);
    const paths = (this.read(main) as { paths?: Record<string, unknown> }).paths ?? {};
    if (!(op.path in paths)) return undefined;
    const item = this.resolve(paths[op.path], main);
    if (!isObject(item.value)) return undefined;
    const found = this.resolve(item.value[op.method.toLowerCase()], item.file);
    if (!isObject(found.value)) return undefined;
    const params = [
      ...asArray(item.value.parameters).map((p) => this.resolve(p, item.file)),
      ...asArray(found.value.parameters).map((p) => this.resolve(p, found.file)),
    ];
    const operationId = found.value.operationId;
    return {
      ...(typeof operationId === 'string' ? { operationId } : {}),
      parameters: params.map((p) => (isObject(p.value) && typeof p.value.name === 'string' ? p.value.name : '?')),
    };
  }

  private read(file: string): unknown {
    if (!this.files.has(file)) this.files.set(file, YAML.parse(fs.readFileSync(file, 'utf8'), { maxAliasCount: -1 }));
    return this.files.get(file);
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

// The specs are data beside the repository (../shared/data/openapi, or CAIRN_BENCH_DATA); a clone without them skips this part.
const withSpecs = fs.existsSync(OPENAPI_DIR) ? describe : describe.skip;
if (!fs.existsSync(OPENAPI_DIR))
  console.warn(`Skipping the API questions' answer checks: ${OPENAPI_DIR} does not exist.`);

withSpecs('API questions: the answers', () => {
  const reader = new SpecReader(OPENAPI_DIR);
  const lookup = (spec: string, op: OperationRef) => reader.operation(specFile.get(spec) as string, op);
  const label = (q: ApiQuestion) => `${q.spec}: ${q.question}`;

  it('names an operation of its spec, with its operationId when the spec gives one', () => {
    const wrong: string[] = [];
    for (const q of set.questions) {
      const found = lookup(q.spec, q.expected);
      if (!found) wrong.push(`${label(q)}: no ${q.expected.method} ${q.expected.path}`);
      else if (found.operationId !== q.expected.operationId)
        wrong.push(
          `${label(q)}: operationId is ${found.operationId ?? '(none)'}, the set says ${q.expected.operationId ?? '(none)'}`,
        );
      for (const a of q.alsoAccepted ?? [])
        if (!lookup(a.spec, a)) wrong.push(`${label(q)}: ${a.spec} has no ${a.method} ${a.path}`);
    }
    expect(wrong).toEqual([]);
  });

  it('asks parameter questions about parameters the expected operation has', () => {
    const wrong: string[] = [];
    for (const q of set.questions.filter((x) => x.kind === 'parameter')) {
      const named = [...q.question.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string);
      if (named.length === 0) wrong.push(`${label(q)}: names no \`parameter\``);
      const params = lookup(q.spec, q.expected)?.parameters ?? [];
      for (const name of named)
        if (!params.includes(name))
          wrong.push(`${label(q)}: ${q.expected.method} ${q.expected.path} has no parameter ${name}`);
    }
    expect(wrong).toEqual([]);
  });
});
