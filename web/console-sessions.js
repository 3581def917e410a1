// Sessions view: the active sessions of the selected tenant (or of every tenant), who holds them, and revoking one
// or all of them.
'use strict';

(() => {
  const sessions = { list: [], tenant: null, loaded: false, error: null }; // each session with its `tenant`

  const ui = {
    tenant: $('#sessions-tenant'), rows: $('#session-rows'), status: $('#sessions-status'), refresh: $('#sessions-refresh'),
    revokeAll: $('#revoke-all-sessions'), confirmGroup: $('#revoke-all-confirm-group'),
  };

  /** The tenants shown: the selected one, or every one. */
  const shownTenants = () => (ui.tenant.value ? [ui.tenant.value] : shared.tenants.map((t) => t.id));

  /** Every tenant's sessions in `tenants`, each marked with its tenant, newest first; fails if any listing fails. */
  async function sessionsOf(tenants) {
    const lists = await Promise.all(tenants.map(async (tenant) =>
      ((await api(`/tenants/${seg(tenant)}/sessions`)).sessions || []).map((s) => ({ ...s, tenant }))));
    return lists.flat().sort((a, b) => String(b.created_at).localeCompare(String(a.created_at)));
  }

  let loadRequest = 0;

  async function loadSessions() {
    await shared.tenantsReady;
    const tenant = ui.tenant.value;
    const request = ++loadRequest;
    try {
      const found = await sessionsOf(shownTenants());
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
    return el('tr', { class: 'session', 'data-id': s.id, 'data-tenant': s.tenant },
      cell('User', el('a', { href: viewHref('users', s.tenant, userId), text: userLabel(s) }),
        el('div', { class: 'meta mono', text: s.id })),
      cell('Tenant', el('span', { class: 'tenant', text: s.tenant })),
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
      ui.rows.replaceChildren(el('tr', {}, el('td', { colspan: 8, class: 'empty error-text', text: `Could not load sessions: ${sessions.error}` })));
    } else if (!count) {
      const none = sessions.tenant ? 'No active sessions in this tenant.' : 'No active sessions.';
      ui.rows.replaceChildren(el('tr', {}, el('td', { colspan: 8, class: 'empty', text: sessions.loaded ? none : 'Loading…' })));
    } else {
      ui.rows.replaceChildren(...sessions.list.map(sessionRow));
    }
  }

  /** The nav count: active sessions in the selected tenant (or in every one), the same from any view. */
  const countAll = debounce(async () => {
    await shared.tenantsReady;
    const answers = await Promise.allSettled(shared.tenants.filter((t) => inSelectedTenant(t.id))
      .map((t) => api(`/tenants/${seg(t.id)}/sessions`)));
    const total = answers.reduce((sum, a) => sum + (a.status === 'fulfilled' ? a.value?.sessions?.length || 0 : 0), 0);
    setNavBadge('sessions', total ? String(total) : '');
  }, 500);

  async function revoke(button) {
    const row = button.closest('tr.session');
    const userId = button.dataset.user;
    await runAction(button, ui.status,
      () => api(`/tenants/${seg(row.dataset.tenant)}/users/${seg(userId)}/sessions/${seg(row.dataset.id)}`, { method: 'DELETE' }),
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
    ui.refresh.addEventListener('click', loadSessions);
    countAll();
    ui.rows.addEventListener('click', (event) => {
      const button = event.target.closest('button[data-action="revoke"]');
      if (button) revoke(button);
    });
    wireConfirm(ui.revokeAll, ui.confirmGroup, async (button) => {
      // Every session shown: the selected tenant's, or every tenant's.
      await runAction(button, ui.status, async () => {
        const answers = await Promise.all(shownTenants().map((tenant) => api(`/tenants/${seg(tenant)}/sessions`, { method: 'DELETE' })));
        return { revoked: answers.reduce((sum, answer) => sum + (answer?.revoked || 0), 0) };
      }, ({ revoked }) => `Revoked ${revoked} session${revoked === 1 ? '' : 's'}.`);
      await loadSessions();
    });
  }

  registerView('sessions', {
    boot,
    onTenant() {
      countAll();
      sessions.loaded = false;
      sessions.list = [];
      if (shared.current === 'sessions') { render(); loadSessions(); }
    },
    async show() {
      await shared.tenantsReady;
      loadSessions();
    },
    items: () => [],
  });
})();
