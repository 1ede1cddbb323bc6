// turndown-plugin-gfm ships no types; these cover the plugins it exports.
declare module 'turndown-plugin-gfm' {
  import type TurndownService from 'turndown';

  /** All GFM plugins: highlighted code blocks, strikethrough, tables and task lists. */
  export const gfm: TurndownService.Plugin;
  /** `<div class="highlight-…"><pre>` blocks as fenced code. */
  export const highlightedCodeBlock: TurndownService.Plugin;
  /** `<del>`, `<s>` and `<strike>` as `~text~`. */
  export const strikethrough: TurndownService.Plugin;
  /** Tables with a header row as GFM tables (others are kept as HTML). */
  export const tables: TurndownService.Plugin;
  /** Checkboxes in list items as `[ ]` / `[x]`. */
  export const taskListItems: TurndownService.Plugin;
}
