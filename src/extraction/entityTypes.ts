/** Types that say only "a thing": compatible with every type, so a Concept "Vite" is the Technology "Vite". */
const GENERIC_TYPES = new Set(['Concept', 'Term', 'Topic', 'Thing', 'Entity', 'Keyword', 'Tag', 'Other']);

/**
 * Specific types that may name one thing (a library is also a technology and a product). A type in no group is
 * compatible only with itself and the generic types: a Film is never a Song, a Person never a Location.
 */
const COMPATIBLE_GROUPS: readonly (readonly string[])[] = [
  ['Person', 'Author', 'Character'],
  ['Organization', 'Company', 'Team', 'Community'],
  ['Technology', 'Product', 'Software', 'Library', 'Framework', 'Tool', 'Package', 'Platform', 'Plugin', 'Component'],
  ['Api', 'API', 'Function', 'Method', 'Class', 'Identifier', 'Hook', 'Endpoint', 'Operation', 'Command', 'Interface'],
  ['ConfigOption', 'CliFlag', 'EnvVariable', 'Setting', 'Option', 'Parameter'],
  ['Location', 'Place', 'City', 'Country', 'Region'],
];

const groupOf = new Map<string, number>(COMPATIBLE_GROUPS.flatMap((types, i) => types.map((t) => [t, i] as const)));

/** True when the type says only "a thing" (see GENERIC_TYPES). */
export function isGenericType(type: string): boolean {
  return GENERIC_TYPES.has(type);
}

/** Code whose kind is unknown: it may be a function or an option ("envPrefix" in prose is the option's name). */
const UNKNOWN_CODE = 'Identifier';
const CODE_GROUPS = new Set([groupOf.get(UNKNOWN_CODE), groupOf.get('ConfigOption')]);

/** True when an entity of type `a` and one of type `b` may be one thing. */
export function compatibleTypes(a: string, b: string): boolean {
  if (a === b || isGenericType(a) || isGenericType(b)) return true;
  if (a === UNKNOWN_CODE || b === UNKNOWN_CODE) return CODE_GROUPS.has(groupOf.get(a === UNKNOWN_CODE ? b : a));
  const ga = groupOf.get(a);
  return ga !== undefined && ga === groupOf.get(b);
}

/**
 * The type that names an extracted entity's id: the first of its compatible group ("Function", "Hook" and
 * "Identifier" are all "API"), else the type itself. Two documents that find one identifier under two compatible
 * types then make one entity, whichever is extracted first.
 */
export function typeFamily(type: string): string {
  const group = groupOf.get(type);
  return group === undefined ? type : (COMPATIBLE_GROUPS[group]?.[0] ?? type);
}

/** Types that say least about a thing: the generic ones, then Identifier (code of unknown kind). */
function vagueness(type: string): number {
  return isGenericType(type) ? 2 : type === UNKNOWN_CODE ? 1 : 0;
}

/** The most telling of the types an entity was found with, the first on a tie (e.g. Function over Identifier). */
export function mostSpecificType(types: readonly string[]): string | undefined {
  return [...types].sort((a, b) => vagueness(a) - vagueness(b))[0];
}

/** True when the type says little of a thing's kind: a generic type, or code of unknown kind. */
export function isVagueType(type: string): boolean {
  return vagueness(type) > 0;
}
