// Fauxth console: the Inbox of captured emails and SMS, plus the emulator clock.
// Plain ES2020, no dependencies. Message content is only ever inserted as text (or as an
// iframe srcdoc with sandbox=""), never via innerHTML.
'use strict';

const API = '/_emu/v1';
const TITLE = 'Fauxth Inbox';

const state = {
  messages: [],        // newest first, as the API returns them
  selectedId: null,
  fresh: new Set(),    // ids that arrived live and are not seen yet: the unread count
  clock: null,         // { now: ms, mode, fetchedAt: ms }
};

const $ = (selector) => document.querySelector(selector);
const ui = {
  list: $('#message-list'), detail: $('#message-detail'), to: $('#filter-to'), channel: $('#filter-channel'),
  clear: $('#clear-inbox'), clock: $('#clock'), unread: $('#unread-count'), status: $('#status'),
};

// ---- DOM helpers
/** Builds an element. `text` sets textContent, `on<event>` adds a listener, the rest are attributes. */
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value == null || value === false) continue;
    if (key === 'text') node.textContent = value;
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, String(value));
  }
  node.append(...children.filter((child) => child != null)); // strings become text nodes
  return node;
}

const classes = (...names) => names.filter(Boolean).join(' ');

function formatTime(iso) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso || '';
  return date.toDateString() === new Date().toDateString() ? date.toLocaleTimeString() : date.toLocaleString();
}

const setStatus = (text) => { ui.status.textContent = text; };

// ---- API
async function api(path, options = {}) {
  const response = await fetch(API + path, { cache: 'no-store', ...options });
  if (!response.ok) throw new Error(`${options.method || 'GET'} ${path} failed: HTTP ${response.status}`);
  const body = await response.text();
  return body ? JSON.parse(body) : null;
}

async function loadMessages() {
  try {
    const { messages = [] } = await api('/messages');
    // Keep live arrivals the (possibly older) listing does not have yet.
    const listed = new Set(messages.map((m) => m.id));
    state.messages = [...state.messages.filter((m) => state.fresh.has(m.id) && !listed.has(m.id)), ...messages];
    setStatus('');
  } catch (error) {
    setStatus(`Could not load messages (${error.message})`);
  }
  render();
}

async function clearInbox() {
  ui.clear.disabled = true;
  try {
    await api('/messages', { method: 'DELETE' });
    state.messages = [];
    state.selectedId = null;
    markAllSeen();
    render();
  } catch (error) {
    setStatus(`Could not clear the inbox (${error.message})`);
  } finally {
    ui.clear.disabled = false;
  }
}

// ---- Unread count
function showUnread() {
  const count = state.fresh.size;
  ui.unread.textContent = String(count);
  ui.unread.hidden = count === 0;
  document.title = count ? `(${count}) ${TITLE}` : TITLE;
}

// Updates the existing items in place: re-rendering here would replace the element being clicked.
function markAllSeen() {
  state.fresh.clear();
  showUnread();
  ui.list.querySelectorAll('li.unseen').forEach((item) => item.classList.remove('unseen'));
}

// ---- Message list
function summary(message) {
  if (message.subject) return message.subject;
  return (message.text || '').split('\n').find((line) => line.trim()) || '(no text)';
}

function visibleMessages() {
  const to = ui.to.value.trim().toLowerCase();
  const channel = ui.channel.value;
  return state.messages.filter((m) =>
    (!channel || m.channel === channel) && (!to || String(m.to).toLowerCase().includes(to)));
}

function messageItem(m) {
  const selected = m.id === state.selectedId;
  const suppressed = m.status === 'suppressed';
  return el('li', {
    class: classes('message', suppressed && 'suppressed', selected && 'selected', state.fresh.has(m.id) && 'unseen'),
    'data-id': m.id, tabindex: 0, role: 'option', 'aria-selected': String(selected),
  },
  el('div', { class: 'line' },
    el('span', { class: `channel ${m.channel}`, text: m.channel === 'sms' ? 'SMS' : 'Email' }),
    el('span', { class: 'to', text: m.to }),
    el('time', { class: 'time', datetime: m.created_at, text: formatTime(m.created_at) })),
  el('div', { class: 'summary', text: summary(m) }),
  el('div', { class: 'line meta' },
    el('span', { class: 'purpose', text: m.purpose }),
    suppressed ? el('span', { class: 'suppressed-tag', text: m.reason ? `suppressed: ${m.reason}` : 'suppressed' }) : null));
}

function renderList() {
  const items = visibleMessages().map(messageItem);
  const empty = state.messages.length ? 'No messages match the filters.' : 'No messages yet. They appear here as the emulator sends them.';
  ui.list.replaceChildren(...(items.length ? items : [el('li', { class: 'empty', text: empty })]));
}

function select(id) {
  state.selectedId = id;
  markAllSeen();
  for (const item of ui.list.querySelectorAll('li.message')) {
    const selected = item.dataset.id === id;
    item.classList.toggle('selected', selected);
    item.setAttribute('aria-selected', String(selected));
  }
  renderDetail();
}

// ---- Detail pane
async function copy(text, source, button) {
  let label = 'Copied';
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // No clipboard API (e.g. not a secure context): select the text so the user can copy it.
    window.getSelection().selectAllChildren(source);
    let copied = false;
    try { copied = document.execCommand('copy'); } catch { /* unsupported */ }
    if (!copied) label = 'Selected: press Ctrl+C';
  }
  button.textContent = label;
  clearTimeout(button.resetTimer);
  button.resetTimer = setTimeout(() => { button.textContent = 'Copy'; }, 1500);
}

function copyButton(text, source) {
  const onclick = (event) => copy(text, source, event.currentTarget);
  return el('button', { type: 'button', class: 'btn small copy', 'aria-label': `Copy ${text}`, onclick }, 'Copy');
}

function codeChip(code) {
  const chip = el('span', { class: 'code-chip', text: code });
  return el('div', { class: 'code' }, chip, copyButton(code, chip));
}

/** Links may be custom-scheme deep links, but never script or data URLs. */
function safeHref(url) {
  try { return /^(javascript|data|vbscript):$/i.test(new URL(url, location.href).protocol) ? null : url; } catch { return null; }
}

function linkRow(url) {
  const text = el('code', { class: 'link-url', text: url });
  const href = safeHref(url);
  const open = href ? el('a', { class: 'btn small', href, target: '_blank', rel: 'noopener noreferrer' }, 'Open') : null;
  return el('li', { class: 'link-row' }, text, open, copyButton(url, text));
}

function section(title, ...content) {
  return el('section', { class: 'part' }, el('h3', { text: title }), ...content);
}

function field(name, value) {
  return value == null || value === '' ? [] : [el('dt', { text: name }), el('dd', { text: value })];
}

function renderDetail() {
  const m = state.messages.find((message) => message.id === state.selectedId);
  if (!m) return ui.detail.replaceChildren(el('p', { class: 'placeholder', text: 'Select a message to see its codes, links and body.' }));
  const parts = [
    el('h2', { text: summary(m) }),
    el('dl', { class: 'fields' },
      ...field('From', m.from), ...field('To', m.to), ...field('Channel', m.channel === 'sms' ? 'SMS' : 'Email'),
      ...field('Purpose', m.purpose), ...field('Tenant', m.tenant), ...field('Time', formatTime(m.created_at)),
      ...field('Status', m.status === 'suppressed' && m.reason ? `suppressed (${m.reason})` : m.status)),
  ];
  if (m.codes?.length) parts.push(section('Codes', el('div', { class: 'codes' }, ...m.codes.map(codeChip))));
  if (m.links?.length) parts.push(section('Links', el('ul', { class: 'links' }, ...m.links.map(linkRow))));
  parts.push(section('Text', el('pre', { class: 'text', text: m.text || '' })));
  // sandbox="" (set first): the body never runs scripts, submits forms or navigates this page.
  const iframe = m.html && el('iframe', { sandbox: '', referrerpolicy: 'no-referrer', title: 'HTML body', class: 'html-body', srcdoc: m.html });
  if (iframe) parts.push(section('HTML', iframe));
  ui.detail.replaceChildren(...parts);
}

const render = () => { renderList(); renderDetail(); };

// ---- Clock
async function refreshClock() {
  try {
    const clock = await api('/clock');
    state.clock = { now: Date.parse(clock.now), mode: clock.mode, fetchedAt: Date.now() };
    tickClock();
  } catch {
    ui.clock.textContent = 'clock unavailable';
  }
}

function tickClock() {
  const clock = state.clock;
  if (!clock) return;
  const now = new Date(clock.mode === 'frozen' ? clock.now : clock.now + (Date.now() - clock.fetchedAt));
  ui.clock.textContent = `${now.toLocaleString()}${clock.mode === 'real' ? '' : ` · ${clock.mode}`}`;
  ui.clock.title = `Emulator clock (${clock.mode}): ${now.toISOString()}`;
}

// ---- Live updates
function onLiveMessage(event) {
  const message = JSON.parse(event.data);
  if (state.messages.some((m) => m.id === message.id)) return;
  state.messages.unshift(message);
  state.fresh.add(message.id);
  showUnread();
  renderList();
}

function onLiveEvent(event) {
  const { type } = JSON.parse(event.data);
  if (type === 'clock.changed') refreshClock();
  if (type === 'emulator.reset' || type === 'snapshot.restored') { markAllSeen(); refreshClock(); loadMessages(); }
}

function connect() {
  const source = new EventSource(`${API}/events/stream`);
  let dropped = false;
  source.addEventListener('message', onLiveMessage);
  source.addEventListener('event', onLiveEvent);
  source.addEventListener('open', () => {
    if (dropped) { dropped = false; loadMessages(); } // catch up on anything missed while away
    else setStatus('');
  });
  source.addEventListener('error', () => {
    dropped = true;
    setStatus('Live updates disconnected, retrying…');
    if (source.readyState === EventSource.CLOSED) setTimeout(connect, 3000); // the browser gave up
  });
}

// ---- Wiring
const messageIdFrom = (event) => event.target.closest('li.message')?.dataset.id;

ui.list.addEventListener('click', (event) => {
  const id = messageIdFrom(event);
  if (id) select(id); else markAllSeen();
});
ui.list.addEventListener('keydown', (event) => {
  const id = messageIdFrom(event);
  if (id && (event.key === 'Enter' || event.key === ' ')) { event.preventDefault(); select(id); }
});
ui.list.addEventListener('focusin', markAllSeen);
ui.to.addEventListener('input', renderList);
ui.channel.addEventListener('change', renderList);
ui.clear.addEventListener('click', clearInbox);

render();
loadMessages();
refreshClock();
setInterval(tickClock, 1000);
setInterval(refreshClock, 15000);
connect();
