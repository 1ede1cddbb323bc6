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
    for (const heading of [
      '## Sharing with a single developer',
      '## Related work',
      '## Comments and reviews',
      '## TOC generation',
    ])
      expect(markdown).toContain(heading);
    for (const topic of ['sharing a project', 'earlier designs', 'review threads', 'generating a table of contents'])
      expect(markdown).toContain(topic);
    for (const chrome of ['Share on X', 'Great post', 'Another post', 'Docs home'])
      expect(markdown).not.toContain(chrome);
  });

  it('keeps headings whose own id is their slug, and still drops a share bar', () => {
    const { markdown } = htmlToMarkdown(docusaurus, { baseUrl: 'https://docs.example.com/sharing' });
    expect(markdown).toContain('## Sharing with a single developer\n\nThis paragraph explains one developer');
    expect(markdown).toContain('## Share links\n\nThis paragraph explains links that grant access');
    expect(markdown).not.toContain('[Share]');
  });
});

describe('MathML equations', () => {
  // MDN's quadratic-formula example: presentation MathML, one equation with a TeX annotation, one without.
  const quadratic = `<p>When <math><mrow><mi>a</mi><mo>≠</mo><mn>0</mn></mrow></math>, there are two solutions to
    <math><semantics><mrow><mi>a</mi><msup><mi>x</mi><mn>2</mn></msup><mo>+</mo><mi>b</mi><mi>x</mi><mo>+</mo><mi>c</mi><mo>=</mo><mn>0</mn></mrow>
    <annotation encoding="application/x-tex">ax^2 + bx + c = 0</annotation></semantics></math> and they are</p>
    <math display="block"><semantics><mrow><mi>x</mi><mo>=</mo><mfrac><mrow><mo>−</mo><mi>b</mi><mo>±</mo><msqrt><mrow><msup><mi>b</mi><mn>2</mn></msup><mo>−</mo><mn>4</mn><mi>a</mi><mi>c</mi></mrow></msqrt></mrow><mrow><mn>2</mn><mi>a</mi></mrow></mfrac></mrow>
    <annotation encoding="application/x-tex">x = \\frac{-b \\pm \\sqrt{b^2-4ac}}{2a}</annotation></semantics></math><p>That is all.</p>`;

  it('keeps inline equations as $TeX$ (annotation first, else the text) and display equations as $$TeX$$', () => {
    expect(htmlToMarkdown(quadratic).markdown).toBe(
      'When $a≠0$, there are two solutions to $ax^2 + bx + c = 0$ and they are\n\n$$x = \\frac{-b \\pm \\sqrt{b^2-4ac}}{2a}$$\n\nThat is all.',
    );
  });

  it("keeps Wikipedia's hidden MathML copy, without its {\\displaystyle} wrapper, and drops the fallback image", () => {
    const wiki = `<p>The area is <span class="mwe-math-element"><span class="mwe-math-mathml-inline mwe-math-mathml-a11y" style="display: none;">
      <math xmlns="http://www.w3.org/1998/Math/MathML" alttext="{\\displaystyle \\pi r^{2}}"><semantics><mrow><mi>π</mi><msup><mi>r</mi><mn>2</mn></msup></mrow>
      <annotation encoding="application/x-tex">{\\displaystyle \\pi r^{2}}</annotation></semantics></math></span><img src="https://wikimedia.org/api/rest_v1/media/math/render/svg/x" class="mwe-math-fallback-image-inline" alt="{\\displaystyle \\pi r^{2}}"></span>.</p>`;
    expect(htmlToMarkdown(wiki).markdown).toBe('The area is $\\pi r^{2}$.');
  });
});
