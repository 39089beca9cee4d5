/**
 * Seeds beyond the start page: the paths `robots.txt` names (Allow and Disallow alike: a path a
 * site asks robots to avoid is often the interesting one; robots.txt is read as a map, never as
 * permission nor as a prohibition) and the URLs of `sitemap.xml` (and of the sitemaps robots.txt
 * names, one level of sitemap index deep).
 */

/** The paths and sitemap URLs of a robots.txt; wildcards cut the path at the first `*` or `$`. */
export function readRobots(text: string, origin: string): { paths: string[]; sitemaps: string[] } {
  const paths: string[] = [];
  const sitemaps: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/#.*$/, '').trim();
    const match = /^(allow|disallow|sitemap)\s*:\s*(\S+)/i.exec(line);
    if (!match) continue;
    const [, field, value] = match;
    if (field!.toLowerCase() === 'sitemap') {
      sitemaps.push(value!);
      continue;
    }
    const path = value!.replace(/[*$].*$/, '');
    if (!path.startsWith('/') || path === '/') continue;
    try {
      paths.push(new URL(path, origin).href);
    } catch {
      // Not a path: ignored.
    }
  }
  return { paths, sitemaps };
}

/** The `<loc>` URLs of a sitemap or a sitemap index (XML entities of URLs decoded). */
export function readSitemap(xml: string): { urls: string[]; isIndex: boolean } {
  const urls = [...xml.matchAll(/<loc>\s*([^<\s]+)\s*<\/loc>/gi)].map((m) => m[1]!.replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'"));
  return { urls, isIndex: /<sitemapindex[\s>]/i.test(xml) };
}
