/**
 * Where `rampart vulndb sync` downloads from. Kept apart from the sync (no imports) so the CLI can
 * name its sources without loading the store code.
 */
import type { Config } from '../config.js';

/** Where the three sources are downloaded from. */
export interface VulnDbSources {
  nvdBaseUrl: string;
  kevUrl: string;
  epssUrl: string;
  /** NVD API key: raises the rate limit from 5 to 50 requests per 30 s. */
  nvdApiKey?: string;
}

export const DEFAULT_SOURCES: VulnDbSources = {
  nvdBaseUrl: 'https://services.nvd.nist.gov/rest/json/cves/2.0',
  kevUrl: 'https://www.cisa.gov/sites/default/files/feeds/known_exploited_vulnerabilities.json',
  epssUrl: 'https://epss.cyentia.com/epss_scores-current.csv.gz',
};

/** The sources a configuration names (RAMPART_NVD_URL, ...), NVD's, CISA's and FIRST's by default. */
export function vulnDbSources(config: Pick<Config, 'vulndb'>): VulnDbSources {
  const { vulndb } = config;
  return {
    nvdBaseUrl: vulndb.nvdUrl ?? DEFAULT_SOURCES.nvdBaseUrl,
    kevUrl: vulndb.kevUrl ?? DEFAULT_SOURCES.kevUrl,
    epssUrl: vulndb.epssUrl ?? DEFAULT_SOURCES.epssUrl,
    ...(vulndb.nvdApiKey ? { nvdApiKey: vulndb.nvdApiKey } : {}),
  };
}
