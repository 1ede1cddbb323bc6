// Entity-type colours: a qualitative palette handed out in the order types are first seen, then hashed hues.

const PALETTE = [
  '#4e79a7',
  '#f28e2b',
  '#e15759',
  '#59a14f',
  '#b07aa1',
  '#76b7b2',
  '#edc948',
  '#ff9da7',
  '#9c755f',
  '#7f7f7f',
];

/** Relationship-type colours: darker, so that lines stay readable on the light canvas. */
const RELATIONSHIP_PALETTE = [
  '#1f77b4',
  '#d62728',
  '#2ca02c',
  '#9467bd',
  '#8c564b',
  '#e377c2',
  '#17becf',
  '#bcbd22',
  '#ff7f0e',
  '#393b79',
];

/** Stable colours per entity type and per relationship type for one page session. */
export class TypeColors {
  private readonly assigned = new Map<string, string>();
  private readonly relationships = new Map<string, string>();
  /** Colours set for good (the document nodes' fill), outside the palette's order. */
  private readonly fixed = new Map<string, string>();

  /** Gives a type a colour of its own, without taking a palette slot. */
  fix(type: string, color: string): void {
    this.fixed.set(type, color);
  }

  /** Pre-assigns relationship colours in a known order, as `seed` does for entity types. */
  seedRelationships(types: Iterable<string>): void {
    for (const t of types) this.ofRelationship(t);
  }

  /** The colour of a relationship type (the legend's line and the canvas's links). */
  ofRelationship(type: string): string {
    let c = this.relationships.get(type);
    if (!c) {
      c = RELATIONSHIP_PALETTE[this.relationships.size] ?? hashedColor(`rel:${type}`);
      this.relationships.set(type, c);
    }
    return c;
  }

  /** Pre-assigns colours in a known order (e.g. the server's type list) so they do not depend on load order. */
  seed(types: Iterable<string>): void {
    for (const t of types) this.of(t);
  }

  /** The colour of a type, assigning the next one when it is new. */
  of(type: string): string {
    let c = this.fixed.get(type) ?? this.assigned.get(type);
    if (!c) {
      c = PALETTE[this.assigned.size] ?? hashedColor(type);
      this.assigned.set(type, c);
    }
    return c;
  }
}

function hashedColor(text: string): string {
  let h = 0;
  for (let i = 0; i < text.length; i++) h = (h * 31 + text.charCodeAt(i)) >>> 0;
  return `hsl(${h % 360} 55% 50%)`;
}
