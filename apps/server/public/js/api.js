// The page's only way to the server: /api, with the operator token when one was entered.
const TOKEN_KEY = 'reflow.operatorToken';

export class AuthRequiredError extends Error {}

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.error ?? `HTTP ${status}`);
    this.status = status;
    this.code = body?.code;
  }
}

export const token = {
  get: () => sessionStorage.getItem(TOKEN_KEY) ?? '',
  set: (value) => (value ? sessionStorage.setItem(TOKEN_KEY, value) : sessionStorage.removeItem(TOKEN_KEY)),
};

async function request(method, path, query, body) {
  const url = new URL(`/api${path}`, location.origin);
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== '') url.searchParams.set(k, v);
  const headers = { accept: 'application/json' };
  const bearer = token.get();
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const answer = await res.json().catch(() => undefined);
  if (res.status === 401 || res.status === 403)
    throw new AuthRequiredError(answer?.error ?? 'An operator token is required');
  if (!res.ok) throw new ApiError(res.status, answer);
  return answer;
}

/** Fetches a file with the operator token (a plain link could not carry it) and hands it to the browser as a download. */
async function download(path, filename) {
  const headers = {};
  const bearer = token.get();
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  const res = await fetch(new URL(`/api${path}`, location.origin), { headers });
  if (!res.ok) throw new ApiError(res.status, await res.json().catch(() => undefined));
  const link = document.createElement('a');
  link.href = URL.createObjectURL(await res.blob());
  link.download = filename;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
}

export const api = {
  changes: (id, format) => download(`/tasks/${encodeURIComponent(id)}/changes.${format}`, `${id}-changes.${format}`),
  tasks: (filters) => request('GET', '/tasks', filters),
  nodes: () => request('GET', '/nodes'),
  task: (id) => request('GET', `/tasks/${encodeURIComponent(id)}`),
  cancel: (id) => request('POST', `/tasks/${encodeURIComponent(id)}/cancel`),
  approve: (id, reason) => request('POST', `/tasks/${encodeURIComponent(id)}/approve`, {}, reason ? { reason } : {}),
  reject: (id, reason) => request('POST', `/tasks/${encodeURIComponent(id)}/reject`, {}, { reason }),
  rooms: () => request('GET', '/rooms'),
  startReflow: (args) => request('POST', '/reflows', {}, args),
  revert: (id) => request('POST', `/tasks/${encodeURIComponent(id)}/revert`),
  applyPlan: (id) => request('POST', `/tasks/${encodeURIComponent(id)}/apply-plan`),
  bookings: (month) => request('GET', '/bookings', { month }),
};
