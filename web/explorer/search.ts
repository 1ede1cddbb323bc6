// Typeahead over entity names and aliases (debounced), as an ARIA combobox.
import { searchEntities, type EntityHit } from './api.js';
import type { TypeColors } from './TypeColors.js';
import { el } from './dom.js';

const DEBOUNCE_MS = 200;

/** One option of the list: the type's swatch, the name, the alias that matched (if the name did not) and the type. */
function optionFor(hit: EntityHit, i: number, text: string, colors: TypeColors, onPick: () => void): HTMLLIElement {
  const swatch = el('span', { className: 'swatch', attrs: { 'aria-hidden': 'true' } });
  swatch.style.background = colors.of(hit.type);
  const needle = text.toLowerCase();
  const alias = hit.name.toLowerCase().includes(needle)
    ? undefined
    : hit.aliases.find((a) => a.toLowerCase().includes(needle));
  const option = el(
    'li',
    { attrs: { role: 'option', id: `search-option-${i}`, 'aria-selected': 'false', 'data-id': hit.id } },
    swatch,
    el('span', { className: 'opt-name', text: hit.name }),
    alias ? el('span', { className: 'muted', text: ` aka ${alias}` }) : null,
    el('span', { className: 'opt-type', text: hit.type }),
  );
  // mousedown, not click: the input's blur would close the list first.
  option.addEventListener('mousedown', (e) => {
    e.preventDefault();
    onPick();
  });
  return option;
}

/** Binds the search box and its listbox; `choose` receives the picked entity id. */
export function setupSearch(
  input: HTMLInputElement,
  list: HTMLUListElement,
  colors: TypeColors,
  choose: (id: string) => void,
): void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let ticket = 0;
  let ids: string[] = [];
  let active = -1;

  const close = (): void => {
    list.hidden = true;
    input.setAttribute('aria-expanded', 'false');
    input.removeAttribute('aria-activedescendant');
    active = -1;
  };
  const highlight = (i: number): void => {
    active = i;
    list.querySelectorAll('[role=option]').forEach((o, j) => o.setAttribute('aria-selected', String(j === i)));
    if (i >= 0) {
      input.setAttribute('aria-activedescendant', `search-option-${i}`);
      list.querySelector(`#search-option-${i}`)?.scrollIntoView({ block: 'nearest' });
    }
  };
  const pick = (i: number): void => {
    const id = ids[i];
    if (id === undefined) return;
    close();
    input.value = '';
    choose(id);
  };

  const run = async (text: string): Promise<void> => {
    const mine = ++ticket;
    const { total, hits } = await searchEntities(text, 12).catch(() => ({ total: 0, hits: [] }));
    if (mine !== ticket) return;
    ids = hits.map((h) => h.id);
    list.replaceChildren(...hits.map((h, i) => optionFor(h, i, text, colors, () => pick(i))));
    if (hits.length === 0) list.append(el('li', { className: 'muted empty', text: 'No entity matches.' }));
    else if (total > hits.length)
      list.append(el('li', { className: 'muted empty', text: `${total - hits.length} more: type more letters.` }));
    list.hidden = false;
    input.setAttribute('aria-expanded', 'true');
    highlight(hits.length ? 0 : -1);
  };

  input.addEventListener('input', () => {
    clearTimeout(timer);
    const text = input.value.trim();
    if (!text) {
      ticket++;
      close();
      return;
    }
    timer = setTimeout(() => void run(text), DEBOUNCE_MS);
  });
  input.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowDown' && ids.length) highlight((active + 1) % ids.length);
    else if (e.key === 'ArrowUp' && ids.length) highlight((active - 1 + ids.length) % ids.length);
    else if (e.key === 'Enter' && !list.hidden) pick(Math.max(0, active));
    else if (e.key === 'Escape') close();
    else return;
    e.preventDefault();
  });
  input.addEventListener('blur', close);
}
