/**
 * The frame of every page: the document head (one stylesheet, one deferred module script, no
 * inline script or style: the CSP forbids them), the skip link, the navigation for a signed-in
 * account, the flash message, and the footer.
 */
import type { ComponentChildren } from 'preact';
import type { User } from '../db/schema.js';
import { VERSION } from '../shared/version.js';
import type { Flash } from './flash.js';

/** The sections of the navigation; a page names the one it belongs to. */
export type Section = 'dashboard' | 'scans' | 'vulnerabilities' | 'targets' | 'webhooks' | 'settings' | 'admin' | 'none';

export interface PageFrame {
  /** The page's own title: the document title becomes "<title> · Rampart". */
  title: string;
  /** The signed-in account; null on the sign-in pages. */
  user: User | null;
  /** The viewer's CSRF token (the sign-out button is a form). */
  csrfToken: string;
  section?: Section;
  flash?: Flash | null | undefined;
  /** Narrow, centred column: the sign-in and sign-up pages. */
  narrow?: boolean;
}

const NAV: { section: Section; href: string; label: string }[] = [
  { section: 'dashboard', href: '/', label: 'Dashboard' },
  { section: 'scans', href: '/scans', label: 'Scans' },
  { section: 'vulnerabilities', href: '/vulnerabilities', label: 'Vulnerabilities' },
  { section: 'targets', href: '/targets', label: 'Targets' },
  { section: 'webhooks', href: '/webhooks', label: 'Webhooks' },
];

/** Cache-busting suffix of asset URLs: a new version never runs with the old script or style. */
export const ASSET_VERSION = encodeURIComponent(VERSION);

export function Layout(props: PageFrame & { children: ComponentChildren }) {
  const { user, section = 'none' } = props;
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${props.title} · Rampart`}</title>
        <link rel="stylesheet" href={`/assets/app.css?v=${ASSET_VERSION}`} />
        <link rel="icon" href={`/assets/favicon.svg?v=${ASSET_VERSION}`} type="image/svg+xml" />
        <script type="module" src="/assets/app.js" />
      </head>
      <body>
        <a class="skip-link" href="#content">
          Skip to content
        </a>
        <header class="topbar">
          <a class="brand" href="/" aria-label="Rampart home">
            <img src={`/assets/favicon.svg?v=${ASSET_VERSION}`} alt="" width="24" height="24" />
            <span>Rampart</span>
          </a>
          {user && (
            <nav aria-label="Main">
              <ul class="nav">
                {NAV.map((item) => (
                  <li>
                    <a href={item.href} aria-current={item.section === section ? 'page' : undefined}>
                      {item.label}
                    </a>
                  </li>
                ))}
              </ul>
            </nav>
          )}
          {user && (
            <nav class="account" aria-label="Account">
              <ul class="nav">
                {user.role === 'admin' && (
                  <li>
                    <a href="/admin/users" aria-current={section === 'admin' ? 'page' : undefined}>
                      Users
                    </a>
                  </li>
                )}
                <li>
                  <a href="/settings" aria-current={section === 'settings' ? 'page' : undefined}>
                    <span class="visually-hidden">Settings for </span>
                    {user.email}
                  </a>
                </li>
                <li>
                  <form method="post" action="/sign-out" class="inline">
                    <input type="hidden" name="_csrf" value={props.csrfToken} />
                    <button type="submit" class="link">
                      Sign out
                    </button>
                  </form>
                </li>
              </ul>
            </nav>
          )}
        </header>
        <main id="content" class={props.narrow ? 'narrow' : undefined} tabIndex={-1}>
          {props.flash && (
            <div class={`alert alert-${props.flash.kind}`} role={props.flash.kind === 'error' ? 'alert' : 'status'}>
              {props.flash.text}
            </div>
          )}
          {props.children}
        </main>
        <footer class="footer">
          <span>Rampart {VERSION}</span>
          <a href="/docs">API reference</a>
          <a href="/auth.md">Agent sign-up</a>
        </footer>
      </body>
    </html>
  );
}
