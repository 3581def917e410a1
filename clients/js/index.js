// Test helpers for Fauxth: start the binary (or attach to a running one) and drive its control API.
// Plain ES module, no dependencies: `fetch` for the API (Node 18+, browsers, React Native), and Node's
// child_process only when `Fauxth.start` spawns a binary, so Jest, Vitest, Playwright and Detox can all use it.

/** An answer from the control API that was not a success. */
export class FauxthError extends Error {
  constructor(status, code, message) {
    super(`${status} ${code}: ${message}`);
    this.name = 'FauxthError';
    this.status = status;
    this.code = code;
    this.detail = message;
  }
}

/** A captured email or SMS with its first code and link at hand. */
function asMessage(json) {
  const codes = json.codes ?? [];
  const links = json.links ?? [];
  return { ...json, codes, links, code: codes[0] ?? null, link: links[0] ?? null };
}

const env = (name) => (typeof process !== 'undefined' ? process.env?.[name] : undefined);

/** How much of a started server's stderr is kept: its end, where a crash's message is. */
const STDERR_KEPT = 256 * 1024;
/** How many of its stdout lines `lines` keeps, the newest, unless `start` is told otherwise: a long run's event log
 * would otherwise grow the test process without end. */
const LINES_KEPT = 10_000;

export class Fauxth {
  /** @param {string} url the server's base URL; `process` when this object started it. */
  constructor(url, process = null) {
    this.url = String(url).replace(/\/+$/, '');
    this.process = process;
    /** What a started server printed on stdout, line by line (the ready line, the event log): the newest `linesKept`. */
    this.lines = [];
    /** What it wrote on stderr: its last 256 KiB. */
    this.stderr = '';
  }

  /**
   * Starts `binary` (else $FAUXTH_BIN, else `fauxth` on PATH) as `serve --port 0 ...args` and waits for its ready line.
   * @param {{binary?: string, args?: string[], env?: Record<string,string>, readyTimeout?: number, linesKept?: number}} [options]
   */
  static async start({ binary, args = [], env: childEnv, readyTimeout = 30_000, linesKept = LINES_KEPT } = {}) {
    const { spawn } = await import('node:child_process');
    const readline = await import('node:readline');
    const program = binary || env('FAUXTH_BIN') || 'fauxth';
    const child = spawn(program, ['serve', '--port', '0', ...args], { env: childEnv ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const server = new this('', child);
    child.stderr.setEncoding('utf8');
    // Read as it comes (an unread pipe fills at 64 KiB and the server then blocks writing to it), the end kept.
    child.stderr.on('data', (chunk) => { server.stderr = (server.stderr + chunk).slice(-STDERR_KEPT); });
    server.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
    const lines = readline.createInterface({ input: child.stdout });
    server.url = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => { child.kill(); reject(new Error(`fauxth printed no ready line in ${readyTimeout} ms; stderr: ${server.stderr}`)); },
        readyTimeout);
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(error.code === 'ENOENT'
          ? new Error(`no fauxth binary at ${program}: pass binary, set FAUXTH_BIN, or put fauxth on PATH`) : error);
      });
      // 'close', not 'exit': it comes once stderr is read to its end, so the error holds what the server said last.
      child.once('close', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`fauxth exited (status ${code ?? signal}) before it was ready; stderr: ${server.stderr}`));
      });
      lines.on('line', (line) => {
        server.lines.push(line);
        if (server.lines.length > Math.max(1, linesKept)) server.lines.shift();
        if (line.startsWith('ready ')) { clearTimeout(timer); resolve(line.slice('ready '.length)); }
        else if (line.startsWith('{"kind":"ready"')) { clearTimeout(timer); resolve(JSON.parse(line).base_url); }
      });
    });
    return server;
  }

  /** A server already running at `url` (else $FAUXTH_URL, else http://127.0.0.1:9099); `stop` leaves it running. */
  static async attach(url) {
    const server = new this(url || env('FAUXTH_URL') || 'http://127.0.0.1:9099');
    await server.health();
    return server;
  }

  /** Stops a server this object started (SIGTERM, then SIGKILL after `timeout` ms); its exit code or signal. */
  async stop({ signal = 'SIGTERM', timeout = 15_000 } = {}) {
    if (!this.process) return null;
    if (this.process.exitCode === null && this.process.signalCode === null) {
      this.process.kill(signal);
      const timer = setTimeout(() => this.process.kill('SIGKILL'), timeout);
      await this.exited;
      clearTimeout(timer);
    }
    return this.exited;
  }

  get controlUrl() { return `${this.url}/_emu/v1`; }

  /** One control API call (`path` under /_emu/v1): the decoded JSON answer, or a FauxthError. */
  async request(method, path, { body, params, timeout = 60_000 } = {}) {
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(params ?? {})) if (value !== undefined && value !== null) query.set(key, String(value));
    const url = `${this.controlUrl}${path}${[...query].length ? `?${query}` : ''}`;
    const response = await fetch(url, {
      method, signal: AbortSignal.timeout(timeout),
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) {
      let error;
      try { error = JSON.parse(text).error; } catch { error = null; }
      throw new FauxthError(response.status, error?.code ?? 'http_error', error?.message ?? text);
    }
    return text ? JSON.parse(text) : null;
  }

  health() { return this.request('GET', '/health'); }
  info() { return this.request('GET', '/info'); }

  /** Back to the seed: everything (the clock too, unless keepClock), or one tenant. */
  async reset({ tenant, keepClock = false } = {}) { await this.request('POST', '/reset', { params: { tenant, clock: keepClock ? 'keep' : undefined } }); }
  async snapshot(name, { faults = true } = {}) { await this.request('POST', '/snapshots', { body: { name, faults } }); }
  /** Puts back the snapshot `name`: everything, or (with `tenant`) that tenant alone, the others untouched. */
  async restore(name, { tenant } = {}) { await this.request('POST', `/snapshots/${encodeURIComponent(name)}/restore`, { params: { tenant } }); }

  // ------------------------------------------------------------------ messages and deep links

  async messages(filters = {}) { return (await this.request('GET', '/messages', { params: filters })).messages.map(asMessage); }

  /** The newest matching message at once if there is one (`since`, a message id, skips those), else the next to arrive. */
  async waitForMessage({ to, purpose, channel, tenant, since, timeout = 10 } = {}) {
    const params = { to, purpose, channel, tenant, since, timeout };
    return asMessage(await this.request('GET', '/messages/wait', { params, timeout: (timeout + 30) * 1000 }));
  }

  async deepLinks(filters = {}) { return (await this.request('GET', '/deeplinks', { params: filters })).deeplinks; }

  async waitForDeepLink({ scheme, tenant, since, timeout = 10 } = {}) {
    return this.request('GET', '/deeplinks/wait', { params: { scheme, tenant, since, timeout }, timeout: (timeout + 30) * 1000 });
  }

  // ------------------------------------------------------------------ the clock

  async now() { return new Date((await this.request('GET', '/clock')).now); }
  async freeze(at) { return new Date((await this.request('POST', '/clock/freeze', { body: at ? { at: new Date(at).toISOString() } : {} })).now); }

  /** Moves the clock on: `advance(3600)` or `advance({ days: 1 })`. */
  async advance(by) {
    const seconds = typeof by === 'number' ? by
      : (by.days ?? 0) * 86400 + (by.hours ?? 0) * 3600 + (by.minutes ?? 0) * 60 + (by.seconds ?? 0);
    return new Date((await this.request('POST', '/clock/advance', { body: { seconds } })).now);
  }

  async resume() { return new Date((await this.request('POST', '/clock/resume', { body: {} })).now); }

  /** Runs `body` with the clock frozen (advance it by hand), and lets it run again after. */
  async withFrozenClock(body, at) {
    await this.freeze(at);
    try { return await body(this); } finally { await this.resume(); }
  }

  // ------------------------------------------------------------------ faults

  async addFault(rule) { return (await this.request('POST', '/faults', { body: rule })).rules[0]; }
  async removeFault(id) { await this.request('DELETE', `/faults/${encodeURIComponent(id)}`); }
  async faults() { return (await this.request('GET', '/faults')).rules; }

  /** Runs `body` with a fault rule in force, and removes it after. */
  async withFault(rule, body) {
    const added = await this.addFault(rule);
    try { return await body(added); } finally { await this.removeFault(added.id).catch(() => {}); }
  }

  // ------------------------------------------------------------------ tenants, users, events

  /** A new tenant of `dialect` (supabase, firebase, cognito); without an id, the server picks a fresh one. */
  async createTenant(dialect, { id, ...fields } = {}) {
    return this.request('POST', '/tenants', { body: { dialect, ...(id ? { id } : {}), ...fields } });
  }

  async deleteTenant(id) { await this.request('DELETE', `/tenants/${encodeURIComponent(id)}`); }

  /** Runs `body` with a tenant made for it, deleted after: one per test keeps parallel workers apart. */
  async withTenant(dialect, body, fields = {}) {
    const tenant = await this.createTenant(dialect, fields);
    try { return await body(tenant); } finally { await this.deleteTenant(tenant.id).catch(() => {}); }
  }

  /** A tenant's users, or every tenant's with a null tenant (each naming its `tenant`). */
  async users(tenant, search = {}) {
    const path = tenant == null ? '/users' : `/tenants/${encodeURIComponent(tenant)}/users`;
    return (await this.request('GET', path, { params: search })).users;
  }
  async createUser(tenant, fields) { return this.request('POST', `/tenants/${encodeURIComponent(tenant)}/users`, { body: fields }); }
  async events(filters = {}) { return (await this.request('GET', '/events', { params: filters })).events; }
}

export default Fauxth;
