import TextMatcher from 'modern-ahocorasick/text';

/** A name or alias of an entity, to look for in text. */
export interface EntityName {
  entityId: string;
  name: string;
  aliases: string[];
}

/**
 * Finds entity names and aliases in text in one pass (Aho-Corasick), case-insensitively (Unicode case folding and
 * NFKC) and on whole words only, so "ACH" does not match inside "achievement".
 */
export class MentionMatcher {
  private readonly matcher: TextMatcher<string> | undefined;

  constructor(names: readonly EntityName[]) {
    const patterns = names.flatMap((n) =>
      [n.name, ...n.aliases].filter((p) => p.trim().length >= 2).map((pattern) => ({ pattern, data: n.entityId })),
    );
    this.matcher = patterns.length > 0 ? new TextMatcher(patterns, { caseFold: true, normalization: 'NFKC' }) : undefined;
  }

  /** Ids of the entities mentioned in `text`. */
  entitiesIn(text: string): Set<string> {
    const found = new Set<string>();
    if (!this.matcher) return found;
    for (const m of this.matcher.iterate(text, { wholeWord: true, locale: 'en' })) if (m.data) found.add(m.data);
    return found;
  }
}
