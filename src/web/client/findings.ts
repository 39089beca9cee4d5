/**
 * Filter forms of the findings pages (`data-drop-empty` on a GET form): fields left empty ("any
 * threat", no search) are left out of the address, so a shared or bookmarked list URL names only
 * the filters that apply. Without the script the server treats empty values as absent anyway.
 */
for (const form of document.querySelectorAll<HTMLFormElement>('form[data-drop-empty]')) {
  form.addEventListener('formdata', (event) => {
    for (const [name, value] of [...event.formData.entries()]) if (value === '') event.formData.delete(name);
  });
}
