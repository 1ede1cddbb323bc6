// A masked form for the API key, shared by every admin page: the key never shows in plain text, stays in this tab's
// session storage only, and can be forgotten. A modal <dialog> (not window.prompt) so a browser never blocks on it.
import './keyDialog.css';

/** What the person chose: a key to use, forgetting the stored one, or nothing. */
export type KeyChoice = { kind: 'use'; key: string } | { kind: 'forget' } | { kind: 'cancel' };

function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Partial<HTMLElementTagNameMap[K]> = {},
  children: (Node | string)[] = [],
): HTMLElementTagNameMap[K] {
  const el = Object.assign(document.createElement(tag), props);
  el.append(...children);
  return el;
}

let open: Promise<KeyChoice> | undefined;

/**
 * Shows the key form with `message`; `canForget` offers to forget the stored key. Several callers asking at once
 * share one form and its answer.
 */
export function askForApiKey(message: string, canForget: boolean): Promise<KeyChoice> {
  open ??= new Promise<KeyChoice>((resolve) => {
    const input = element('input', { type: 'password', name: 'apiKey', autocomplete: 'off', required: true });
    input.setAttribute('aria-describedby', 'cairn-key-note');
    const use = element('button', { type: 'submit', className: 'primary', textContent: 'Use this key' });
    const cancel = element('button', { type: 'button', textContent: 'Cancel' });
    const forget = element('button', { type: 'button', textContent: 'Forget the key' });
    const form = element('form', { method: 'dialog' }, [
      element('h2', { id: 'cairn-key-title', textContent: 'API key' }),
      element('p', { textContent: message }),
      element('label', {}, ['API key', input]),
      element('p', { id: 'cairn-key-note', className: 'key-note', textContent: 'Kept for this browser tab only.' }),
      element('div', { className: 'key-actions' }, canForget ? [use, forget, cancel] : [use, cancel]),
    ]);
    const dialog = element('dialog', { className: 'key-dialog' }, [form]);
    dialog.setAttribute('aria-labelledby', 'cairn-key-title');
    const finish = (choice: KeyChoice) => {
      dialog.close();
      dialog.remove();
      open = undefined;
      resolve(choice);
    };
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const key = input.value.trim();
      finish(key ? { kind: 'use', key } : { kind: 'cancel' });
    });
    cancel.addEventListener('click', () => finish({ kind: 'cancel' }));
    forget.addEventListener('click', () => finish({ kind: 'forget' }));
    dialog.addEventListener('cancel', (e) => {
      e.preventDefault(); // Escape
      finish({ kind: 'cancel' });
    });
    document.body.append(dialog);
    dialog.showModal();
    input.focus();
  });
  return open;
}
