// Tiny DOM builder: every piece of text is set with textContent, so API strings can never become markup.

type Child = Node | string | null | undefined | false;

/** Attributes and handlers accepted by `el`. */
export interface ElProps {
  className?: string;
  text?: string;
  attrs?: Record<string, string>;
  on?: Partial<{ [K in keyof HTMLElementEventMap]: (e: HTMLElementEventMap[K]) => void }>;
}

/** Creates an element; strings among the children become text nodes. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: ElProps = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (props.className) node.className = props.className;
  if (props.text !== undefined) node.textContent = props.text;
  for (const [k, v] of Object.entries(props.attrs ?? {})) node.setAttribute(k, v);
  for (const [k, handler] of Object.entries(props.on ?? {})) node.addEventListener(k, handler as EventListener);
  for (const c of children) if (c) node.append(typeof c === 'string' ? document.createTextNode(c) : c);
  return node;
}

/** A button with a visible text label (and an optional longer accessible title). */
export function button(label: string, onClick: (e: MouseEvent) => void, props: ElProps = {}): HTMLButtonElement {
  const b = el('button', { ...props, text: label, attrs: { type: 'button', ...(props.attrs ?? {}) } });
  b.addEventListener('click', onClick);
  return b;
}

/** Looks up an element that index.html must contain. */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const node = document.getElementById(id);
  if (!node) throw new Error(`#${id} is missing from index.html`);
  return node as T;
}
