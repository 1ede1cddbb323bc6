import { describe, expect, it } from '@jest/globals';
import { htmlToMarkdown } from '../../../importers/html/htmlToMarkdown.js';

const filler = (topic: string) =>
  `<p>This paragraph explains ${topic} in enough words to read as real documentation, with the steps, the caveats and the reasons behind them.</p>`;

describe('sections whose ids come from their headings', () => {
  // Sphinx wraps each section in <section id="slug">; Docusaurus and MkDocs put the slug on the heading itself.
  const sphinx = `<!doctype html><html><head><title>Team plans</title></head><body>
    <nav class="sidebar"><a href="/a">Docs home</a></nav>
    <div role="main" class="document"><section id="team-plans"><h1>Team plans</h1>${filler('team plans')}
      <section id="sharing-with-a-single-developer"><h2>Sharing with a single developer</h2>${filler('sharing a project')}</section>
      <section id="related-work"><h2>Related work</h2>${filler('earlier designs')}</section>
      <section id="comments-and-reviews"><h2>Comments and reviews</h2>${filler('review threads')}</section>
      <section id="toc-generation-2"><h2>TOC generation</h2>${filler('generating a table of contents')}</section>
    </section></div>
    <div class="share-buttons"><a href="https://x.example/share">Share on X</a></div>
    <div id="comments"><h3>Comments</h3><p>Great post, thanks a lot for writing it up!</p></div>
    <aside class="related-posts"><h3>Related posts</h3><a href="/b">Another post</a></aside>
  </body></html>`;

  const docusaurus = `<!doctype html><html><head><title>Sharing</title></head><body><main><article>
    <h1>Sharing</h1>${filler('sharing')}
    <h2 id="sharing-with-a-single-developer">Sharing with a single developer<a class="hash-link" href="#sharing-with-a-single-developer">#</a></h2>${filler('one developer')}
    <h2 id="share-links">Share links</h2>${filler('links that grant access')}
    <div class="share-bar"><a href="https://x.example/share?u=1">Share</a></div>
  </article></main></body></html>`;

  it('keeps Sphinx sections and drops the share bar, comment thread and related posts', () => {
    const { markdown } = htmlToMarkdown(sphinx, { baseUrl: 'https://docs.example.com/plans' });
    for (const heading of ['## Sharing with a single developer', '## Related work', '## Comments and reviews', '## TOC generation']) expect(markdown).toContain(heading);
    for (const topic of ['sharing a project', 'earlier designs', 'review threads', 'generating a table of contents']) expect(markdown).toContain(topic);
    for (const chrome of ['Share on X', 'Great post', 'Another post', 'Docs home']) expect(markdown).not.toContain(chrome);
  });

  it('keeps headings whose own id is their slug, and still drops a share bar', () => {
    const { markdown } = htmlToMarkdown(docusaurus, { baseUrl: 'https://docs.example.com/sharing' });
    expect(markdown).toContain('## Sharing with a single developer\n\nThis paragraph explains one developer');
    expect(markdown).toContain('## Share links\n\nThis paragraph explains links that grant access');
    expect(markdown).not.toContain('[Share]');
  });
});
