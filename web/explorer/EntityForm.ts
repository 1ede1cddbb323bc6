// The entity form of the side panel: create or edit type, name, aliases, description and properties (JSON).
import { button, el } from './dom.js';
import { errorText, type EditedEntity, type EntityFields } from './editApi.js';

/** What the form starts from (nothing for a new entity). */
export interface EntityFormValues {
  type: string;
  name: string;
  aliases: readonly string[];
  description: string | null;
  properties: unknown;
}

/** What the form does with its values. */
export interface EntityFormOptions {
  title: string;
  submitLabel: string;
  initial?: EntityFormValues;
  /** Creates only: an optional stable id field. */
  withId?: boolean;
  save(fields: EntityFields & { id?: string }): Promise<EditedEntity>;
  saved(entity: EditedEntity): void;
  cancel(): void;
}

function field(label: string, name: string, input: HTMLInputElement | HTMLTextAreaElement): HTMLElement {
  input.name = name;
  input.id = `entity-form-${name}`;
  return el('div', { className: 'field' }, el('label', { text: label, attrs: { for: input.id } }), input);
}

function input(value: string, attrs: Record<string, string> = {}): HTMLInputElement {
  const i = el('input', { attrs: { type: 'text', spellcheck: 'false', ...attrs } });
  i.value = value;
  return i;
}

function textarea(value: string, rows: number): HTMLTextAreaElement {
  const t = el('textarea', { attrs: { rows: String(rows), spellcheck: 'false' } });
  t.value = value;
  return t;
}

/** Reads the form; throws a message that says what to fix when the properties are not a JSON object. */
function readFields(form: HTMLFormElement, withId: boolean): EntityFields & { id?: string } {
  const value = (name: string) => (form.elements.namedItem(name) as HTMLInputElement | null)?.value ?? '';
  let properties: unknown;
  try {
    properties = value('properties').trim() ? JSON.parse(value('properties')) : {};
  } catch (e) {
    throw new Error(`Properties are not valid JSON: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  if (properties === null || typeof properties !== 'object' || Array.isArray(properties))
    throw new Error('Properties must be a JSON object, e.g. {"tier": 1}.');
  const id = value('id').trim();
  return {
    ...(withId && id ? { id } : {}),
    type: value('type').trim(),
    name: value('name').trim(),
    aliases: value('aliases')
      .split(',')
      .map((a) => a.trim())
      .filter(Boolean),
    description: value('description').trim() || null,
    properties,
  };
}

/** Builds the form; errors (the server's code and message, or what is wrong with the JSON) show in it. */
export function entityForm(o: EntityFormOptions): HTMLFormElement {
  const v = o.initial;
  const error = el('p', { className: 'form-error', attrs: { role: 'alert' } });
  error.hidden = true;
  const submit = el('button', { text: o.submitLabel, attrs: { type: 'submit', 'data-action': 'save-entity' } });
  const form = el(
    'form',
    { className: 'entity-form', attrs: { 'aria-label': o.title } },
    el('h3', { text: o.title }),
    o.withId ? field('Id (optional)', 'id', input('', { placeholder: 'e.g. svc:payments' })) : null,
    field('Type', 'type', input(v?.type ?? '', { placeholder: 'e.g. Service', required: '' })),
    field('Name', 'name', input(v?.name ?? '', { required: '' })),
    field('Aliases (comma-separated)', 'aliases', input(v?.aliases.join(', ') ?? '')),
    field('Description', 'description', textarea(v?.description ?? '', 3)),
    field('Properties (JSON object)', 'properties', textarea(JSON.stringify(v?.properties ?? {}, null, 2), 5)),
    error,
    el(
      'div',
      { className: 'actions' },
      submit,
      button('Cancel', () => o.cancel(), { className: 'quiet' }),
    ),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    error.hidden = true;
    submit.disabled = true;
    const show = (err: unknown) => {
      error.textContent = errorText(err);
      error.hidden = false;
      submit.disabled = false;
    };
    try {
      o.save(readFields(form, o.withId ?? false)).then(o.saved, show);
    } catch (err) {
      show(err);
    }
  });
  return form;
}
