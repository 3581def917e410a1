// Users view: the selected tenant's users (or every tenant's), one user's whole record (identities, factors, metadata, sessions, recent
// activity and messages) and the actions a tester needs: verify, disable, set a password, revoke, delete.
'use strict';

(() => {
  const users = {
    list: [],
    listTenant: null,     // the tenant `list` belongs to ('' for all tenants; each user names its own)
    listTotal: 0,         // how many match, beyond the 200 shown
    listLoaded: false,
    stale: true,          // reload the list on the next visit
    selected: null,       // { tenant, id }
    user: null,           // the selected user's record
    sessions: [],
    sessionsError: null,
    activity: [],
    messages: [],
    outcome: null,        // { text, ok }: the last action's result, kept across re-renders
    confirmingDelete: false,
  };

  const ui = {
    tenant: $('#users-tenant'), search: $('#users-search'), list: $('#user-list'), detail: $('#user-detail'),
    count: $('#user-count'), refresh: $('#users-refresh'),
  };

  const displayName = (u) => u.email || u.phone || u.username || u.id;

  // ------------------------------------------------------------------ List

  let listRequest = 0;

  async function loadUsers() {
    const tenant = ui.tenant.value;
    const request = ++listRequest; // answers can arrive out of order while typing: keep only the latest
    const q = ui.search.value.trim();
    try {
      const { users: found = [], total = found.length } = await api(`/users?${tenant ? `tenant=${seg(tenant)}&` : ''}${q ? `q=${seg(q)}&` : ''}limit=200`);
      if (request !== listRequest) return;
      users.list = found;
      users.listTotal = total;
      users.listTenant = tenant;
      users.listLoaded = true;
      users.stale = false;
      renderList();
    } catch (error) {
      if (request !== listRequest) return;
      users.list = [];
      users.listLoaded = true;
      ui.list.replaceChildren(emptyItem(`Could not load users: ${error.message}`));
    }
  }

  function badge(text, tone) {
    return el('span', { class: classes('badge-soft', tone), text });
  }

  function userBadges(u) {
    return [
      u.email ? (u.email_verified ? badge('email verified', 'good') : badge('email unverified', 'warn')) : null,
      u.phone ? (u.phone_verified ? badge('phone verified', 'good') : badge('phone unverified', 'warn')) : null,
      u.disabled ? badge('disabled', 'bad') : null,
      u.is_anonymous ? badge('anonymous') : null,
    ];
  }

  function userItem(u) {
    const selected = users.selected?.id === u.id && users.selected?.tenant === u.tenant;
    const secondary = [u.email && u.phone ? u.phone : null, u.username && (u.email || u.phone) ? u.username : null].filter(Boolean).join(' · ');
    return el('li', {
      class: classes('user', 'item', selected && 'selected', u.disabled && 'disabled'), 'data-id': u.id, 'data-tenant': u.tenant, tabindex: 0,
      'aria-current': selected ? 'true' : null,
    },
    el('div', { class: 'line' }, el('span', { class: 'to', text: displayName(u) }), timeAgo(u.last_sign_in_at || u.created_at)),
    secondary ? el('div', { class: 'summary muted', text: secondary }) : null,
    el('div', { class: 'line meta badges' }, el('span', { class: 'tenant', text: u.tenant }), ...userBadges(u)),
    el('div', { class: 'meta mono', text: u.id }));
  }

  function renderList() {
    const focusedId = ui.list.contains(document.activeElement) ? document.activeElement.dataset.id : null;
    const empty = !users.listLoaded ? 'Loading…' : ui.search.value.trim() ? 'No users match.'
      : users.listTenant ? 'No users in this tenant.' : 'No users yet.';
    ui.list.replaceChildren(...(users.list.length ? users.list.map(userItem) : [emptyItem(empty)]));
    const where = users.listTenant ? `in ${users.listTenant}` : 'in all tenants';
    ui.count.textContent = users.listLoaded ? `${users.list.length} shown of ${users.listTotal} ${where}` : '';
    if (focusedId) ui.list.querySelector(`li[data-id="${CSS.escape(focusedId)}"]`)?.focus();
  }

  // ------------------------------------------------------------------ Detail loading

  async function openUser(tenant, id, { updateHash = true, keepOutcome = false } = {}) {
    const switching = users.selected?.id !== id || users.selected?.tenant !== tenant;
    users.selected = { tenant, id };
    if (switching) {
      users.user = null;
      users.confirmingDelete = false;
      users.editing = null;
      users.draft = null;
      if (!keepOutcome) users.outcome = null;
      ui.detail.replaceChildren(placeholder('Loading…'));
    }
    if (updateHash) replaceHash(viewHref('users', tenant, id));
    for (const item of ui.list.querySelectorAll('li.user')) {
      const selected = item.dataset.id === id && item.dataset.tenant === tenant;
      item.classList.toggle('selected', selected);
      if (selected) item.setAttribute('aria-current', 'true'); else item.removeAttribute('aria-current');
    }
    await fetchUser();
  }

  /** Fetches the selected user and everything around it, then renders; the sessions may fail alone. */
  async function fetchUser() {
    const { tenant, id } = users.selected || {};
    if (!tenant) return;
    const base = `/tenants/${seg(tenant)}/users/${seg(id)}`;
    const [user, sessions, events] = await Promise.allSettled([
      api(base), api(`${base}/sessions`), api(`/events?tenant=${seg(tenant)}&limit=500`),
    ]);
    if (users.selected?.id !== id || users.selected?.tenant !== tenant) return; // another user was opened meanwhile
    if (user.status === 'rejected') {
      users.user = null;
      ui.detail.replaceChildren(
        el('p', { class: classes('action-status', users.outcome && (users.outcome.ok ? 'ok' : 'error')), role: 'status', text: users.outcome?.text || '' }),
        placeholder(`User ${id} in ${tenant}: ${user.reason.message}`));
      return;
    }
    users.user = user.value;
    // Active sessions first, newest first within each group: the ones a tester acts on.
    users.sessions = (sessions.status === 'fulfilled' ? sessions.value?.sessions || [] : [])
      .sort((a, b) => (b.active - a.active) || String(b.created_at).localeCompare(String(a.created_at)));
    users.sessionsError = sessions.status === 'rejected' ? sessions.reason.message : null;
    users.activity = events.status === 'fulfilled' ? (events.value?.events || []).filter((e) => e.user_id === id).slice(0, 12) : [];
    users.messages = await messagesFor(user.value);
    if (users.selected?.id !== id) return;
    renderDetail();
  }

  /** The messages sent to the user's email and phone, newest first. */
  async function messagesFor(user) {
    const addresses = [user.email, user.phone].filter(Boolean);
    const answers = await Promise.allSettled(addresses.map((to) => api(`/messages?to=${seg(to)}&limit=20`)));
    return answers.flatMap((a) => (a.status === 'fulfilled' ? a.value?.messages || [] : []))
      .filter((m) => m.tenant === user.tenant || !m.tenant)
      .sort((a, b) => String(b.created_at).localeCompare(String(a.created_at)))
      .slice(0, 10);
  }

  // ------------------------------------------------------------------ Actions

  const ACTIONS = {
    'verify-email': { run: (base) => api(base, { method: 'PATCH', body: { email_verified: true } }), done: 'Email marked as verified.' },
    'verify-phone': { run: (base) => api(base, { method: 'PATCH', body: { phone_verified: true } }), done: 'Phone marked as verified.' },
    disable: { run: (base) => api(base, { method: 'PATCH', body: { disabled: true } }), done: 'User disabled: sign-ins are refused.' },
    enable: { run: (base) => api(base, { method: 'PATCH', body: { disabled: false } }), done: 'User enabled.' },
    'set-password': {
      run(base) {
        const input = $('#new-password');
        const password = input?.value || '';
        if (!password) throw new Error('type the new password first');
        return api(base, { method: 'PATCH', body: { password } }).then(() => { input.value = ''; });
      },
      done: 'Password set.',
    },
    'revoke-sessions': { run: (base) => api(`${base}/sessions`, { method: 'DELETE' }), done: 'Every session of this user is revoked.' },
    // The control API's virtual authenticator registers a passkey for the user on the tenant's relying party, as a
    // person's device would; tests then answer sign-in options with POST /_emu/v1/webauthn/assert.
    'add-passkey': {
      run: (base, { tenant, id }) => api('/webauthn/credentials', { method: 'POST', body: { tenant, user_id: id } }),
      done: 'Passkey added by the virtual authenticator: POST /_emu/v1/webauthn/assert answers sign-in options with it.',
    },
  };

  async function runUserAction(action, button) {
    const { tenant, id } = users.selected || {};
    if (!tenant) return;
    const base = `/tenants/${seg(tenant)}/users/${seg(id)}`;
    if (action === 'delete') {
      users.confirmingDelete = true;
      renderDetail();
      $('[data-action="confirm-delete"]', ui.detail)?.focus();
      return;
    }
    if (action === 'cancel-delete') {
      users.confirmingDelete = false;
      renderDetail();
      $('[data-action="delete"]', ui.detail)?.focus();
      return;
    }
    if (action === 'confirm-delete') {
      button.disabled = true;
      try {
        await api(base, { method: 'DELETE' });
        users.outcome = { text: `Deleted ${users.user ? displayName(users.user) : id}.`, ok: true };
        users.user = null;
        users.confirmingDelete = false;
        ui.detail.replaceChildren(
          el('p', { class: 'action-status ok', role: 'status', text: users.outcome.text }),
          placeholder('Select another user.'));
        users.selected = null;
        replaceHash(viewHref('users', tenant));
        loadUsers();
        loadTenants();
      } catch (error) {
        users.outcome = { text: `Failed: ${error.message}`, ok: false };
        users.confirmingDelete = false;
        renderDetail();
      }
      return;
    }
    const spec = ACTIONS[action];
    if (!spec) return;
    button.disabled = true;
    try {
      await spec.run(base, users.selected);
      users.outcome = { text: spec.done, ok: true };
    } catch (error) {
      users.outcome = { text: `Failed: ${error.message}`, ok: false };
    }
    await fetchUser();          // re-render from the server's answer, not from what we hoped it did
    if (!users.user) return;
    loadUsers();                // the list shows the badges too
    // Keep keyboard users on the row of actions (the button they pressed may have been replaced).
    ($(`[data-action="${action}"]`, ui.detail) || $('.user-actions button', ui.detail))?.focus();
  }

  // ------------------------------------------------------------------ Detail rendering

  function table(headers, rows, cls) {
    return el('div', { class: 'table-wrap' }, el('table', { class: classes('data-table', 'cards', cls) },
      el('thead', {}, el('tr', {}, ...headers.map((h) => el('th', { scope: 'col', text: h })))),
      el('tbody', {}, ...rows)));
  }

  function cells(values, labels) {
    return values.map((value, i) => el('td', { 'data-label': labels[i] }, value instanceof Node ? value : String(value ?? '—')));
  }

  function section(title, ...content) {
    return el('section', { class: 'part' }, el('h3', { text: title }), ...content);
  }

  function actionButton(action, label, tone) {
    return el('button', { type: 'button', class: classes('btn', tone), 'data-action': action }, label);
  }

  function actionsBar(u) {
    const buttons = [
      u.email && !u.email_verified ? actionButton('verify-email', 'Mark email verified') : null,
      u.phone && !u.phone_verified ? actionButton('verify-phone', 'Mark phone verified') : null,
      u.disabled ? actionButton('enable', 'Enable') : actionButton('disable', 'Disable'),
      actionButton('revoke-sessions', 'Revoke all sessions'),
      actionButton('add-passkey', 'Add a passkey'),
      users.confirmingDelete
        ? el('span', { class: 'confirm' },
          actionButton('confirm-delete', 'Yes, delete this user', 'danger solid'),
          actionButton('cancel-delete', 'Cancel'))
        : actionButton('delete', 'Delete…', 'danger'),
    ];
    const password = el('div', { class: 'form-row password-row' },
      el('label', { class: 'grow' }, 'New password',
        el('input', { id: 'new-password', type: 'text', autocomplete: 'off', spellcheck: 'false', placeholder: 'the new password' })),
      actionButton('set-password', 'Set password'));
    return el('div', { class: 'user-actions' }, el('div', { class: 'button-row' }, ...buttons), password);
  }

  function verifiedText(value, verified) {
    if (!value) return null;
    return el('span', {}, value, ' ', verified ? badge('verified', 'good') : badge('unverified', 'warn'));
  }

  function renderDetail() {
    const u = users.user;
    if (!u) return;
    const { tenant } = users.selected;
    const labels = ['Provider', 'Subject', 'Email', 'Linked'];
    const identities = u.identities?.length
      ? table(labels, u.identities.map((i) => el('tr', {}, ...cells([i.provider, i.subject, i.email || '—', formatTime(i.created_at) || '—'], labels))))
      : el('p', { class: 'muted', text: 'No identities.' });
    const factorLabels = ['Kind', 'Status', 'Name', 'Phone'];
    const factors = Array.isArray(u.factors)
      ? (u.factors.length
        ? table(factorLabels, u.factors.map((f) => el('tr', {}, ...cells([f.kind || f.factor_type || f.type, f.status, f.friendly_name || '—', f.phone || '—'], factorLabels))))
        : el('p', { class: 'muted', text: 'No MFA factors.' }))
      : el('p', { class: 'muted', text: 'Factors are not reported by this build.' });
    const sessionLabels = ['AAL', 'IP', 'User agent', 'Created', 'Refreshed', 'State'];
    const sessions = users.sessionsError
      ? el('p', { class: 'error-text', text: `Could not load sessions: ${users.sessionsError}` })
      : users.sessions.length
        ? table(sessionLabels, users.sessions.map((s) => el('tr', { class: classes(!s.active && 'inactive') },
          ...cells([s.aal, s.ip || '—', s.user_agent || '—', formatTime(s.created_at), s.refreshed_at ? formatTime(s.refreshed_at) : '—',
            s.active ? badge('active', 'good') : badge(`revoked ${formatTime(s.revoked_at)}`, 'bad')], sessionLabels))), 'sessions')
        : el('p', { class: 'muted', text: 'No sessions.' });
    const activity = users.activity.length
      ? el('ul', { class: 'mini-list' }, ...users.activity.map((e) => el('li', {},
        el('span', { class: classes('event-type', eventTone(e.type)), text: e.type }), ' ',
        el('span', { class: 'muted', text: summarizeDetail(e.detail) }), ' ', timeAgo(e.created_at))))
      : el('p', { class: 'muted', text: 'No events for this user.' });
    const messages = users.messages.length
      ? el('ul', { class: 'mini-list' }, ...users.messages.map((m) => el('li', {},
        el('a', { href: viewHref('inbox', m.id), text: m.subject || (m.text || '').split('\n')[0] || m.id }), ' ',
        el('span', { class: 'tag', text: m.purpose }), ' ', m.codes?.[0] ? el('span', { class: 'mini-code', text: m.codes[0] }) : null, ' ',
        timeAgo(m.created_at))))
      : el('p', { class: 'muted', text: 'No messages to this user.' });

    ui.detail.replaceChildren(
      el('div', { class: 'detail-head' },
        el('h2', { class: 'detail-title', text: displayName(u) }),
        el('div', { class: 'badges' }, ...userBadges(u))),
      el('p', { class: classes('action-status', users.outcome && (users.outcome.ok ? 'ok' : 'error')), role: 'status', text: users.outcome?.text || '' }),
      actionsBar(u),
      el('dl', { class: 'fields' },
        ...field('Id', u.id), ...field('Tenant', tenant),
        ...field('Email', null, verifiedText(u.email, u.email_verified)), ...field('Phone', null, verifiedText(u.phone, u.phone_verified)),
        ...field('Username', u.username), ...field('Disabled', u.disabled ? 'yes' : 'no'),
        ...field('Anonymous', u.is_anonymous ? 'yes' : null), ...field('Banned until', u.banned_until ? formatTime(u.banned_until) : null),
        ...field('Created', formatTime(u.created_at)), ...field('Updated', formatTime(u.updated_at)),
        ...field('Last sign-in', u.last_sign_in_at ? `${formatTime(u.last_sign_in_at)} (${relativeTime(u.last_sign_in_at)})` : 'never')),
      section('Sessions', sessions),
      section('Identities', identities),
      section('Factors', factors),
      ...metadataSections(u, tenant),
      section('Recent activity', activity),
      section('Messages', messages));
  }

  // ------------------------------------------------------------------ Metadata and new users

  /** What each dialect calls the two metadata objects (Firebase's custom claims are the app metadata). */
  function metadataLabels(tenant) {
    switch (tenantById(tenant)?.dialect) {
      case 'firebase': return { user_metadata: 'Profile (displayName, photoUrl…)', app_metadata: 'Custom claims' };
      case 'cognito': return { user_metadata: 'User metadata', app_metadata: 'App metadata' };
      default: return { user_metadata: 'User metadata (user_metadata)', app_metadata: 'App metadata (app_metadata)' };
    }
  }

  function metadataSections(u, tenant) {
    const labels = metadataLabels(tenant);
    return ['user_metadata', 'app_metadata'].map((field) => {
      const editing = users.editing === field;
      const value = u[field] ?? {};
      const head = el('div', { class: 'section-head' }, el('h3', { text: labels[field] }), el('span', { class: 'spacer' }),
        editing ? null : el('button', { type: 'button', class: 'btn small', 'data-edit': field }, 'Edit'));
      if (!editing) return el('section', { class: 'part', 'data-metadata': field }, head, el('pre', { class: 'json', text: pretty(value) }));
      const box = el('textarea', { class: 'json-edit', rows: 8, spellcheck: 'false', 'aria-label': labels[field] });
      // What is typed survives the live refreshes that re-render the user while it is being edited.
      box.value = users.draft ?? JSON.stringify(value, null, 2);
      box.addEventListener('input', () => { users.draft = box.value; });
      return el('section', { class: 'part', 'data-metadata': field }, head, box,
        el('div', { class: 'button-row' },
          el('button', { type: 'button', class: 'btn primary', 'data-save': field }, 'Save'),
          el('button', { type: 'button', class: 'btn', 'data-cancel-edit': field }, 'Cancel')));
    });
  }

  /** Saves an edited object whole: keys it no longer has are removed (the control API merges, null deletes). */
  async function saveMetadata(field) {
    const { tenant, id } = users.selected || {};
    const box = $(`[data-metadata="${field}"] textarea`, ui.detail);
    let edited;
    try { edited = JSON.parse(box.value || '{}'); } catch (error) {
      users.outcome = { text: `Not JSON: ${error.message}`, ok: false };
      renderDetail();
      return;
    }
    if (!edited || typeof edited !== 'object' || Array.isArray(edited)) {
      users.outcome = { text: 'Metadata must be a JSON object.', ok: false };
      renderDetail();
      return;
    }
    const changes = { ...edited };
    for (const key of Object.keys(users.user?.[field] ?? {})) if (!(key in edited)) changes[key] = null;
    try {
      users.user = await api(`/tenants/${seg(tenant)}/users/${seg(id)}`, { method: 'PATCH', body: { [field]: changes } });
      users.editing = null;
      users.draft = null;
      users.outcome = { text: `Saved ${metadataLabels(tenant)[field]}.`, ok: true };
    } catch (error) {
      users.outcome = { text: `Failed: ${error.message}`, ok: false };
    }
    renderDetail();
  }

  /** The new-user form, in the detail pane; what it asks for follows the tenant's dialect. With all tenants shown, the
   * form asks which one (changing it keeps what was typed). */
  function showNewUserForm(_event, tenant = ui.tenant.value || shared.tenants[0]?.id, typed = {}) {
    if (!tenant) return;
    const dialect = tenantById(tenant)?.dialect;
    const input = (name, label, type = 'text', placeholder = '') => el('label', { class: 'grow' }, label,
      el('input', { name, type, autocomplete: 'off', spellcheck: 'false', placeholder, value: typed[name] || null }));
    const choice = ui.tenant.value ? null : el('label', {}, 'Tenant',
      el('select', { name: 'tenant' }, ...shared.tenants.map((t) => el('option', { value: t.id, selected: t.id === tenant, text: tenantLabel(t) }))));
    const form = el('form', { id: 'new-user-form', class: 'new-user' },
      el('h2', { class: 'detail-title', text: `New user in ${tenant}` }),
      el('p', { class: 'action-status', role: 'status' }),
      choice,
      el('div', { class: 'form-grid' },
        input('email', 'Email', 'email', 'ada@example.com'),
        input('phone', 'Phone', 'tel', '+15555550100'),
        dialect === 'cognito' ? input('username', 'Username', 'text', 'defaults to the email') : null,
        input('password', 'Password', 'text', 'leave empty for none')),
      el('label', { class: 'check' }, el('input', { name: 'email_verified', type: 'checkbox', checked: true }), ' Email verified'),
      el('label', { class: 'check' }, el('input', { name: 'phone_verified', type: 'checkbox' }), ' Phone verified'),
      el('label', { class: 'grow' }, metadataLabels(tenant).user_metadata + ' (JSON)',
        el('textarea', { name: 'user_metadata', class: 'json-edit', rows: 3, spellcheck: 'false', placeholder: '{}' })),
      el('div', { class: 'button-row' }, el('button', { type: 'submit', class: 'btn primary' }, 'Create user')));
    choice?.querySelector('select').addEventListener('change', (event) => {
      const data = new FormData(form);
      showNewUserForm(null, event.target.value, Object.fromEntries(['email', 'phone', 'username', 'password'].map((k) => [k, String(data.get(k) || '')])));
    });
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const data = new FormData(form);
      const body = { email_verified: data.get('email_verified') === 'on', phone_verified: data.get('phone_verified') === 'on' };
      for (const key of ['email', 'phone', 'username', 'password']) {
        const value = String(data.get(key) || '').trim();
        if (value) body[key] = value;
      }
      const status = $('.action-status', form);
      try {
        const metadata = String(data.get('user_metadata') || '').trim();
        if (metadata) body.user_metadata = JSON.parse(metadata);
        const user = await api(`/tenants/${seg(tenant)}/users`, { method: 'POST', body });
        users.outcome = { text: `Created ${displayName(user)}.`, ok: true };
        loadUsers();
        loadTenants();
        openUser(tenant, user.id, { keepOutcome: true });
      } catch (error) {
        status.className = 'action-status error';
        status.textContent = `Could not create the user: ${error.message}`;
      }
    });
    users.selected = null;
    ui.detail.replaceChildren(form);
    $('input[name="email"]', form).focus();
  }

  // ------------------------------------------------------------------ Live

  const refreshSelected = debounce(() => { if (users.user && shared.current === 'users') fetchUser(); }, 400);
  const refreshList = debounce(() => { if (shared.current === 'users') loadUsers(); else users.stale = true; }, 500);

  onLive('event', (event) => {
    const type = event.type || '';
    if (type === 'emulator.reset' || type === 'snapshot.restored') {
      users.stale = true;
      if (shared.current === 'users') { loadUsers(); if (users.selected) fetchUser(); }
      return;
    }
    if (/^user\.(created|signed_up|deleted|updated)$/.test(type) && (!ui.tenant.value || event.tenant === ui.tenant.value)) refreshList();
    if (users.selected && event.user_id === users.selected.id && event.tenant === users.selected.tenant) refreshSelected();
  });

  // ------------------------------------------------------------------ Wiring

  function boot() {
    const search = debounce(loadUsers, 200);
    ui.search.addEventListener('input', search);
    ui.search.addEventListener('change', search); // programmatic clears fire no 'input'
    ui.refresh.addEventListener('click', () => { loadUsers(); if (users.selected) fetchUser(); });
    ui.list.addEventListener('click', (event) => {
      const item = event.target.closest('li.user');
      if (!item) return;
      openUser(item.dataset.tenant, item.dataset.id);
      if (window.matchMedia('(max-width: 760px)').matches) ui.detail.scrollIntoView({ block: 'start' });
    });
    openOnEnter(ui.list, 'li.user');
    ui.detail.addEventListener('click', (event) => {
      const button = event.target.closest('button[data-action]');
      if (button && ui.detail.contains(button)) runUserAction(button.dataset.action, button);
      const edit = event.target.closest('button[data-edit]');
      if (edit) { users.editing = edit.dataset.edit; users.draft = null; renderDetail(); $(`[data-metadata="${edit.dataset.edit}"] textarea`, ui.detail)?.focus(); }
      const save = event.target.closest('button[data-save]');
      if (save) saveMetadata(save.dataset.save);
      if (event.target.closest('button[data-cancel-edit]')) { users.editing = null; users.draft = null; renderDetail(); }
    });
    $('#users-add').addEventListener('click', showNewUserForm);
    // Enter in the password box sets it, as a form would.
    ui.detail.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && event.target.id === 'new-password') {
        event.preventDefault();
        const button = $('[data-action="set-password"]', ui.detail);
        if (button) runUserAction('set-password', button);
      }
    });
  }

  let following = false; // show() is selecting the tenant a link names

  registerView('users', {
    boot,
    onTenant() {
      users.list = [];
      users.listLoaded = false;
      users.stale = true;
      // While show() follows a link, the link is the hash and show() loads the list.
      if (shared.current !== 'users' || following) return;
      renderList();
      replaceHash(ui.tenant.value ? viewHref('users', ui.tenant.value) : '#users');
      loadUsers();
    },
    async show(params, changed) {
      await shared.tenantsReady;
      const [tenant, id] = params;
      // A link to a tenant's users selects that tenant; a link to one user does too, unless every tenant is shown.
      if (tenant && tenantById(tenant) && ui.tenant.value !== tenant && (!id || ui.tenant.value)) {
        following = true;
        try { selectTenant(tenant); } finally { following = false; }
      }
      if (users.stale || changed || users.listTenant !== ui.tenant.value) loadUsers();
      if (tenant && id && (users.selected?.id !== id || users.selected?.tenant !== tenant)) {
        openUser(tenant, id, { updateHash: false });
      } else if (tenant && id && changed) {
        fetchUser();
      }
    },
    items: () => $$('li.user', ui.list),
    focusSearch: () => ui.search.focus(),
  });
})();
