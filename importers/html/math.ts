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
 * Replaces a MathML `<math>` element with a `<span>` (inline) or `<p>` (display="block") holding its TeX, which
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
  // A paragraph, not a div: Readability moves a div's lone text into a new <p> and drops the div, marker and all.
  const stand = math.ownerDocument.createElement(block ? 'p' : 'span');
  stand.setAttribute(MATH_ATTRIBUTE, block ? 'block' : 'inline');
  stand.textContent = tex;
  math.replaceWith(stand);
}

/**
 * True for an element that wraps one rendered equation (MathJax 3's `<mjx-container>`): its glyphs carry no text
 * and its class ("MathJax CtxtMenu_Attached_0") reads as a menu to Readability, which would drop the equation.
 */
export const isMathContainer = (element: DomElement): boolean => element.localName === 'mjx-container';

/**
 * Replaces a math container with its equation (its MathML copy, as `replaceMath` writes it); a display container
 * (`display="true"`) gives a display equation. A container with no MathML is left alone.
 */
export function replaceMathContainer(container: DomElement): boolean {
  const math = container.querySelector('math');
  if (!math) return false;
  if (container.getAttribute('display')?.trim().toLowerCase() === 'true') math.setAttribute('display', 'block');
  container.replaceWith(math);
  replaceMath(math);
  return true;
}
