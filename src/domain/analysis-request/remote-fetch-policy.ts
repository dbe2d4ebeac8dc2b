/**
 * Which remote hosts allowRemoteFetch may reach: official court and government domains and
 * the service's own storage, from configuration. A pattern is a host name, optionally with
 * a port ("127.0.0.1:8080"), or "*.gov.in" for any subdomain (not the bare domain). Only
 * http and https URLs qualify, and the host is compared in lower case without a trailing dot.
 */

export function hostAllowed(url: string, allowlist: readonly string[]): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return false;
  if (parsed.username !== '' || parsed.password !== '') return false;
  const host = parsed.hostname.toLowerCase().replace(/\.$/, '');
  const withPort = parsed.port === '' ? host : `${host}:${parsed.port}`;
  return allowlist.some((raw) => {
    const pattern = raw.toLowerCase();
    if (pattern.startsWith('*.')) return host.endsWith(pattern.slice(1)) && host.length > pattern.length - 1;
    return pattern.includes(':') || pattern.startsWith('[') ? pattern === withPort : pattern === host;
  });
}

/** The absolute URL of a document a record links to by a path relative to its court's site. */
export function documentUrl(baseUrl: string, path: string): string {
  return new URL(path.replace(/^\/+/, ''), baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`).toString();
}
