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

/** True when an entity of type `a` and one of type `b` may be one thing. */
export function compatibleTypes(a: string, b: string): boolean {
  if (a === b || isGenericType(a) || isGenericType(b)) return true;
  const ga = groupOf.get(a);
  return ga !== undefined && ga === groupOf.get(b);
}
