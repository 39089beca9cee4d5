/**
 * Which links and forms the scanner leaves alone unless the scan opts in (`allow_destructive`):
 * those that look as if they delete or reset something, install or set up the application, or
 * end the session (a crawl that logs itself out sees nothing behind the login, and a crawl that
 * follows "delete" links empties the application it tests). The words are looked for in the URL's
 * path and query, the link's text, the form's action and its submit button's label.
 *
 * Words are matched at the start of a word of the text (split at anything but letters and digits,
 * and at camelCase humps), and two adjacent words are joined (`log out` = `logout`), so
 * `deleteUser`, `delete_user.php`, `/user/delete/3` and "Sign out" all count, while `dropdown`,
 * `modelist` or `undeleted` do not.
 */

const WORDS = [
  'logout', 'logoff', 'signout', 'signoff', 'delete', 'remove', 'reset', 'setup', 'install', 'uninstall',
  'drop', 'destroy', 'truncate', 'purge', 'wipe', 'erase', 'shutdown', 'reboot', 'deactivate', 'unsubscribe', 'revoke',
];
/** Words that start like a destructive one and are not. */
const HARMLESS = new Set(['dropdown', 'dropdowns', 'dropzone', 'dropbox']);

function words(text: string): string[] {
  return text
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');
}

/** True when `text` (a URL, a link text, a label) names a destructive or session-ending action. */
export function looksDestructive(...texts: string[]): boolean {
  for (const text of texts) {
    let decoded = text;
    try {
      decoded = decodeURIComponent(text);
    } catch {
      // Malformed escapes: read the text as it is.
    }
    const list = words(decoded);
    const candidates = [...list, ...list.slice(1).map((word, i) => `${list[i]}${word}`)];
    if (candidates.some((word) => !HARMLESS.has(word) && WORDS.some((w) => word.startsWith(w)))) return true;
  }
  return false;
}
