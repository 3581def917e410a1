// Faults view: the fault rules in force (match, effect, schedule, counters), switching them on and off,
// ready-made scenarios, a quick rule builder, and the journal of every firing.
'use strict';

(() => {
  const faults = { rules: [], journal: [], operations: [], meanings: [], scenarios: [], loaded: false, error: null };

  const ui = {
    list: $('#fault-list'), journal: $('#fault-journal'), status: $('#faults-status'), clear: $('#clear-faults'),
    refresh: $('#faults-refresh'), scenario: $('#scenario-select'), addScenario: $('#add-scenario'),
    scenarioDescription: $('#scenario-description'), operation: $('#rule-operation'), operations: $('#fault-operations'),
    effect: $('#rule-effect'), times: $('#rule-times'), addRule: $('#add-rule'), json: $('#rule-json'), addJson: $('#add-rule-json'),
  };

  // ------------------------------------------------------------------ Loading

  async function loadRules() {
    const [rules, journal] = await Promise.allSettled([api('/faults'), api('/faults/journal')]);
    if (rules.status === 'fulfilled') {
      faults.rules = rules.value?.rules || [];
      faults.error = null;
    } else {
      faults.error = rules.reason.message;
    }
    faults.journal = journal.status === 'fulfilled' ? journal.value?.firings || [] : faults.journal;
    faults.loaded = true;
    renderRules();
    renderJournal();
    updateBadge();
  }

  async function loadOperations() {
    try {
      const answer = await api('/faults/operations');
      faults.operations = answer?.operations || [];
      faults.meanings = answer?.meanings || [];
      faults.scenarios = answer?.scenarios || [];
    } catch (error) {
      showOutcome(ui.status, `Could not load scenarios and operations: ${error.message}`, false);
    }
    renderPickers();
  }

  // ------------------------------------------------------------------ Summaries

  const list = (value) => (Array.isArray(value) ? value.join(' | ') : String(value));

  function matchSummary(match = {}) {
    const parts = Object.entries(match).filter(([, v]) => v != null).map(([key, value]) => {
      if (key === 'header' && value && typeof value === 'object') return `header ${value.name}${value.value != null ? `=${value.value}` : ''}`;
      return `${key}=${list(value)}`;
    });
    return parts.length ? parts.join(', ') : 'every request';
  }

  function effectSummary(effect = {}) {
    switch (effect.type) {
      case 'error': return `error ${effect.error || ''}${effect.message ? ` "${short(effect.message, 60)}"` : ''}${effect.retry_after != null ? `, retry after ${effect.retry_after}s` : ''}`;
      case 'response': return `HTTP ${effect.status} response`;
      case 'delay': return `delay ${effect.ms} ms`;
      case 'hang': return `hang up to ${effect.max_ms} ms`;
      case 'truncate': return `truncate after ${effect.bytes} bytes`;
      case 'slow': return `slow: ${effect.bytes} bytes every ${effect.interval_ms} ms`;
      case 'reset': return 'connection reset';
      case 'close': return 'connection closed';
      default: return summarizeDetail(effect) || 'unknown';
    }
  }

  function scheduleSummary(schedule = {}) {
    const parts = [];
    if (schedule.times != null) parts.push(`${schedule.times} time${schedule.times === 1 ? '' : 's'}`);
    if (schedule.after) parts.push(`after ${schedule.after} request${schedule.after === 1 ? '' : 's'}`);
    if (schedule.probability != null) parts.push(`${Math.round(schedule.probability * 1000) / 10}% of requests${schedule.seed != null ? ` (seed ${schedule.seed})` : ''}`);
    if (schedule.quota) parts.push(`over ${schedule.quota.limit} per ${formatDuration(schedule.quota.window)}`);
    if (schedule.from) parts.push(`from ${formatTime(schedule.from)}`);
    if (schedule.until) parts.push(`until ${formatTime(schedule.until)}`);
    if (schedule.ttl != null) parts.push(`for ${formatDuration(schedule.ttl)}`);
    return parts.length ? parts.join(', ') : 'always';
  }

  // ------------------------------------------------------------------ Rules

  function ruleItem(rule) {
    const state = rule.state || {};
    const live = rule.enabled && !state.retired;
    const toggleId = `fault-toggle-${rule.id}`;
    return el('li', { class: classes('fault', 'item', live ? 'armed' : 'idle'), 'data-id': rule.id },
      el('div', { class: 'line' },
        el('label', { class: 'switch', for: toggleId },
          el('input', { id: toggleId, type: 'checkbox', class: 'toggle', checked: rule.enabled, 'aria-label': `Enable rule ${rule.id}` }),
          el('span', { class: 'switch-label', text: rule.enabled ? 'on' : 'off' })),
        el('code', { class: 'fault-id', text: rule.id }),
        state.retired ? el('span', { class: 'badge-soft', text: 'retired' }) : null,
        el('span', { class: 'spacer' }),
        el('button', { type: 'button', class: 'btn small danger', 'data-action': 'delete', 'aria-label': `Delete rule ${rule.id}` }, 'Delete')),
      rule.description ? el('p', { class: 'fault-description', text: rule.description }) : null,
      el('dl', { class: 'fields compact' },
        ...field('Match', matchSummary(rule.match)), ...field('Effect', effectSummary(rule.effect)),
        ...field('Schedule', scheduleSummary(rule.schedule))),
      el('div', { class: 'counters' },
        el('span', {}, el('b', { text: String(state.matched ?? 0) }), ' matched'),
        el('span', {}, el('b', { text: String(state.fired ?? 0) }), ' fired'),
        state.expires_at ? el('span', {}, 'expires ', timeAgo(state.expires_at, 'time') || '') : null));
  }

  function renderRules() {
    if (faults.error) {
      ui.list.replaceChildren(emptyItem(`Could not load fault rules: ${faults.error}`));
    } else if (!faults.rules.length) {
      ui.list.replaceChildren(emptyItem(faults.loaded ? 'No fault rules: every request gets its real answer.' : 'Loading…'));
    } else {
      ui.list.replaceChildren(...faults.rules.map(ruleItem));
    }
  }

  function updateBadge() {
    const armed = faults.rules.filter((r) => r.enabled && !r.state?.retired).length;
    setNavBadge('faults', armed ? String(armed) : '', 'bad');
  }

  // ------------------------------------------------------------------ Journal

  const FIRING_ORDER = ['rule', 'effect', 'dialect', 'operation', 'tenant', 'identifier', 'client_id', 'method', 'path'];

  function firingItem(f) {
    const known = FIRING_ORDER.filter((key) => f[key] != null && f[key] !== '');
    const rest = Object.keys(f).filter((key) => !FIRING_ORDER.includes(key) && !['id', 'at'].includes(key) && f[key] != null);
    return el('li', { class: 'firing', 'data-id': f.id },
      el('div', { class: 'line' },
        el('code', { class: 'fault-id', text: f.rule || '?' }),
        el('span', { class: 'event-type bad', text: f.effect || '' }),
        el('span', { class: 'to', text: f.operation || '' }),
        timeAgo(f.at)),
      el('div', { class: 'event-summary', text: [...known.filter((k) => !['rule', 'effect', 'operation'].includes(k)), ...rest]
        .map((key) => `${key}=${short(f[key], 80)}`).join('  ') }));
  }

  function renderJournal() {
    const firings = [...faults.journal].sort((a, b) => String(b.at).localeCompare(String(a.at))).slice(0, 200);
    ui.journal.replaceChildren(...(firings.length ? firings.map(firingItem) : [emptyItem('Nothing fired yet.')]));
  }

  // ------------------------------------------------------------------ Pickers

  const EFFECTS = () => [
    ...faults.meanings.map((meaning) => [`error:${meaning}`, `error: ${meaning}`]),
    ['delay:1500', 'delay 1.5 s'], ['delay:5000', 'delay 5 s'], ['hang:30000', 'hang (30 s max)'],
    ['reset', 'connection reset'], ['close', 'connection closed'],
  ];

  function renderPickers() {
    fillSelect(ui.scenario, faults.scenarios.map((s) => [s.name, s.name]));
    ui.addScenario.disabled = !faults.scenarios.length;
    describeScenario();
    ui.operations.replaceChildren(...faults.operations.map((op) => el('option', { value: op })));
    fillSelect(ui.effect, EFFECTS(), 'error:server_error');
  }

  function describeScenario() {
    ui.scenarioDescription.textContent = faults.scenarios.find((s) => s.name === ui.scenario.value)?.description || '';
  }

  function quickRule() {
    const [type, arg] = ui.effect.value.split(':');
    const effect = type === 'error' ? { type, error: arg } : type === 'delay' ? { type, ms: Number(arg) }
      : type === 'hang' ? { type, max_ms: Number(arg) } : { type };
    const rule = { match: {}, effect, schedule: {} };
    const operation = ui.operation.value.trim();
    if (operation) rule.match.operation = operation;
    const times = Number(ui.times.value);
    if (ui.times.value && Number.isInteger(times) && times > 0) rule.schedule.times = times;
    return rule;
  }

  // ------------------------------------------------------------------ Actions

  async function act(button, work, success) {
    await runAction(button, ui.status, work, success);
    await loadRules();
  }

  async function toggleRule(input) {
    const id = input.closest('li.fault').dataset.id;
    const enabled = input.checked;
    input.disabled = true;
    try {
      await api(`/faults/${seg(id)}`, { method: 'PATCH', body: { enabled } });
      showOutcome(ui.status, `Rule ${id} ${enabled ? 'enabled' : 'disabled'}.`);
    } catch (error) {
      input.checked = !enabled; // the server said no: show what is really in force
      showOutcome(ui.status, `Failed: ${error.message}`, false);
    }
    await loadRules();
    document.getElementById(`fault-toggle-${id}`)?.focus();
  }

  // ------------------------------------------------------------------ Live

  const reload = debounce(() => { if (shared.current === 'faults') loadRules(); else refreshBadgeOnly(); }, 300);

  async function refreshBadgeOnly() {
    try {
      faults.rules = (await api('/faults'))?.rules || [];
      updateBadge();
    } catch { /* the next visit shows the error */ }
  }

  onLive('event', ({ type }) => {
    // `faults.changed`: rules added, removed or switched through the control API (a test's setup, another tab).
    if (['fault.fired', 'faults.changed', 'emulator.reset', 'snapshot.restored'].includes(type)) reload();
  });
  onLive('reconnect', reload);

  // ------------------------------------------------------------------ Wiring

  function boot() {
    ui.scenario.addEventListener('change', describeScenario);
    ui.addScenario.addEventListener('click', () => {
      const name = ui.scenario.value;
      if (name) act(ui.addScenario, () => api('/faults', { method: 'POST', body: { scenario: name } }), `Scenario ${name} added.`);
    });
    ui.addRule.addEventListener('click', () => {
      act(ui.addRule, () => api('/faults', { method: 'POST', body: quickRule() }),
        (answer) => `Rule ${answer?.rules?.[0]?.id || ''} added.`);
    });
    ui.addJson.addEventListener('click', () => {
      let body;
      try { body = JSON.parse(ui.json.value); } catch (error) {
        showOutcome(ui.status, `The JSON does not parse: ${error.message}`, false);
        return;
      }
      act(ui.addJson, () => api('/faults', { method: 'POST', body }), (answer) => `Added ${answer?.rules?.length ?? 1} rule(s).`);
    });
    ui.clear.addEventListener('click', () => act(ui.clear, () => api('/faults', { method: 'DELETE' }), 'Every fault rule removed.'));
    ui.refresh.addEventListener('click', loadRules);
    ui.list.addEventListener('change', (event) => {
      if (event.target.matches('input.toggle')) toggleRule(event.target);
    });
    ui.list.addEventListener('click', (event) => {
      const button = event.target.closest('button[data-action="delete"]');
      if (!button) return;
      const id = button.closest('li.fault').dataset.id;
      act(button, () => api(`/faults/${seg(id)}`, { method: 'DELETE' }), `Rule ${id} deleted.`);
    });
    loadOperations();
    loadRules();
    // Rules added by tests through the API announce nothing: keep the nav count honest.
    setInterval(() => { if (shared.current !== 'faults') refreshBadgeOnly(); }, 10000);
  }

  registerView('faults', {
    boot,
    show(params, changed) { if (changed) loadRules(); },
    items: () => [],
  });
})();
