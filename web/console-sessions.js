// Sessions view: a tenant's active sessions, who holds them, and revoking one or all of them.
'use strict';

(() => {
  const sessions = { list: [], tenant: null, loaded: false, error: null };

  const ui = {
    tenant: $('#sessions-tenant'), rows: $('#session-rows'), status: $('#sessions-status'), refresh: $('#sessions-refresh'),
    revokeAll: $('#revoke-all-sessions'), confirmGroup: $('#revoke-all-confirm-group'),
  };

  const base = () => `/tenants/${seg(ui.tenant.value)}`;

  let loadRequest = 0;

  async function loadSessions() {
    const tenant = ui.tenant.value;
    if (!tenant) return;
    const request = ++loadRequest;
    try {
      const { sessions: found = [] } = await api(`${base()}/sessions`);
      if (request !== loadRequest) return;
      sessions.list = found;
      sessions.error = null;
    } catch (error) {
      if (request !== loadRequest) return;
      sessions.list = [];
      sessions.error = error.message;
    }
    sessions.tenant = tenant;
    sessions.loaded = true;
    render();
    countAll();
  }

  function userLabel(s) {
    const u = s.user || {};
    return u.email || u.phone || u.username || u.id || s.user_id;
  }

  function sessionRow(s) {
    const userId = s.user?.id || s.user_id;
    const cell = (label, ...content) => el('td', { 'data-label': label }, ...content);
    return el('tr', { class: 'session', 'data-id': s.id },
      cell('User', el('a', { href: viewHref('users', sessions.tenant, userId), text: userLabel(s) }),
        el('div', { class: 'meta mono', text: s.id })),
      cell('AAL', el('span', { class: classes('badge-soft', s.aal === 'aal2' && 'good'), text: s.aal || '—' })),
      cell('IP', s.ip || '—'),
      cell('User agent', el('span', { class: 'ua', text: s.user_agent || '—' })),
      cell('Created', timeAgo(s.created_at) || '—'),
      cell('Last refreshed', s.refreshed_at ? timeAgo(s.refreshed_at) : 'never'),
      cell('', el('button', { type: 'button', class: 'btn small danger', 'data-action': 'revoke', 'data-user': userId }, 'Revoke')));
  }

  function render() {
    const count = sessions.list.length;
    if (sessions.error) {
      ui.rows.replaceChildren(el('tr', {}, el('td', { colspan: 7, class: 'empty error-text', text: `Could not load sessions: ${sessions.error}` })));
    } else if (!count) {
      ui.rows.replaceChildren(el('tr', {}, el('td', { colspan: 7, class: 'empty', text: sessions.loaded ? 'No active sessions in this tenant.' : 'Loading…' })));
    } else {
      ui.rows.replaceChildren(...sessions.list.map(sessionRow));
    }
  }

  /** The nav count: active sessions across every tenant, so the number means the same from any view. */
  const countAll = debounce(async () => {
    await shared.tenantsReady;
    const answers = await Promise.allSettled(shared.tenants.map((t) => api(`/tenants/${seg(t.id)}/sessions`)));
    const total = answers.reduce((sum, a) => sum + (a.status === 'fulfilled' ? a.value?.sessions?.length || 0 : 0), 0);
    setNavBadge('sessions', total ? String(total) : '');
  }, 500);

  async function revoke(button) {
    const row = button.closest('tr.session');
    const userId = button.dataset.user;
    await runAction(button, ui.status, () => api(`${base()}/users/${seg(userId)}/sessions/${seg(row.dataset.id)}`, { method: 'DELETE' }),
      'Session revoked.');
    await loadSessions();
  }

  // ------------------------------------------------------------------ Live

  const reload = debounce(() => { if (shared.current === 'sessions') loadSessions(); }, 400);

  onLive('event', ({ type }) => {
    if (/^(signin\.succeeded|session\.|token\.refreshed|user\.deleted|user\.signed_up|emulator\.reset|snapshot\.restored)/.test(type || '')) {
      reload();
      countAll();
    }
  });
  onLive('reconnect', reload);

  // ------------------------------------------------------------------ Wiring

  function boot() {
    ui.tenant.addEventListener('change', () => { sessions.loaded = false; sessions.list = []; render(); loadSessions(); });
    ui.refresh.addEventListener('click', loadSessions);
    countAll();
    ui.rows.addEventListener('click', (event) => {
      const button = event.target.closest('button[data-action="revoke"]');
      if (button) revoke(button);
    });
    wireConfirm(ui.revokeAll, ui.confirmGroup, async (button) => {
      await runAction(button, ui.status, () => api(`${base()}/sessions`, { method: 'DELETE' }),
        (answer) => (answer && typeof answer.revoked === 'number' ? `Revoked ${answer.revoked} session${answer.revoked === 1 ? '' : 's'}.` : 'Every session revoked.'));
      await loadSessions();
    });
  }

  registerView('sessions', {
    boot,
    async show() {
      await shared.tenantsReady;
      loadSessions();
    },
    items: () => [],
  });
})();
