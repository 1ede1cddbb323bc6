import fs from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { htmlToMarkdown } from '../../../importers/html/htmlToMarkdown.js';

// A page as MathJax 3 leaves it in the browser (CHTML output): each equation is an <mjx-container> whose class
// ("MathJax CtxtMenu_Attached_0") Readability reads as a menu, holding the glyphs (text set by CSS) and a MathML copy.
const page = fs.readFileSync(new URL('../../fixtures/pages/mathjax3.html', import.meta.url), 'utf8');

describe('MathJax 3 equations', () => {
  const { markdown } = htmlToMarkdown(page, { baseUrl: 'https://notes.example.org/quadratics' });

  it('keeps every equation, as TeX when the MathML carries it and as its text otherwise', () => {
    expect(markdown).toContain('A quadratic equation has the form $ax2+bx+c=0$ where the leading coefficient');
    expect(markdown).toContain('formula:\n\n$$x = \\frac{-b \\pm \\sqrt{b^2 - 4ac}}{2a}$$\n\nThe expression');
    expect(markdown).toContain('That product is $c/a$, by Vieta');
  });

  it('keeps the prose around them and none of the page chrome or MathJax markup', () => {
    expect(markdown).toContain('The expression under the square root is the discriminant.');
    expect(markdown).not.toMatch(/Archive|Licensed CC BY|mjx|CtxtMenu/);
  });
});
