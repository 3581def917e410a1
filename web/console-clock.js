// Clock view: the emulator's time, how far it is from real time, and moving it (advance, freeze, resume).
'use strict';

(() => {
  const ui = {
    now: $('#clock-now'), mode: $('#clock-mode'), local: $('#clock-local'), offset: $('#clock-offset'),
    freeze: $('#clock-freeze'), resume: $('#clock-resume'), sync: $('#clock-sync'), amount: $('#advance-amount'), unit: $('#advance-unit'),
    custom: $('#advance-custom'), status: $('#clock-status'),
  };

  /** Every clock-moving call answers the new clock: show it at once rather than waiting for the event. */
  function adopt(clock) {
    if (clock?.now) shared.clock = { now: Date.parse(clock.now), mode: clock.mode, fetchedAt: Date.now() };
    tickClock();
    refreshRelativeTimes();
    render();
    showClockBadge();
  }

  function render() {
    const clock = shared.clock;
    if (!clock) return;
    ui.mode.textContent = clock.mode;
    ui.mode.className = classes('pill', clock.mode);
    // Never disabled (another client may have moved the clock a moment ago); the likely next step is highlighted.
    // Resuming a frozen clock lets it run on from where it stood (offset mode), not from real time.
    ui.resume.classList.toggle('primary', clock.mode === 'frozen');
    ui.sync.hidden = clock.mode === 'real';
    tick();
  }

  function tick() {
    const clock = shared.clock;
    if (!clock || shared.current !== 'clock') return;
    const now = emulatorNow();
    ui.now.textContent = new Date(now).toISOString();
    ui.local.textContent = `${new Date(now).toLocaleString()} local time`;
    const ahead = Math.round((now - Date.now()) / 1000);
    ui.offset.textContent = Math.abs(ahead) < 2 ? 'In step with real time.'
      : `${formatDuration(ahead)} ${ahead > 0 ? 'ahead of' : 'behind'} real time${clock.mode === 'frozen' ? ', and standing still' : ''}.`;
  }

  async function advance(seconds, button) {
    if (!Number.isFinite(seconds) || seconds <= 0) {
      showOutcome(ui.status, 'Enter an amount above zero.', false);
      return;
    }
    await clockAction(button, async () => adopt(await api('/clock/advance', { method: 'POST', body: { seconds } })),
      `Advanced ${formatDuration(seconds)}.`);
  }

  /** Renders after runAction so the buttons reflect the new mode. */
  async function clockAction(button, work, success) {
    await runAction(button, ui.status, work, success);
    render();
  }

  function boot() {
    for (const button of $$('button[data-advance]')) {
      button.addEventListener('click', () => advance(Number(button.dataset.advance), button));
    }
    ui.custom.addEventListener('click', () => advance(Number(ui.amount.value) * Number(ui.unit.value), ui.custom));
    ui.amount.addEventListener('keydown', (event) => {
      if (event.key === 'Enter') { event.preventDefault(); ui.custom.click(); }
    });
    ui.freeze.addEventListener('click', () => clockAction(ui.freeze,
      async () => adopt(await api('/clock/freeze', { method: 'POST', body: {} })), 'Frozen: time stands still until you advance or resume.'));
    ui.resume.addEventListener('click', () => clockAction(ui.resume,
      async () => adopt(await api('/clock/resume', { method: 'POST', body: {} })), 'Running again, from where it stood.'));
    ui.sync.addEventListener('click', () => clockAction(ui.sync,
      async () => adopt(await api('/clock/real', { method: 'POST', body: {} })), 'Back in step with real time.'));
  }

  registerView('clock', {
    boot,
    show() { refreshClock(); render(); },
    tick,
    onClock: render,
    items: () => [],
  });
})();
