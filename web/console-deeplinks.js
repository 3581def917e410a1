// Deep links view: the redirects to app schemes the emulator captured, with their parameters decoded
// and the commands that hand them to an iOS simulator or an Android emulator.
'use strict';

(() => {
  const links = {
    items: [],          // newest first
    selectedId: null,
    loaded: false,
    unseen: [],         // the tenants of links captured while another view was showing
    opener: undefined,  // what --open-deeplinks names, once /info has said (null: none)
  };

  const ui = {
    list: $('#deeplink-list'), detail: $('#deeplink-detail'), count: $('#deeplink-count'), refresh: $('#deeplinks-refresh'),
    tenant: $('#deeplinks-tenant'),
  };

  /** The links of the selected tenant (all, with all tenants), newest first. */
  const visibleLinks = () => links.items.filter((d) => !ui.tenant.value || d.tenant === ui.tenant.value);

  // ------------------------------------------------------------------ Loading

  async function loadLinks() {
    try {
      // Which opener the server runs (`--open-deeplinks`), for the Open in app button; none without it.
      if (links.opener === undefined) links.opener = (await api('/info')).open_deeplinks || null;
      const { deeplinks = [] } = await api('/deeplinks?limit=500');
      const listed = new Set(deeplinks.map((d) => d.id));
      // Keep live captures the listing raced past.
      links.items = [...links.items.filter((d) => !listed.has(d.id) && d.live), ...deeplinks];
      links.loaded = true;
    } catch (error) {
      links.loaded = true;
      setStatus(`Could not load deep links (${error.message})`);
    }
    render();
  }

  // ------------------------------------------------------------------ Helpers

  /** Quotes for a POSIX shell: single quotes keep everything literal; a ' becomes '\''. */
  const shellQuote = (text) => `'${String(text).replace(/'/g, `'\\''`)}'`;
  // `adb shell` hands its words to the device's shell, which would cut an unquoted URL at its first `&`: the
  // whole command goes in double quotes, the URL in single quotes inside them.
  const doubleQuote = (text) => `"${String(text).replace(/(["$`\\])/g, '\\$1')}"`;
  /** The page that shows an app link with its parameters (a browser tab cannot open an app's scheme). */
  const pageHref = (d) => `/_emu/v1/deeplinks/${seg(d.id)}/page`;
  const isWebLink = (url) => /^https?:/i.test(String(url));

  /** scheme://host/path without the query: what the app's router sees first. Opaque URLs stay as they are. */
  function place(d) {
    if (!d.host) return String(d.url).split(/[?#]/)[0];
    return `${d.scheme}://${d.host}${d.path || ''}`;
  }

  /** The server's parameters, else what the URL's query and fragment carry. */
  function paramsOf(d) {
    const given = d.params && typeof d.params === 'object' ? Object.entries(d.params) : [];
    if (given.length) return given;
    try {
      const url = new URL(d.url);
      const fragment = new URLSearchParams(url.hash.replace(/^#/, ''));
      return [...url.searchParams, ...fragment];
    } catch {
      return [];
    }
  }

  // ------------------------------------------------------------------ List

  function linkItem(d) {
    const selected = d.id === links.selectedId;
    return el('li', {
      class: classes('deeplink', 'item', selected && 'selected'), 'data-id': d.id, tabindex: 0,
      'aria-current': selected ? 'true' : null,
    },
    el('div', { class: 'line' },
      el('span', { class: 'scheme', text: d.scheme }),
      el('span', { class: 'to', text: d.host ? `${d.host}${d.path || ''}` : place(d).replace(/^[^:]+:/, '') }),
      timeAgo(d.created_at)),
    el('div', { class: 'line meta' },
      el('span', { class: 'tag', text: d.source || 'captured' }),
      d.tenant ? el('span', { class: 'tenant', text: d.tenant }) : null,
      el('span', { class: 'spacer' }),
      el('span', { class: 'muted', text: `${paramsOf(d).length} param${paramsOf(d).length === 1 ? '' : 's'}` })));
  }

  function renderList() {
    const focusedId = ui.list.contains(document.activeElement) ? document.activeElement.dataset.id : null;
    const visible = visibleLinks();
    const empty = !links.loaded ? 'Loading…' : links.items.length ? 'No deep links in this tenant.'
      : 'No deep links yet. Redirects to app schemes (myapp://…) show up here as they happen.';
    ui.list.replaceChildren(...(visible.length ? visible.map(linkItem) : [emptyItem(empty)]));
    ui.count.textContent = visible.length ? `${visible.length} captured${ui.tenant.value ? ` in ${ui.tenant.value}` : ''}` : '';
    if (focusedId) ui.list.querySelector(`li[data-id="${CSS.escape(focusedId)}"]`)?.focus();
  }

  function select(id, { updateHash = true } = {}) {
    links.selectedId = id;
    if (updateHash) replaceHash(viewHref('deeplinks', id));
    for (const item of ui.list.querySelectorAll('li.deeplink')) {
      const selected = item.dataset.id === id;
      item.classList.toggle('selected', selected);
      if (selected) item.setAttribute('aria-current', 'true'); else item.removeAttribute('aria-current');
    }
    if (!links.items.some((d) => d.id === id) && links.loaded) {
      api(`/deeplinks/${seg(id)}`).then((d) => {
        if (!links.items.some((x) => x.id === d.id)) links.items.push(d);
        render();
      }).catch((error) => ui.detail.replaceChildren(placeholder(`Deep link ${id} is not available: ${error.message}`)));
      return;
    }
    renderDetail();
  }

  // ------------------------------------------------------------------ Detail

  function paramRow([name, value]) {
    const nameNode = el('code', { class: 'param-name', text: name });
    const valueNode = el('code', { class: 'param-value', text: value });
    return el('tr', { class: 'param-row' },
      el('th', { scope: 'row' }, el('div', { class: 'cell-copy' }, nameNode, copyButton(name, nameNode, `name ${name}`))),
      el('td', {}, el('div', { class: 'cell-copy' }, valueNode, copyButton(String(value), valueNode, `value of ${name}`)),
        jwtDetails(String(value))));
  }

  function simCommand(label, command) {
    const code = el('code', { class: 'sim-command', text: command });
    return el('div', { class: 'sim' }, el('span', { class: 'sim-label', text: label }),
      el('div', { class: 'copy-line' }, code, copyButton(command, code, `${label} command`)));
  }

  function renderDetail() {
    const d = links.items.find((item) => item.id === links.selectedId);
    if (!d) {
      ui.detail.replaceChildren(placeholder('Select a deep link to see its parameters and simulator commands.'));
      return;
    }
    const params = paramsOf(d);
    const href = safeHref(d.url);
    const urlNode = el('code', { class: 'copy-text', text: d.url });
    const userLink = d.user_id && d.tenant
      ? el('a', { class: 'user-link', href: viewHref('users', d.tenant, d.user_id), text: d.user_id }) : null;
    ui.detail.replaceChildren(
      el('h2', { class: 'detail-title', text: place(d) }),
      el('div', { class: 'copy-line url-line' }, urlNode,
        href ? el('a', { class: 'btn small open', href: isWebLink(href) ? href : pageHref(d), target: '_blank', rel: 'noopener noreferrer' }, 'Open')
          : null,
        links.opener ? openInAppButton(d) : null,
        copyButton(d.url, urlNode, 'URL')),
      el('dl', { class: 'fields' },
        ...field('Source', d.source), ...field('Tenant', d.tenant), ...field('User', userLink ? '' : null, userLink),
        ...field('Time', `${formatTime(d.created_at)} (${relativeTime(d.created_at)})`), ...field('Id', d.id)),
      el('section', { class: 'part' }, el('h3', { text: 'Parameters' }),
        params.length
          ? el('div', { class: 'table-wrap' }, el('table', { class: 'data-table params' },
            el('thead', {}, el('tr', {}, el('th', { scope: 'col', text: 'Name' }), el('th', { scope: 'col', text: 'Value' }))),
            el('tbody', {}, ...params.map(paramRow))))
          : el('p', { class: 'muted', text: 'No parameters.' })),
      el('section', { class: 'part' }, el('h3', { text: 'Open it in a simulator' }),
        simCommand('iOS Simulator', `xcrun simctl openurl booted ${shellQuote(d.url)}`),
        simCommand('Android emulator',
          `adb shell ${doubleQuote(`am start -W -a android.intent.action.VIEW -d ${shellQuote(d.url)}`)}`)),
      el('p', { class: 'open-outcome muted', role: 'status', 'aria-live': 'polite' }));
    ui.detail.scrollTop = 0;
  }

  /** Runs the server's `--open-deeplinks` opener on this link and says how it went. */
  function openInAppButton(d) {
    const button = el('button', { type: 'button', class: 'btn small primary open-in-app', title: `Open with ${links.opener}` }, 'Open in app');
    button.addEventListener('click', async () => {
      const outcome = ui.detail.querySelector('.open-outcome');
      button.disabled = true;
      try {
        const result = await api(`/deeplinks/${seg(d.id)}/open`, { method: 'POST', body: {} });
        outcome.textContent = result.succeeded
          ? `Opened with ${result.opener}.`
          : `${result.opener} failed${result.status === undefined ? '' : ` (exit status ${result.status})`}: ${result.error || 'no output'}`;
      } catch (error) {
        outcome.textContent = `Could not open it: ${error.message}`;
      } finally {
        button.disabled = false;
      }
    });
    return button;
  }

  const render = () => { renderList(); renderDetail(); };

  function showUnseen() {
    const count = links.unseen.filter(inSelectedTenant).length;
    setNavBadge('deeplinks', count ? String(count) : '', 'accent');
  }

  // ------------------------------------------------------------------ Live

  onLive('deeplink', (d) => {
    if (!d?.id || links.items.some((item) => item.id === d.id)) return;
    links.items.unshift({ ...d, live: true });
    if (shared.current !== 'deeplinks') { links.unseen.push(d.tenant); showUnseen(); }
    renderList();
  });

  onLive('event', ({ type }) => {
    if (type === 'emulator.reset' || type === 'snapshot.restored') {
      links.items = [];
      links.selectedId = null;
      links.unseen = [];
      showUnseen();
      loadLinks();
    }
  });

  onLive('reconnect', loadLinks);

  // ------------------------------------------------------------------ Wiring

  function boot() {
    ui.list.addEventListener('click', (event) => {
      const id = event.target.closest('li.deeplink')?.dataset.id;
      if (!id) return;
      select(id);
      if (window.matchMedia('(max-width: 760px)').matches) ui.detail.scrollIntoView({ block: 'start' });
    });
    openOnEnter(ui.list, 'li.deeplink');
    ui.refresh.addEventListener('click', loadLinks);
    render();
    loadLinks();
  }

  registerView('deeplinks', {
    boot,
    onTenant() { renderList(); showUnseen(); },
    show(params) {
      links.unseen = links.unseen.filter((tenant) => !inSelectedTenant(tenant));
      showUnseen();
      if (params[0] && params[0] !== links.selectedId) select(params[0], { updateHash: false });
    },
    items: () => $$('li.deeplink', ui.list),
    copyPrimary() { $('.url-line .copy', ui.detail)?.click(); },
  });
})();
