// Fauxth console: shared helpers, the control API client, the hash router, the header (unread count,
// clock, live state) and the Server-Sent Events feed. Each view lives in its own console-<view>.js and
// registers itself with registerView(); they all load (deferred) before DOMContentLoaded, when boot() runs.
//
// Plain ES2020, no dependencies, works offline. Untrusted content (message bodies, subjects, metadata,
// event details, URLs) is only ever inserted as text through el(), or as an <iframe sandbox="" srcdoc>.
'use strict';

const API = '/_emu/v1';
const VIEW_NAMES = ['inbox', 'deeplinks', 'users', 'sessions', 'events', 'faults', 'clock', 'connect'];
const VIEW_TITLES = {
  inbox: 'Inbox', deeplinks: 'Deep links', users: 'Users', sessions: 'Sessions', events: 'Events',
  faults: 'Faults', clock: 'Clock', connect: 'Connect',
};

/** State every view may read. Views keep their own state in their own files. */
const shared = {
  tenants: [],          // GET /tenants: [{id, dialect, name, user_count}]
  clock: null,          // { now: ms, mode, fetchedAt: ms (real time of the reading) }
  current: null,        // the active view's name
  tenantsReady: null,   // the first loadTenants(), for views that need the tenants before loading
  // The tenant every view shows ('' for all of them; 'app', the app's own mail and SMS, is the inbox's alone), and
  // that the nav counts count: one choice, made in any view's Tenant select, remembered across reloads.
  tenant: storedTenant(),
  unread: new Map(),    // id → tenant of messages that arrived live and are not seen yet
};

function storedTenant() {
  try { return localStorage.getItem('fauxth.console.tenant') || ''; } catch { return ''; }
}

const $ = (selector, root = document) => root.querySelector(selector);
const $$ = (selector, root = document) => Array.from(root.querySelectorAll(selector));

// ===================================================================================== DOM helpers

/**
 * Builds an element. `text` sets textContent, `on<event>` adds a listener, `false`/null attributes are
 * skipped, the rest are attributes; children may be nodes, strings (become text nodes) or null.
 */
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value == null || value === false) continue;
    if (key === 'text') node.textContent = value;
    else if (key.startsWith('on') && typeof value === 'function') node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  node.append(...children.flat().filter((child) => child != null && child !== false));
  return node;
}

const classes = (...names) => names.filter(Boolean).join(' ');

/** A `dt`/`dd` pair for a definition list; nothing when the value is empty, so lists stay short. */
function field(name, value, extra) {
  if ((value == null || value === '') && !extra) return [];
  return [el('dt', { text: name }), el('dd', {}, value == null ? '' : String(value), extra || null)];
}

function placeholder(text) {
  return el('p', { class: 'placeholder', text });
}

function emptyItem(text) {
  return el('li', { class: 'empty', text });
}

/** Pretty JSON, always inserted as text. */
const pretty = (value) => JSON.stringify(value, null, 2);

/** A short one-line rendering of a value for summaries. */
/** How a code shows in a chip: whole when a person would type it (OTPs), else its ends around an ellipsis, so a
 *  Firebase `oobCode` (50+ characters) never widens a list. The copy button always copies the whole code. */
function chipText(code, max = 12) {
  const text = String(code);
  return text.length > max ? `${text.slice(0, 6)}…${text.slice(-4)}` : text;
}

function short(value, max = 80) {
  let text = typeof value === 'string' ? value : JSON.stringify(value);
  if (text == null) text = String(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

// ===================================================================================== Time

/** The emulator's "now" in ms: the readings are in emulator time, so relative times use it too. */
function emulatorNow() {
  const clock = shared.clock;
  if (!clock) return Date.now();
  return clock.mode === 'frozen' ? clock.now : clock.now + (Date.now() - clock.fetchedAt);
}

function formatTime(iso) {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return String(iso);
  const sameDay = date.toDateString() === new Date(emulatorNow()).toDateString();
  return sameDay ? date.toLocaleTimeString() : date.toLocaleString();
}

/** "5 min ago" against the emulator clock; "in 3 h" for instants ahead of it. */
function relativeTime(iso) {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return '';
  const seconds = Math.round((emulatorNow() - at) / 1000);
  const abs = Math.abs(seconds);
  let text;
  if (abs < 10) return 'just now';
  if (abs < 60) text = `${abs} s`;
  else if (abs < 3600) text = `${Math.floor(abs / 60)} min`;
  else if (abs < 86400) text = `${Math.floor(abs / 3600)} h`;
  else text = `${Math.floor(abs / 86400)} d`;
  return seconds >= 0 ? `${text} ago` : `in ${text}`;
}

/** A <time> whose relative text is refreshed by refreshRelativeTimes() (no re-render needed). */
function timeAgo(iso, cls = 'time') {
  if (!iso) return null;
  return el('time', { class: classes(cls, 'rel'), datetime: iso, title: formatTime(iso), text: relativeTime(iso) });
}

function refreshRelativeTimes() {
  for (const node of $$('time.rel')) node.textContent = relativeTime(node.getAttribute('datetime'));
}

/** "3 days 4 h 2 min" for an offset in seconds. */
function formatDuration(totalSeconds) {
  let s = Math.round(Math.abs(totalSeconds));
  const parts = [];
  for (const [unit, size] of [['day', 86400], ['h', 3600], ['min', 60], ['s', 1]]) {
    const n = Math.floor(s / size);
    s -= n * size;
    if (n) parts.push(unit === 'day' ? `${n} day${n === 1 ? '' : 's'}` : `${n} ${unit}`);
    if (parts.length === 2) break;
  }
  return parts.join(' ') || '0 s';
}

// ===================================================================================== Control API

class ApiError extends Error {
  constructor(message, status, code) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/**
 * The one way to call the control API. Sends `body` as JSON; answers the parsed JSON (null when empty);
 * throws an ApiError carrying the server's own message ({"error":{"code","message"}}) on failure.
 */
async function api(path, { method = 'GET', body } = {}) {
  const options = { method, cache: 'no-store', headers: {} };
  if (body !== undefined) {
    options.headers['content-type'] = 'application/json';
    options.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(API + path, options);
  } catch {
    throw new ApiError('the emulator is not reachable', 0, 'network');
  }
  const text = await response.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { /* not JSON: keep the text for the message */ }
  if (!response.ok) {
    const message = data?.error?.message || data?.message || (typeof data?.error === 'string' ? data.error : '')
      || (response.status === 404 ? 'not found (this build may not have the route yet)' : text.slice(0, 200))
      || `HTTP ${response.status}`;
    throw new ApiError(message, response.status, data?.error?.code);
  }
  return data;
}

const seg = encodeURIComponent;

// ===================================================================================== Status lines

const setStatus = (text) => { $('#status').textContent = text || ''; };

/** Shows an action's outcome in a view's own status line; errors stay, successes fade. */
function showOutcome(node, text, ok = true) {
  if (!node) return;
  node.textContent = text;
  node.classList.toggle('error', !ok);
  node.classList.toggle('ok', ok);
  clearTimeout(node.fadeTimer);
  if (ok) node.fadeTimer = setTimeout(() => { if (node.textContent === text) node.textContent = ''; }, 6000);
}

/**
 * Runs an action from a button: disables it meanwhile, reports the outcome in `statusNode`, and never
 * throws (a failed action is reported, not fatal). Answers whether it worked.
 */
async function runAction(button, statusNode, work, success) {
  if (button) button.disabled = true;
  try {
    const result = await work();
    if (success) showOutcome(statusNode, typeof success === 'function' ? success(result) : success, true);
    return true;
  } catch (error) {
    showOutcome(statusNode, `Failed: ${error.message}`, false);
    return false;
  } finally {
    if (button && button.isConnected) button.disabled = false;
  }
}

// ===================================================================================== Copying

async function copyText(text, source, button) {
  let label = 'Copied';
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // No clipboard API (not a secure context, or denied): select the text so the user can copy it.
    if (source) window.getSelection().selectAllChildren(source);
    let copied = false;
    try { copied = document.execCommand('copy'); } catch { /* unsupported */ }
    if (!copied) label = 'Selected: press Ctrl+C';
  }
  if (!button) return;
  button.textContent = label;
  button.classList.add('copied');
  clearTimeout(button.resetTimer);
  button.resetTimer = setTimeout(() => { button.textContent = button.dataset.label || 'Copy'; button.classList.remove('copied'); }, 1500);
}

/** A real button (keyboard reachable) that copies `text`; `source` is what gets selected as a fallback. */
function copyButton(text, source, what, label = 'Copy') {
  return el('button', {
    type: 'button', class: 'btn small copy', 'aria-label': `Copy ${what || short(text, 60)}`, 'data-label': label,
    onclick: (event) => copyText(text, source, event.currentTarget),
  }, label);
}

/** A line of monospace text with its copy button. */
function copyLine(text, cls = 'copy-line', what) {
  const code = el('code', { class: 'copy-text', text });
  return el('div', { class: cls }, code, copyButton(text, code, what));
}

// ===================================================================================== Links

/** Schemes that must never become clickable: they run code or show attacker-made content. */
const UNSAFE_SCHEMES = /^(javascript|data|vbscript|file|blob|about|filesystem):$/i;

/** The URL if it may be an href (http(s) or an app scheme), else null. */
function safeHref(url) {
  try { return UNSAFE_SCHEMES.test(new URL(String(url), location.href).protocol) ? null : String(url); } catch { return null; }
}

const defaultPort = (protocol) => (protocol === 'https:' ? '443' : protocol === 'http:' ? '80' : '');

/** Whether a link goes to this emulator: the page's origin, or a loopback host on the page's port. */
function isEmulatorLink(url) {
  let target;
  try { target = new URL(String(url), location.href); } catch { return false; }
  if (!/^https?:$/.test(target.protocol)) return false;
  if (target.origin === location.origin) return true;
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(target.hostname);
  const port = target.port || defaultPort(target.protocol);
  return loopback && port === (location.port || defaultPort(location.protocol));
}

/** "Follow" for links into the emulator, "Open" for other safe links, nothing for unsafe ones. */
function linkAnchor(url) {
  const href = safeHref(url);
  if (!href) return null;
  const follow = isEmulatorLink(href);
  return el('a', {
    class: classes('btn small', follow ? 'follow primary' : 'open'), href, target: '_blank', rel: 'noopener noreferrer',
  }, follow ? 'Follow' : 'Open');
}

/** Hash links between views: `#users/<tenant>/<id>`, each segment encoded. */
const viewHref = (view, ...parts) => `#${[view, ...parts.map(seg)].join('/')}`;

// ===================================================================================== JWT peeking

/** The decoded header and payload of a JWT-looking string, or null; never verifies (it is for reading). */
function decodeJwt(token) {
  if (typeof token !== 'string' || !/^[\w-]+\.[\w-]+\.[\w-]*$/.test(token)) return null;
  try {
    const part = (s) => {
      const b64 = s.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(s.length / 4) * 4, '=');
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      return JSON.parse(new TextDecoder().decode(bytes));
    };
    const [header, payload] = token.split('.');
    return { header: part(header), payload: part(payload) };
  } catch {
    return null;
  }
}

/** A <details> with a JWT's claims as pretty text, expiry read against the emulator clock. */
function jwtDetails(token) {
  const jwt = decodeJwt(token);
  if (!jwt) return null;
  const exp = jwt.payload?.exp;
  const expiry = typeof exp === 'number' ? ` · expires ${relativeTime(new Date(exp * 1000).toISOString())}` : '';
  return el('details', { class: 'jwt' },
    el('summary', { text: `Decoded JWT (${jwt.header?.alg || '?'})${expiry}` }),
    el('pre', { class: 'json', text: `${pretty(jwt.header)}\n${pretty(jwt.payload)}` }));
}

// ===================================================================================== Events (shared)

/** A colour family for an event type, so failures stand out in every list that shows events. */
function eventTone(type = '') {
  if (/(failed|rejected|suppressed|lockout\.started|fault\.fired)/.test(type)) return 'bad';
  if (/(revoked|deleted|unlinked|clock\.|snapshot\.|emulator\.)/.test(type)) return 'warn';
  if (/(succeeded|signed_up|created|used|linked|cleared|refreshed)/.test(type)) return 'good';
  return '';
}

/** An event's detail as `key=value` pairs, as text. */
function summarizeDetail(detail) {
  if (!detail || typeof detail !== 'object') return '';
  return Object.entries(detail).filter(([, value]) => value != null && value !== '')
    .map(([key, value]) => `${key}=${short(value, 60)}`).join('  ');
}

// ===================================================================================== In-page confirmation

/**
 * Wires a dangerous button to reveal a confirmation group (a second, explicit button and a Cancel)
 * instead of acting at once: window.confirm would block the page and automated browsers.
 */
function wireConfirm(trigger, group, onConfirm) {
  const confirmButton = $('[data-action^="confirm"]', group);
  const close = () => { group.hidden = true; trigger.hidden = false; trigger.focus(); };
  trigger.addEventListener('click', () => {
    group.hidden = false;
    trigger.hidden = true;
    confirmButton.focus();
  });
  $('[data-action="cancel"]', group).addEventListener('click', close);
  confirmButton.addEventListener('click', async () => {
    await onConfirm(confirmButton);
    group.hidden = true;
    trigger.hidden = false;
  });
}

// ===================================================================================== Tenants

/** Reloads the tenant list and refills every tenant select, keeping each one's choice. */
async function loadTenants() {
  try {
    const { tenants = [] } = await api('/tenants');
    shared.tenants = tenants;
  } catch (error) {
    setStatus(`Could not load tenants (${error.message})`);
  }
  // A tenant that went (deleted, or undone by a reset) is no longer a choice.
  if (shared.tenant && shared.tenant !== 'app' && !tenantById(shared.tenant)) selectTenant('');
  fillTenantSelects();
  showUserCount();
  // The first time the selects can show a remembered tenant, the views (booted meanwhile) take it up.
  if (!loadTenants.filled) {
    loadTenants.filled = true;
    if (shared.tenant) { showUnread(); for (const view of Object.values(views)) view.onTenant?.(); }
  }
  return shared.tenants;
}

/** The Users nav count: the selected tenant's users, or every tenant's. */
function showUserCount() {
  const users = shared.tenants.filter((t) => inSelectedTenant(t.id)).reduce((sum, t) => sum + (t.user_count || 0), 0);
  setNavBadge('users', users ? String(users) : '');
}

function tenantLabel(tenant) {
  return `${tenant.id} (${tenant.dialect})`;
}

/** Refills a select with [value, label] options, keeping its current choice when still offered, else `fallback`. */
function fillSelect(select, options, fallback) {
  if (!select) return;
  const previous = select.value || fallback || '';
  select.replaceChildren(...options.map(([value, label]) => el('option', { value, text: label })));
  const values = options.map(([value]) => value);
  select.value = values.includes(previous) ? previous : (values.includes(fallback) ? fallback : values[0] ?? '');
}

/** Every view's Tenant select: each offers all tenants, and they all show the one selection. */
const TENANT_SELECTS = ['#filter-tenant', '#deeplinks-tenant', '#users-tenant', '#sessions-tenant', '#events-tenant'];

function fillTenantSelects() {
  const tenants = shared.tenants.map((t) => [t.id, tenantLabel(t)]);
  for (const selector of TENANT_SELECTS) {
    const own = selector === '#filter-tenant' ? [['app', 'app (own mail & SMS)']] : [];
    fillSelect($(selector), [['', 'All tenants'], ...tenants, ...own]);
    showSelectedTenant($(selector));
  }
}

/** A select shows the selection when it offers it (the inbox's 'app' is offered there alone), else all tenants. */
function showSelectedTenant(select) {
  if (!select) return;
  select.value = [...select.options].some((o) => o.value === shared.tenant) ? shared.tenant : '';
}

/** Whether something of `tenant` is within the selection (everything is, with all tenants; 'app' counts as all
 * outside the inbox, which filters on it itself). */
const inSelectedTenant = (tenant) => !shared.tenant || shared.tenant === 'app' || tenant === shared.tenant;

/** Makes `tenant` every view's selection ('' for all). Views re-read it through `onTenant`, and the nav counts follow. */
function selectTenant(tenant) {
  if (tenant === shared.tenant) return;
  shared.tenant = tenant;
  try { localStorage.setItem('fauxth.console.tenant', tenant); } catch { /* private mode: this visit only */ }
  for (const selector of TENANT_SELECTS) showSelectedTenant($(selector));
  showUserCount();
  showUnread();
  for (const view of Object.values(views)) view.onTenant?.();
}

const tenantById = (id) => shared.tenants.find((t) => t.id === id);

// ===================================================================================== Nav and router

const views = {};

/**
 * A view: { show(params) on every visit or sub-path change, refresh() to reload when stale,
 * focusSearch() for "/", items() for j/k, and live handlers it registers itself }.
 */
function registerView(name, view) {
  views[name] = view;
}

/** Counts beside nav links render through CSS (data-badge), so each link's text stays just its name. */
function setNavBadge(name, text, tone) {
  const link = $(`#nav a[data-view="${name}"]`);
  if (!link) return;
  if (text) link.setAttribute('data-badge', text); else link.removeAttribute('data-badge');
  link.dataset.tone = tone || '';
  const label = VIEW_TITLES[name] + (text ? ` (${text})` : '');
  link.setAttribute('aria-label', label);
}

function parseHash() {
  const [name, ...rest] = location.hash.replace(/^#/, '').split('/');
  const params = rest.filter((part) => part !== '').map((part) => {
    try { return decodeURIComponent(part); } catch { return part; }
  });
  return { name: VIEW_NAMES.includes(name) ? name : 'inbox', params };
}

function route() {
  const { name, params } = parseHash();
  const changed = shared.current !== name;
  shared.current = name;
  for (const view of VIEW_NAMES) {
    const section = document.getElementById(`view-${view}`);
    if (section) section.hidden = view !== name;
  }
  for (const link of $$('#nav a[data-view]')) {
    if (link.dataset.view === name) link.setAttribute('aria-current', 'page'); else link.removeAttribute('aria-current');
  }
  if (changed) $(`#nav a[data-view="${name}"]`)?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  updateTitle();
  views[name]?.show?.(params, changed);
}

/** Changes the sub-path (selected item) without a history entry per click or a second routing pass. */
function replaceHash(hash) {
  if (location.hash !== hash) history.replaceState(null, '', hash);
}

/** Whether a message of `tenant` is within the selection (the inbox's 'app' selects the app's own mail). */
const messageInSelection = (tenant) => !shared.tenant || tenant === shared.tenant;

/** Unread messages within the selected tenant. */
function unreadCount() {
  let count = 0;
  for (const tenant of shared.unread.values()) if (messageInSelection(tenant)) count += 1;
  return count;
}

function updateTitle() {
  const count = unreadCount();
  const base = `Fauxth ${VIEW_TITLES[shared.current] || 'Inbox'}`;
  document.title = count ? `(${count}) ${base}` : base;
}

/** The unread badge in the header, the nav count and the "(N)" in the title, together. */
function showUnread() {
  const count = unreadCount();
  const badge = $('#unread-count');
  badge.textContent = String(count);
  badge.hidden = count === 0;
  badge.setAttribute('aria-label', `${count} unread message${count === 1 ? '' : 's'}`);
  setNavBadge('inbox', count ? String(count) : '', 'accent');
  updateTitle();
}

// ===================================================================================== Header clock

async function refreshClock() {
  try {
    const clock = await api('/clock');
    shared.clock = { now: Date.parse(clock.now), mode: clock.mode, fetchedAt: Date.now() };
  } catch {
    $('#clock').textContent = 'clock unavailable';
    return;
  }
  tickClock();
  refreshRelativeTimes();
  showClockBadge();
  views.clock?.onClock?.();
}

/** Whether the emulator clock differs from real time in a way worth flagging (frozen, or offset by 2 s or more). */
function clockIsUnusual() {
  const clock = shared.clock;
  if (!clock || clock.mode === 'real') return false;
  return clock.mode === 'frozen' || Math.abs(emulatorNow() - Date.now()) >= 2000;
}

function showClockBadge() {
  setNavBadge('clock', clockIsUnusual() ? shared.clock.mode : '', 'warn');
}

function tickClock() {
  const clock = shared.clock;
  if (!clock) return;
  const now = new Date(emulatorNow());
  const node = $('#clock');
  const time = el('span', { class: 'clock-time', text: now.toLocaleString() });
  if (!clockIsUnusual()) node.replaceChildren(time);
  else node.replaceChildren(time, el('span', { class: classes('pill', clock.mode), text: clock.mode }));
  node.title = `Emulator clock (${clock.mode}): ${now.toISOString()}`;
  node.setAttribute('aria-label', `Emulator clock, ${clock.mode}: ${now.toLocaleString()}`);
  views.clock?.tick?.();
}

// ===================================================================================== Live updates

const liveHandlers = { message: [], event: [], deeplink: [], reconnect: [] };

/** Views subscribe here: kind is message, event, deeplink (the SSE event names) or reconnect. */
function onLive(kind, handler) {
  liveHandlers[kind].push(handler);
}

function dispatchLive(kind, payload) {
  for (const handler of liveHandlers[kind]) {
    try { handler(payload); } catch (error) { console.warn(`live ${kind} handler failed`, error); }
  }
}

function setLive(state, text) {
  const node = $('#live');
  node.dataset.state = state;
  node.textContent = text;
}

let eventSource = null;

function connectLive() {
  const source = new EventSource(`${API}/events/stream`);
  eventSource = source;
  let dropped = false;
  const parse = (kind) => (event) => {
    let payload;
    try { payload = JSON.parse(event.data); } catch { return; }
    dispatchLive(kind, payload);
  };
  source.addEventListener('message', parse('message'));
  source.addEventListener('event', parse('event'));
  source.addEventListener('deeplink', parse('deeplink'));
  source.addEventListener('open', () => {
    setLive('live', 'live');
    setStatus('');
    if (dropped) { dropped = false; dispatchLive('reconnect', null); } // catch up on anything missed while away
  });
  source.addEventListener('error', () => {
    dropped = true;
    setLive('down', 'reconnecting…');
    setStatus('Live updates disconnected, retrying…');
    if (source.readyState === EventSource.CLOSED) setTimeout(connectLive, 3000); // the browser gave up
  });
}

/** Calls `fn` once after `ms` of quiet: bursts of events (a sign-in makes several) cost one reload. */
function debounce(fn, ms = 300) {
  let timer;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}

// Events that change what the shared pieces show (tenants and their user counts, the clock).
onLive('event', (event) => {
  const type = event.type || '';
  if (type === 'clock.changed') refreshClock();
  if (/^(user\.|tenant\.)/.test(type) || type === 'emulator.reset' || type === 'snapshot.restored') reloadTenants();
  if (type === 'emulator.reset' || type === 'snapshot.restored') refreshClock();
});
onLive('reconnect', () => { refreshClock(); reloadTenants(); });
const reloadTenants = debounce(loadTenants, 400);

// ===================================================================================== Keyboard

const isTyping = (target) => target instanceof HTMLElement
  && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));

/** Moves focus through a list's items (ArrowUp/Down); with `open`, also opens the item (j/k). */
function stepList(items, delta, open) {
  if (!items.length) return;
  const active = document.activeElement;
  let index = items.indexOf(active);
  if (index < 0) index = items.findIndex((item) => item.classList.contains('selected'));
  const next = items[Math.min(items.length - 1, Math.max(0, index < 0 ? 0 : index + delta))];
  next.focus();
  if (open) next.click();
}

document.addEventListener('keydown', (event) => {
  if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
  const view = views[shared.current];
  const items = view?.items?.() || [];
  // Arrow keys move between items only while one has focus, so they never steal page scrolling.
  if ((event.key === 'ArrowDown' || event.key === 'ArrowUp') && items.includes(document.activeElement)) {
    event.preventDefault();
    stepList(items, event.key === 'ArrowDown' ? 1 : -1, false);
    return;
  }
  if (isTyping(event.target)) {
    if (event.key === 'Escape') event.target.blur();
    return;
  }
  if (event.key === '/') {
    if (view?.focusSearch) { event.preventDefault(); view.focusSearch(); }
  } else if (event.key === 'j' || event.key === 'k') {
    stepList(items, event.key === 'j' ? 1 : -1, true);
  } else if (/^[1-8]$/.test(event.key)) {
    location.hash = `#${VIEW_NAMES[Number(event.key) - 1]}`;
  } else if (event.key === 'c') {
    view?.copyPrimary?.();
  } else if (event.key === '?') {
    toggleShortcuts();
  }
});

function toggleShortcuts() {
  const panel = $('#shortcuts');
  panel.hidden = !panel.hidden;
  $('#shortcuts-toggle').setAttribute('aria-expanded', String(!panel.hidden));
}

/** Enter (and Space) on a focusable list item opens it, like a click. */
function openOnEnter(list, selector) {
  list.addEventListener('keydown', (event) => {
    const item = event.target.closest(selector);
    if (!item || item !== event.target) return;
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      item.click();
    }
  });
}

// ===================================================================================== Boot

function boot() {
  $('#shortcuts-toggle').addEventListener('click', toggleShortcuts);
  window.addEventListener('hashchange', route);
  // Views wire their controls first, so the first route() finds them ready; they await the tenants.
  shared.tenantsReady = loadTenants();
  for (const selector of TENANT_SELECTS) $(selector)?.addEventListener('change', (event) => selectTenant(event.target.value));
  for (const view of Object.values(views)) view.boot?.();
  showUnread();
  refreshClock();
  route();
  connectLive();
  setInterval(tickClock, 1000);
  setInterval(refreshRelativeTimes, 15000);
  // Another client (a test) may move the clock or change state the feed does not announce: poll gently.
  setInterval(refreshClock, 15000);
}

// On a narrow screen the detail is below the list: opening an item brings it into view.
const narrow = window.matchMedia('(max-width: 760px)');
document.addEventListener('click', (event) => {
  if (!narrow.matches) return;
  const item = event.target.closest?.('.item-list li.item');
  const detail = item?.closest('.panes')?.querySelector('.detail');
  if (detail && !event.target.closest('a, button')) requestAnimationFrame(() => detail.scrollIntoView({ block: 'start' }));
});

document.addEventListener('DOMContentLoaded', boot);
