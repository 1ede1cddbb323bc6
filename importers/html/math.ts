import { collapsedText, type DomElement } from './dom.js';

/** Attribute of the element that stands in for a `<math>` equation: `inline` or `block`; its text is the TeX. */
export const MATH_ATTRIBUTE = 'data-cairn-math';

/** The TeX of an equation: its `application/x-tex` annotation, else the text of its presentation markup. */
function texOf(math: DomElement): string {
  const annotations = math.querySelectorAll('annotation');
  for (let i = 0; i < annotations.length; i++) {
    const annotation = annotations[i];
    const encoding = annotation?.getAttribute('encoding')?.trim().toLowerCase();
    if (
      annotation &&
      (encoding === 'application/x-tex' || encoding === 'application/x-latex' || encoding === 'text/x-tex')
    ) {
      const tex = (annotation.textContent ?? '').trim();
      // Wikipedia wraps every formula in {\displaystyle …}, which says nothing once it stands alone.
      if (tex) return tex.replace(/^\{\\displaystyle\s*([\s\S]*)\}$/, '$1').trim();
    }
  }
  for (const other of Array.from(math.querySelectorAll('annotation, annotation-xml'))) other.remove();
  return collapsedText(math);
}

/**
 * Replaces a MathML `<math>` element with a `<span>` (inline) or `<div>` (display="block") holding its TeX, which
 * the markdown step writes as `$…$` or `$$…$$`. An equation with no text is removed.
 */
export function replaceMath(math: DomElement): void {
  const tex = texOf(math);
  if (!tex) {
    math.remove();
    return;
  }
  const block =
    math.getAttribute('display')?.trim().toLowerCase() === 'block' ||
    math.getAttribute('mode')?.trim().toLowerCase() === 'display';
  const stand = math.ownerDocument.createElement(block ? 'div' : 'span');
  stand.setAttribute(MATH_ATTRIBUTE, block ? 'block' : 'inline');
  stand.textContent = tex;
  math.replaceWith(stand);
}
