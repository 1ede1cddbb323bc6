import type { DomElement } from './dom.js';

// `language-ts` (Prism, highlight.js, markdown renderers), `lang-ts` (Prettify), `highlight-ts` and
// `highlight-source-ts` (Sphinx, GitHub); the class may sit on <pre>, its <code> or a wrapper div.
const CLASS_PATTERN = /(?:^|\s)(?:language|lang|highlight(?:-source|-text)?)-([a-z0-9_+#.-]+)/i;
const NOT_A_LANGUAGE = new Set(['none', 'default', 'nohighlight', 'plain', 'plaintext', 'text', 'txt']);
const ANCESTORS_CHECKED = 2;

function fromElement(element: DomElement | null): string | undefined {
  if (!element) return undefined;
  const attribute = element.getAttribute('data-lang') ?? element.getAttribute('data-language');
  const name = attribute?.trim() || CLASS_PATTERN.exec(element.getAttribute('class') ?? '')?.[1];
  return name ? name.toLowerCase() : undefined;
}

/** The language of a `<pre>` block from its classes or data attributes, if it names a real one. */
export function codeLanguage(pre: DomElement): string | undefined {
  const code = pre.firstElementChild?.localName === 'code' ? pre.firstElementChild : pre.querySelector('code');
  let language = fromElement(pre) ?? fromElement(code);
  for (let ancestor = pre.parentElement, i = 0; !language && ancestor && i < ANCESTORS_CHECKED; i++) {
    language = fromElement(ancestor);
    ancestor = ancestor.parentElement;
  }
  // A language name ends the info string: no spaces or backticks may follow it.
  return language && !NOT_A_LANGUAGE.has(language) && /^[a-z0-9_+#.-]+$/.test(language) ? language : undefined;
}
