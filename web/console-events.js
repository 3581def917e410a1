// Events view: the audit trail (sign-ins, codes, messages, faults, lockouts…), live, filterable by type
// prefix and tenant, each event linking to its user and message.
'use strict';

(() => {
  const MAX_EVENTS = 1000;     // kept in memory
  const MAX_RENDERED = 300;    // in the DOM at once: the newest matter most
  const TYPES = [
    'user.signed_up', 'user.created', 'user.updated', 'user.deleted', 'identity.linked', 'identity.unlinked',
    'signin.succeeded', 'signin.failed', 'code.issued', 'code.used', 'token.refreshed', 'session.revoked',
    'message.sent', 'message.suppressed', 'deeplink.captured', 'deeplink.opened', 'redirect.rejected', 'tenant.created', 'tenant.deleted',
    'clock.changed', 'snapshot.taken', 'snapshot.restored', 'emulator.reset', 'fault.fired', 'faults.changed', 'lockout.started', 'lockout.cleared', 'hook.called', 'mirror.failed', 'import.finished',
  ];
  const QUICK = ['signin', 'signin.failed', 'lockout', 'fault', 'hook', 'code', 'message', 'user', 'session'];

  const events = { list: [], loaded: false, expanded: new Set(), unseen: [] }; // unseen: the tenants of events that came while away

  const ui = {
    type: $('#events-type'), tenant: $('#events-tenant'), list: $('#event-list'), count: $('#event-count'),
    chips: $('#event-chips'), refresh: $('#events-refresh'), types: $('#event-types'),
  };

  async function loadEvents() {
    try {
      const { events: found = [] } = await api('/events?limit=200');
      const listed = new Set(found.map((e) => e.id));
      events.list = [...events.list.filter((e) => e.live && !listed.has(e.id)), ...found].slice(0, MAX_EVENTS);
      events.loaded = true;
    } catch (error) {
      events.loaded = true;
      setStatus(`Could not load events (${error.message})`);
    }
    renderList();
  }

  // ------------------------------------------------------------------ Filtering

  function matches(e) {
    const prefix = ui.type.value.trim().toLowerCase();
    const tenant = ui.tenant.value;
    if (prefix && !String(e.type || '').toLowerCase().startsWith(prefix)) return false;
    if (tenant && e.tenant !== tenant) return false;
    return true;
  }

  // ------------------------------------------------------------------ Rendering

  function eventItem(e) {
    const expanded = events.expanded.has(e.id);
    const detail = e.detail && typeof e.detail === 'object' ? e.detail : {};
    const links = [
      e.user_id && e.tenant ? el('a', { class: 'user-link', href: viewHref('users', e.tenant, e.user_id), text: `user ${short(e.user_id, 24)}` }) : null,
      detail.message_id ? el('a', { class: 'message-link', href: viewHref('inbox', detail.message_id), text: 'message' }) : null,
      // A hook call can be sent again (signed afresh) to the app's hook, e.g. after fixing it.
      e.type === 'hook.called' ? el('button', { type: 'button', class: 'replay', 'data-replay': e.id, text: 'Replay' }) : null,
    ];
    const origin = [e.ip, e.user_agent].filter(Boolean).join(' · ');
    return el('li', {
      class: classes('event', 'item', eventTone(e.type), expanded && 'expanded'), 'data-id': e.id, tabindex: 0,
      'aria-expanded': String(expanded),
    },
    el('div', { class: 'line' },
      el('span', { class: classes('event-type', eventTone(e.type)), text: e.type }),
      e.tenant ? el('span', { class: 'tenant', text: e.tenant }) : null,
      el('span', { class: 'spacer' }),
      timeAgo(e.created_at)),
    el('div', { class: 'event-summary', text: summarizeDetail(detail) || '—' }),
    links.some(Boolean) || origin ? el('div', { class: 'line meta' }, ...links, origin ? el('span', { class: 'muted ua', text: origin }) : null) : null,
    expanded ? el('pre', { class: 'json', text: pretty({ ...e, live: undefined }) }) : null);
  }

  function renderCount() {
    const shown = events.list.filter(matches).length;
    ui.count.textContent = events.loaded
      ? `${shown === events.list.length ? shown : `${shown} of ${events.list.length}`} event${events.list.length === 1 ? '' : 's'}, newest first` : '';
  }

  function renderList() {
    const focusedId = ui.list.contains(document.activeElement) ? document.activeElement.dataset.id : null;
    const visible = events.list.filter(matches).slice(0, MAX_RENDERED);
    const empty = !events.loaded ? 'Loading…' : events.list.length ? 'No events match the filters.' : 'No events yet.';
    ui.list.replaceChildren(...(visible.length ? visible.map(eventItem) : [emptyItem(empty)]));
    renderCount();
    renderChips();
    if (focusedId) ui.list.querySelector(`li[data-id="${CSS.escape(focusedId)}"]`)?.focus();
  }

  function renderChips() {
    const current = ui.type.value.trim();
    ui.chips.replaceChildren(...['', ...QUICK].map((prefix) => el('button', {
      type: 'button', class: 'chip', 'data-prefix': prefix, 'aria-pressed': String(current === prefix),
    }, prefix || 'all')));
  }

  /** Re-renders one item in place (expanding it) instead of the whole list. */
  function toggle(item) {
    const id = item.dataset.id;
    if (events.expanded.has(id)) events.expanded.delete(id); else events.expanded.add(id);
    const e = events.list.find((x) => x.id === id);
    if (!e) return;
    const fresh = eventItem(e);
    item.replaceWith(fresh);
    fresh.focus();
  }

  function showUnseen() {
    const count = events.unseen.filter(inSelectedTenant).length;
    setNavBadge('events', count ? String(count) : '', 'muted');
  }

  // ------------------------------------------------------------------ Live

  onLive('event', (e) => {
    if (!e?.id || events.list.some((x) => x.id === e.id)) return;
    if (e.type === 'emulator.reset' || e.type === 'snapshot.restored') {
      // The trail was rewound: the listing is the truth again.
      events.list = [];
      events.expanded.clear();
      loadEvents();
      return;
    }
    events.list.unshift({ ...e, live: true });
    if (events.list.length > MAX_EVENTS) events.list.length = MAX_EVENTS;
    if (shared.current !== 'events') { events.unseen.push(e.tenant); showUnseen(); }
    if (!events.loaded) return;
    // Cheap path: put the new item on top rather than rebuilding hundreds of items.
    if (matches(e)) {
      ui.list.querySelector('li.empty')?.remove();
      ui.list.prepend(eventItem(e));
      while (ui.list.children.length > MAX_RENDERED) ui.list.lastElementChild.remove();
    }
    renderCount();
  });

  onLive('reconnect', loadEvents);

  // ------------------------------------------------------------------ Wiring

  function boot() {
    ui.types.replaceChildren(...TYPES.map((type) => el('option', { value: type })));
    ui.type.addEventListener('input', renderList);
    ui.type.addEventListener('change', renderList); // programmatic clears fire no 'input'
    ui.refresh.addEventListener('click', loadEvents);
    ui.chips.addEventListener('click', (event) => {
      const chip = event.target.closest('button.chip');
      if (!chip) return;
      ui.type.value = chip.dataset.prefix;
      renderList();
    });
    ui.list.addEventListener('click', async (event) => {
      const replay = event.target.closest('button.replay');
      if (replay) {
        try {
          const { event: call } = await api(`/events/${encodeURIComponent(replay.dataset.replay)}/replay`, { method: 'POST' });
          setStatus(`Replayed: ${call?.detail?.outcome ?? 'sent'}${call?.detail?.response ? ` (${call.detail.response.status})` : ''}`);
        } catch (error) {
          setStatus(`Could not replay (${error.message})`);
        }
        return;
      }
      if (event.target.closest('a')) return; // links navigate; the item itself expands
      const item = event.target.closest('li.event');
      if (item) toggle(item);
    });
    openOnEnter(ui.list, 'li.event');
    renderChips();
    loadEvents();
  }

  registerView('events', {
    boot,
    onTenant() { renderList(); showUnseen(); },
    show() {
      // Seen: the selection's. Another tenant's stay counted until it is selected.
      events.unseen = events.unseen.filter((tenant) => !inSelectedTenant(tenant));
      showUnseen();
    },
    items: () => $$('li.event', ui.list),
    focusSearch: () => ui.type.focus(),
  });
})();
