/**
 * Progressive enhancement of the server-rendered pages. Every page works without this script; with
 * it, live regions refresh themselves, copy buttons copy, confirmations ask first, times show in the
 * reader's zone, and "select all" boxes select. Behaviour is declared in the HTML with data-*
 * attributes, so pages need no inline script (the CSP forbids it). A page's own behaviour goes in
 * a module of this folder imported below, keyed on its own data-* attribute.
 */
import './findings.js';
import './scans.js';

/**
 * `data-live="<ms>"` on an element with an id: the page (or `data-live-src`, where the page shown
 * is the answer to a form post) is fetched again every <ms> and the element replaced by its
 * namesake in the new page, until the new one no longer has `data-live`
 * (a finished run) or the page is hidden. Focus and scroll stay where they were.
 */
function startLiveRegions(): void {
  for (const element of document.querySelectorAll<HTMLElement>('[data-live][id]')) {
    const every = Math.max(1000, Number(element.dataset.live) || 3000);
    const id = element.id;
    const source = element.dataset.liveSrc || window.location.href;
    let timer: number | undefined;
    const refresh = async (): Promise<void> => {
      if (document.hidden) return schedule();
      try {
        const response = await fetch(source, { headers: { accept: 'text/html', 'x-rampart-live': id }, credentials: 'same-origin' });
        if (!response.ok) return schedule();
        const next = new DOMParser().parseFromString(await response.text(), 'text/html').getElementById(id);
        const current = document.getElementById(id);
        if (!next || !current) return;
        if (current.innerHTML !== next.innerHTML) {
          current.replaceWith(document.importNode(next, true));
          enhance(document.getElementById(id) ?? document.body);
        }
        if (next.hasAttribute('data-live')) schedule();
      } catch {
        schedule();
      }
    };
    const schedule = (): void => {
      window.clearTimeout(timer);
      timer = window.setTimeout(() => void refresh(), every);
    };
    schedule();
  }
}

/** `data-copy="<id>"` on a button: copies that element's text (or value) and says so. */
function enhanceCopyButtons(root: ParentNode): void {
  for (const button of root.querySelectorAll<HTMLButtonElement>('button[data-copy]')) {
    button.addEventListener('click', async () => {
      const source = document.getElementById(button.dataset.copy ?? '');
      if (!source) return;
      const text = source instanceof HTMLInputElement || source instanceof HTMLTextAreaElement ? source.value : (source.textContent ?? '');
      const label = button.textContent;
      try {
        await navigator.clipboard.writeText(text.trim());
        button.textContent = 'Copied';
      } catch {
        // No clipboard access (plain HTTP on another host): select the text for a manual copy.
        const range = document.createRange();
        range.selectNodeContents(source);
        window.getSelection()?.removeAllRanges();
        window.getSelection()?.addRange(range);
        button.textContent = 'Press Ctrl+C';
      }
      window.setTimeout(() => (button.textContent = label), 2000);
    });
  }
}

/** `data-confirm="<question>"` on a form: asks before it is sent. */
function enhanceConfirmations(root: ParentNode): void {
  for (const form of root.querySelectorAll<HTMLFormElement>('form[data-confirm]')) {
    form.addEventListener('submit', (event) => {
      if (!window.confirm(form.dataset.confirm ?? 'Are you sure?')) event.preventDefault();
    });
  }
}

/** `<time datetime>` elements show the reader's local time; the UTC text stays as the title. */
function localiseTimes(root: ParentNode): void {
  const format = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  for (const time of root.querySelectorAll<HTMLTimeElement>('time[datetime]')) {
    const date = new Date(time.dateTime);
    if (Number.isNaN(date.getTime()) || time.dataset.localised) continue;
    time.title = time.textContent ?? '';
    time.textContent = format.format(date);
    time.dataset.localised = '1';
  }
}

/** `data-select-all="<name>"` on a checkbox: ticks every checkbox of that name in its form. */
function enhanceSelectAll(root: ParentNode): void {
  for (const box of root.querySelectorAll<HTMLInputElement>('input[type=checkbox][data-select-all]')) {
    box.addEventListener('change', () => {
      const scope = box.form ?? document;
      for (const other of scope.querySelectorAll<HTMLInputElement>(`input[type=checkbox][name="${CSS.escape(box.dataset.selectAll ?? '')}"]`)) other.checked = box.checked;
    });
  }
}

/** `data-autosubmit` on a select or input: its form is sent when it changes (filters, page size). */
function enhanceAutosubmit(root: ParentNode): void {
  for (const field of root.querySelectorAll<HTMLInputElement | HTMLSelectElement>('[data-autosubmit]')) {
    field.addEventListener('change', () => field.form?.requestSubmit());
  }
}

const enhancers: ((root: ParentNode) => void)[] = [enhanceCopyButtons, enhanceConfirmations, localiseTimes, enhanceSelectAll, enhanceAutosubmit];

function enhance(root: ParentNode): void {
  for (const enhancer of enhancers) enhancer(root);
}

enhance(document);
startLiveRegions();
