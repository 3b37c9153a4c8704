// The pages' only way to talk to the Go test server. Every request carries
// the test's session (?s=... on the page URL) so each test counts its own
// side effects.
const session = new URLSearchParams(location.search).get('s') || '';

export function apiURL(path, params = {}) {
  const q = new URLSearchParams({ ...params, s: session });
  return `${path}?${q}`;
}

export async function post(path, body, params = {}) {
  const r = await fetch(apiURL(path, params), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body ?? {}),
  });
  if (!r.ok) throw new Error(`${path}: HTTP ${r.status}`);
  return r.json();
}

export async function options(q, list = 'people') {
  const r = await fetch(apiURL('/api/options', { q, list }));
  if (!r.ok) throw new Error(`/api/options: HTTP ${r.status}`);
  return r.json();
}

export const customers = ['Acme Corp', 'Globex', 'Initech', 'Umbrella', 'Hooli', 'Stark Industries', 'Wayne Enterprises', 'Wonka Industries', 'Cyberdyne', 'Soylent'];
