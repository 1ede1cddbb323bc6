import { CST, Parser } from 'yaml';

/**
 * Deepest nesting of collections (YAML, JSON) or elements (HTML) handed to the recursive parsers and converters
 * behind the file importer (yaml's composer, linkedom, Readability, turndown). They exhaust the call stack somewhere
 * between 700 and 2,000 levels, less when called deep inside a request; no real document needs 200.
 */
export const MAX_NESTING = 200;

/** Where a structure first nests deeper than a limit: a readable path (`a.b[0].c`) and the 1-based line. */
export interface DeepPoint {
  path: string;
  line: number;
}

/** Longest path a warning shows; the rest of a deep path is elided from the middle. */
const MAX_PATH_CHARS = 120;

/** `path` short enough for a message: its start and end, with the middle elided. */
export function shortPath(path: string): string {
  if (path.length <= MAX_PATH_CHARS) return path;
  const half = MAX_PATH_CHARS / 2;
  return `${path.slice(0, half)}…${path.slice(-half)}`;
}

/** True for the error of an exhausted call stack, which the checks here should prevent and no user should read. */
export function isStackOverflow(error: unknown): boolean {
  return error instanceof Error && /Maximum call stack size exceeded/.test(error.message);
}

/** 1-based line of `offset` in `text`. */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** A scalar key's text as a path segment; other keys (collections, aliases) show as `?`. */
function keyName(key: CST.Token | null | undefined): string {
  if (!key || !('source' in key) || key.type === 'alias' || !CST.isScalar(key)) return '?';
  const name = key.type === 'scalar' ? key.source : key.source.slice(1, -1);
  return name.length > 40 ? `${name.slice(0, 40)}…` : name;
}

/**
 * The first place where YAML `text` nests collections deeper than `max`, or undefined. It walks yaml's concrete
 * syntax tree, which yaml's parser builds with an explicit stack, iteratively: only the composer that turns that
 * tree into values recurses per level, so this is checked before composing.
 */
export function deepYamlPoint(text: string, max: number): DeepPoint | undefined {
  const pending: { token: CST.Token; depth: number; path: string }[] = [];
  for (const token of new Parser().parse(text)) {
    if (token.type === 'document' && token.value) pending.push({ token: token.value, depth: 1, path: '' });
    while (pending.length > 0) {
      const { token: node, depth, path } = pending.pop()!;
      if (!CST.isCollection(node)) continue;
      if (depth > max) return { path: path || '(top level)', line: lineAt(text, node.offset) };
      node.items.forEach((item, index) => {
        const key = 'key' in item ? item.key : undefined;
        const at =
          node.type === 'block-seq' || (node.type === 'flow-collection' && node.start.source === '[' && !item.sep)
            ? `${path}[${index}]`
            : `${path}${path ? '.' : ''}${keyName(key)}`;
        if (key && CST.isCollection(key)) pending.push({ token: key, depth: depth + 1, path: `${at}(key)` });
        if (item.value) pending.push({ token: item.value, depth: depth + 1, path: at });
      });
    }
  }
  return undefined;
}

/** What `cutDeepValue` returns: the value with nothing deeper than the limit, and where the first cut was. */
export interface CutValue<T> {
  value: T;
  /** Path of the first collection replaced by the marker, or undefined when nothing was cut. */
  cutAt: string | undefined;
}

/** What a collection below the depth limit is replaced with. */
export const CUT_MARKER = '[nested too deeply: cut]';

/**
 * A copy of a parsed JSON/YAML value with every object or array below `max` levels (the root is level 1) replaced by
 * CUT_MARKER; copied iteratively, so any depth is safe. Dates and other non-plain values are kept as they are.
 */
export function cutDeepValue<T>(root: T, max: number, rootPath = ''): CutValue<T> {
  let cutAt: string | undefined;
  const isContainer = (v: unknown): v is Record<string, unknown> | unknown[] =>
    Array.isArray(v) || (typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype);
  if (!isContainer(root)) return { value: root, cutAt };
  const copyOf = (v: Record<string, unknown> | unknown[]): Record<string, unknown> | unknown[] =>
    Array.isArray(v) ? [] : {};
  const top = copyOf(root);
  const pending: {
    from: Record<string, unknown> | unknown[];
    to: Record<string, unknown> | unknown[];
    depth: number;
    path: string;
  }[] = [{ from: root, to: top, depth: 1, path: rootPath }];
  while (pending.length > 0) {
    const { from, to, depth, path } = pending.pop()!;
    for (const [key, child] of Object.entries(from)) {
      const childPath = Array.isArray(from) ? `${path}[${key}]` : `${path}${path ? '.' : ''}${key}`;
      let copied: unknown = child;
      if (isContainer(child)) {
        if (depth + 1 > max) {
          cutAt ??= childPath;
          copied = CUT_MARKER;
        } else {
          copied = copyOf(child);
          pending.push({
            from: child,
            to: copied as Record<string, unknown> | unknown[],
            depth: depth + 1,
            path: childPath,
          });
        }
      }
      (to as Record<string, unknown>)[key] = copied;
    }
  }
  return { value: top as T, cutAt };
}

/** A top-level entry of a YAML document as `yamlTopLevel` reads it. */
export type TopLevelEntry =
  | { kind: 'map' }
  | { kind: 'seq'; scalars: string[] | undefined }
  | { kind: 'scalar'; value: string }
  | { kind: 'other' };

/** The items of a sequence when every one is a plain value (`[a, b]`, `- a`), else undefined. */
function seqScalars(items: CST.CollectionItem[]): string[] | undefined {
  const values = items.map((i) =>
    !i.sep && i.value && CST.isScalar(i.value) ? CST.resolveAsScalar(i.value)?.value : undefined,
  );
  return values.every((v): v is string => v !== undefined) ? values : undefined;
}

/**
 * The top-level keys of the first YAML document in `text` and what their values are, read from the concrete syntax
 * tree without composing it: enough to recognise a spec whose depth keeps it from being composed here.
 */
export function yamlTopLevel(text: string): Map<string, TopLevelEntry> {
  const entries = new Map<string, TopLevelEntry>();
  for (const token of new Parser().parse(text)) {
    if (token.type !== 'document') continue;
    const root = token.value;
    const isMap = root?.type === 'block-map' || (root?.type === 'flow-collection' && root.start.source === '{');
    if (!root || !isMap) return entries;
    for (const item of root.items) {
      const key =
        'key' in item && item.key && CST.isScalar(item.key) ? CST.resolveAsScalar(item.key)?.value : undefined;
      if (key === undefined || entries.has(key)) continue;
      const value = item.value;
      const scalar = value && CST.isScalar(value) ? CST.resolveAsScalar(value) : null;
      entries.set(
        key,
        scalar
          ? { kind: 'scalar', value: scalar.value }
          : value?.type === 'block-map' || (value?.type === 'flow-collection' && value.start.source === '{')
            ? { kind: 'map' }
            : value?.type === 'block-seq' || value?.type === 'flow-collection'
              ? { kind: 'seq', scalars: seqScalars(value.items) }
              : { kind: 'other' },
      );
    }
    return entries;
  }
  return entries;
}
