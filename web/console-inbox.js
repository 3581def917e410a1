// Inbox view: every email and SMS the emulator sent (or suppressed), live, with codes and links first.
'use strict';

(() => {
  const inbox = {
    messages: [],       // newest first, as the API returns them
    selectedId: null,
    loaded: false,
  };

  const ui = {
    list: $('#message-list'), detail: $('#message-detail'), count: $('#inbox-count'),
    to: $('#filter-to'), channel: $('#filter-channel'), purpose: $('#filter-purpose'), tenant: $('#filter-tenant'),
    search: $('#filter-search'), reset: $('#filter-reset'), clear: $('#clear-inbox'),
  };

  // ------------------------------------------------------------------ Loading

  async function loadMessages() {
    try {
      const { messages = [] } = await api('/messages?limit=500');
      // Keep live arrivals the (possibly older) listing does not have yet.
      const listed = new Set(messages.map((m) => m.id));
      inbox.messages = [...inbox.messages.filter((m) => shared.unread.has(m.id) && !listed.has(m.id)), ...messages];
      inbox.loaded = true;
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
      inbox.messages = [];
      inbox.selectedId = null;
      replaceHash('#inbox');
      shared.unread.clear();
      showUnread();
      render();
    } catch (error) {
      setStatus(`Could not clear the inbox (${error.message})`);
    } finally {
      ui.clear.disabled = false;
    }
  }

  // ------------------------------------------------------------------ Unread

  // Updates the existing items in place: re-rendering here would replace the element being clicked. Only the selected
  // tenant's are seen: another tenant's stay counted until it is shown.
  function markAllSeen() {
    if (!shared.unread.size) return;
    for (const [id, tenant] of shared.unread) if (messageInSelection(tenant)) shared.unread.delete(id);
    showUnread();
    ui.list.querySelectorAll('li.unseen').forEach((item) => item.classList.remove('unseen'));
  }

  // ------------------------------------------------------------------ List

  function summary(message) {
    if (message.subject) return message.subject;
    return (message.text || '').split('\n').find((line) => line.trim()) || '(no text)';
  }

  const channelLabel = (channel) => (channel === 'sms' ? 'SMS' : 'Email');

  function filtersActive() {
    return Boolean(ui.to.value.trim() || ui.channel.value || ui.purpose.value || ui.tenant.value || ui.search.value.trim());
  }

  /** Whether a message passes the filters. */
  function matches(m) {
    const to = ui.to.value.trim().toLowerCase();
    const search = ui.search.value.trim().toLowerCase();
    if (ui.channel.value && m.channel !== ui.channel.value) return false;
    if (ui.purpose.value && m.purpose !== ui.purpose.value) return false;
    if (ui.tenant.value && m.tenant !== ui.tenant.value) return false;
    if (to && !String(m.to || '').toLowerCase().includes(to)) return false;
    if (search) {
      const haystack = [m.subject, m.text, m.to, ...(m.codes || [])].filter(Boolean).join('\n').toLowerCase();
      if (!haystack.includes(search)) return false;
    }
    return true;
  }

  const visibleMessages = () => inbox.messages.filter(matches);

  function messageItem(m) {
    const selected = m.id === inbox.selectedId;
    const suppressed = m.status === 'suppressed';
    const code = m.codes?.[0];
    return el('li', {
      class: classes('message', 'item', suppressed && 'suppressed', selected && 'selected', shared.unread.has(m.id) && 'unseen'),
      'data-id': m.id, tabindex: 0, 'aria-current': selected ? 'true' : null,
    },
    el('div', { class: 'line' },
      el('span', { class: `channel ${m.channel}`, text: channelLabel(m.channel) }),
      el('span', { class: 'to', text: m.to }),
      timeAgo(m.created_at)),
    el('div', { class: 'summary', text: summary(m) }),
    el('div', { class: 'line meta' },
      el('span', { class: 'tag', text: m.purpose }),
      m.tenant ? el('span', { class: 'tenant', text: m.tenant }) : null,
      el('span', { class: 'spacer' }),
      code ? el('span', { class: classes('mini-code', code.length > 12 && 'long'), text: chipText(code), title: code }) : null),
    suppressed ? el('div', { class: 'suppressed-tag', text: `Not sent: ${m.reason || 'suppressed'}` }) : null);
  }

  function renderList() {
    // Re-rendering replaces the items: put focus back on the same one so keyboard users keep their place.
    const focusedId = ui.list.contains(document.activeElement) ? document.activeElement.dataset.id : null;
    const visible = visibleMessages();
    const empty = !inbox.loaded ? 'Loading…'
      : inbox.messages.length ? 'No messages match the filters.' : 'No messages yet. They appear here as the emulator sends them.';
    ui.list.replaceChildren(...(visible.length ? visible.map(messageItem) : [emptyItem(empty)]));
    renderCount(visible.length);
    ui.reset.hidden = !filtersActive();
    if (focusedId) ui.list.querySelector(`li[data-id="${CSS.escape(focusedId)}"]`)?.focus();
  }

  function renderCount(shown = visibleMessages().length) {
    const total = inbox.messages.length;
    ui.count.textContent = !total ? '' : shown === total ? `${total} message${total === 1 ? '' : 's'}` : `${shown} of ${total} messages`;
  }

  /** Selects a message (fetching it when the listing does not have it, e.g. an old deep link). */
  async function select(id, { updateHash = true } = {}) {
    inbox.selectedId = id;
    markAllSeen();
    if (updateHash) replaceHash(viewHref('inbox', id));
    for (const item of ui.list.querySelectorAll('li.message')) {
      const selected = item.dataset.id === id;
      item.classList.toggle('selected', selected);
      if (selected) item.setAttribute('aria-current', 'true'); else item.removeAttribute('aria-current');
    }
    if (!inbox.messages.some((m) => m.id === id)) {
      try {
        const message = await api(`/messages/${seg(id)}`);
        if (!inbox.messages.some((m) => m.id === message.id)) {
          inbox.messages.push(message);
          inbox.messages.sort((a, b) => String(b.created_at).localeCompare(String(a.created_at)));
        }
        renderList();
      } catch (error) {
        if (inbox.selectedId === id) {
          ui.detail.replaceChildren(placeholder(`Message ${id} is not available: ${error.message}`));
        }
        return;
      }
    }
    if (inbox.selectedId === id) renderDetail();
  }

  // ------------------------------------------------------------------ Detail

  function codeChip(code) {
    const chip = el('span', { class: classes('code-chip', code.length > 12 && 'long'), text: chipText(code), title: code });
    return el('div', { class: 'code' }, chip, copyButton(code, chip, `code ${code}`));
  }

  /** The query parameters worth seeing at a glance (type, redirect_to…), as text. */
  function linkParams(url) {
    let parsed;
    try { parsed = new URL(url); } catch { return null; }
    const pairs = [...parsed.searchParams];
    if (!pairs.length) return null;
    return el('div', { class: 'link-params' },
      ...pairs.map(([key, value]) => el('span', { class: 'param' }, el('b', { text: key }), '=', short(value, 60))));
  }

  function linkRow(url) {
    const text = el('code', { class: 'link-url', text: url });
    return el('li', { class: 'link-row' },
      el('div', { class: 'link-main' }, text, linkParams(url)),
      el('div', { class: 'link-actions' }, linkAnchor(url), copyButton(url, text, 'link')));
  }

  function part(title, ...content) {
    return el('section', { class: 'part' }, el('h3', { text: title }), ...content);
  }

  /** A link to the recipient's user page, found by address in the message's tenant (filled in later). */
  function recipientSlot(m) {
    const slot = el('span', { class: 'recipient-user' });
    const tenant = tenantById(m.tenant);
    if (!tenant || !m.to) return slot;
    const query = m.channel === 'sms' ? `phone=${seg(m.to)}` : `email=${seg(m.to)}`;
    api(`/tenants/${seg(m.tenant)}/users?${query}`).then(({ users = [] }) => {
      const user = users[0];
      if (user && slot.isConnected) {
        slot.append(el('a', { class: 'btn small', href: viewHref('users', m.tenant, user.id) }, 'View user'));
      }
    }).catch(() => { /* no such user (e.g. an invite not yet accepted): no link */ });
    return slot;
  }

  function renderDetail() {
    const m = inbox.messages.find((message) => message.id === inbox.selectedId);
    if (!m) {
      ui.detail.replaceChildren(placeholder('Select a message to see its codes, links and body.'));
      return;
    }
    const suppressed = m.status === 'suppressed';
    const parts = [];
    if (suppressed) {
      parts.push(el('div', { class: 'banner warn', role: 'note' }, el('strong', { text: 'Not sent: ' }), m.reason || 'suppressed'));
    }
    parts.push(
      el('h2', { class: 'detail-title', text: summary(m) }),
      el('dl', { class: 'fields' },
        ...field('From', m.from), ...field('To', m.to, recipientSlot(m)), ...field('Channel', channelLabel(m.channel)),
        ...field('Purpose', m.purpose), ...field('Tenant', m.tenant),
        ...field('Time', `${formatTime(m.created_at)} (${relativeTime(m.created_at)})`),
        ...field('Status', suppressed ? `suppressed: ${m.reason || 'no reason given'}` : m.status)));
    if (m.codes?.length) parts.push(part('Codes', el('div', { class: 'codes' }, ...m.codes.map(codeChip))));
    if (m.links?.length) parts.push(part('Links', el('ul', { class: 'links' }, ...m.links.map(linkRow))));
    parts.push(part('Text', el('pre', { class: 'text', text: m.text || '' })));
    if (m.html) {
      // sandbox="" (set before srcdoc): the body never runs scripts, submits forms or navigates this page.
      parts.push(part('HTML', el('iframe', {
        sandbox: '', referrerpolicy: 'no-referrer', title: 'HTML body of the message', class: 'html-body', srcdoc: m.html,
      })));
    }
    parts.push(part('Headers', el('dl', { class: 'fields headers' },
      ...field('From', m.from), ...field('To', m.to), ...field('Subject', m.subject), ...field('Date', m.created_at),
      ...field('Purpose', m.purpose), ...field('Tenant', m.tenant), ...field('Id', m.id))));
    ui.detail.replaceChildren(...parts);
    ui.detail.scrollTop = 0;
  }

  const render = () => { renderList(); renderDetail(); };

  // ------------------------------------------------------------------ Live

  onLive('message', (message) => {
    if (!message?.id || inbox.messages.some((m) => m.id === message.id)) return;
    inbox.messages.unshift(message);
    shared.unread.set(message.id, message.tenant);
    showUnread();
    // Cheap path: one new item on top, not a rebuild of the whole list (which would also drop focus).
    if (matches(message)) {
      ui.list.querySelector('li.empty')?.remove();
      ui.list.prepend(messageItem(message));
    }
    renderCount();
  });

  onLive('event', ({ type }) => {
    if (type === 'emulator.reset' || type === 'snapshot.restored') {
      markAllSeen();
      inbox.selectedId = null;
      inbox.messages = [];
      loadMessages();
    }
  });

  onLive('reconnect', loadMessages);

  // ------------------------------------------------------------------ Wiring

  function boot() {
    const idFrom = (event) => event.target.closest('li.message')?.dataset.id;
    ui.list.addEventListener('click', (event) => {
      const id = idFrom(event);
      if (id) {
        select(id);
        // Stacked panes (phones): bring the opened message into view.
        if (window.matchMedia('(max-width: 760px)').matches) ui.detail.scrollIntoView({ block: 'start' });
      } else {
        markAllSeen();
      }
    });
    openOnEnter(ui.list, 'li.message');
    ui.list.addEventListener('focusin', markAllSeen);
    // 'change' too: programmatic clears (WebDriver's clear()) fire no 'input'.
    for (const input of [ui.to, ui.search]) for (const type of ['input', 'change']) input.addEventListener(type, renderList);
    // The tenant select is every view's (selectTenant), and re-renders through onTenant.
    for (const select of [ui.channel, ui.purpose]) select.addEventListener('change', renderList);
    ui.reset.addEventListener('click', () => {
      ui.to.value = ''; ui.search.value = ''; ui.channel.value = ''; ui.purpose.value = '';
      selectTenant('');
      renderList();
      ui.search.focus();
    });
    ui.clear.addEventListener('click', clearInbox);
    render();
    loadMessages();
  }

  registerView('inbox', {
    boot,
    onTenant: renderList,
    show(params) {
      if (params[0] && params[0] !== inbox.selectedId) select(params[0], { updateHash: false });
    },
    items: () => $$('li.message', ui.list),
    focusSearch: () => ui.search.focus(),
    copyPrimary() {
      const button = $('.code .copy', ui.detail);
      if (button) button.click();
    },
  });
})();
