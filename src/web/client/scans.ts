/**
 * The scan form's behaviour (its page works without it): the target help of the chosen scan
 * type only, the ZAP login fields only for ZAP, the reader's own time zone on a blank form, and
 * "Preview schedule" without a reload.
 */

/** Shows the target help (and the ZAP fields) of the checked scan type. */
function followScanType(form: HTMLFormElement): void {
  const radios = [...form.querySelectorAll<HTMLInputElement>('input[type=radio][name=scan_type]')];
  if (radios.length === 0) return;
  const apply = (): void => {
    const type = radios.find((radio) => radio.checked)?.value ?? '';
    for (const help of form.querySelectorAll<HTMLElement>('[data-target-help]')) help.hidden = !(help.dataset.targetHelp ?? '').split(' ').includes(type);
    for (const zap of form.querySelectorAll<HTMLElement>('[data-zap-only]')) zap.hidden = type !== 'ZAP';
  };
  for (const radio of radios) radio.addEventListener('change', apply);
  apply();
}

/** A blank form starts in the reader's zone (the server cannot know it) when the list has it. */
function chooseBrowserZone(form: HTMLFormElement): void {
  const select = form.querySelector<HTMLSelectElement>('select[data-browser-zone]');
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (select && zone && [...select.options].some((option) => option.value === zone)) select.value = zone;
}

/** "Preview schedule" fetches the re-rendered form and swaps in its preview; a form with errors is sent normally. */
function previewInPlace(form: HTMLFormElement): void {
  const button = form.querySelector<HTMLButtonElement>('button[data-preview-schedule]');
  if (!button) return;
  let sendNormally = false;
  button.addEventListener('click', async (event) => {
    if (sendNormally) return;
    event.preventDefault();
    const body = new FormData(form);
    body.set('intent', 'preview');
    try {
      const response = await fetch(form.action, { method: 'POST', body, credentials: 'same-origin', headers: { accept: 'text/html' } });
      const next = new DOMParser().parseFromString(await response.text(), 'text/html').getElementById('schedule-preview');
      const current = document.getElementById('schedule-preview');
      if (!response.ok || !next || !current) throw new Error('no preview');
      current.replaceWith(document.importNode(next, true));
    } catch {
      sendNormally = true;
      form.requestSubmit(button);
    }
  });
}

/**
 * Enter in a field saves the scan. (The browser's implicit submission uses the form's first submit
 * button, which is "Preview schedule": it comes before "Create scan" in the form.)
 */
function enterSaves(form: HTMLFormElement): void {
  const save = form.querySelector<HTMLButtonElement>('button[name="intent"][value="save"]');
  if (!save) return;
  form.addEventListener('keydown', (event) => {
    const field = event.target;
    if (event.key !== 'Enter' || !(field instanceof HTMLInputElement) || field.type === 'checkbox' || field.type === 'radio' || field.type === 'file') return;
    event.preventDefault();
    form.requestSubmit(save);
  });
}

for (const form of document.querySelectorAll<HTMLFormElement>('form[data-scan-form]')) {
  enterSaves(form);
  followScanType(form);
  chooseBrowserZone(form);
  previewInPlace(form);
}
