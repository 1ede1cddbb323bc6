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

/** Stable colours per entity type for one page session. */
export class TypeColors {
  private readonly assigned = new Map<string, string>();

  /** Pre-assigns colours in a known order (e.g. the server's type list) so they do not depend on load order. */
  seed(types: Iterable<string>): void {
    for (const t of types) this.of(t);
  }

  /** The colour of a type, assigning the next one when it is new. */
  of(type: string): string {
    let c = this.assigned.get(type);
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
